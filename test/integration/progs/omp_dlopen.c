/* omp_dlopen LIB: loads LIB (omp_lib) with RTLD_LOCAL, so its OpenMP runtime is outside the
 * global scope, and prints what omp_lib_work returns ("2"). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    int (*work)(void) = h ? (int (*)(void))dlsym(h, "omp_lib_work") : NULL;
    if (!work) return 2;
    printf("%d\n", work());
    return 0;
}
