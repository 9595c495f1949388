/* dl_reload BIG SMALL: dlopens library BIG, calls its dl_wait (a sleep inside a big frame),
 * dlcloses it, then does the same with SMALL (the same function with a small frame), which the
 * loader maps at the same address. Prints "same" or "moved" (where the second dl_wait lies),
 * then "ok". The tracer must not unwind the second sleep with the first library's rules. */
#include <dlfcn.h>
#include <stdio.h>

static int call(const char *path, void **where)
{
    void *h = dlopen(path, RTLD_NOW);
    if (!h) return fprintf(stderr, "%s\n", dlerror()), 1;
    int (*fn)(void) = (int (*)(void))dlsym(h, "dl_wait");
    if (!fn) return 1;
    *where = (void *)fn;
    int r = fn();
    __asm__ volatile("" ::: "memory"); /* main stays the caller's frame: no tail call */
    return dlclose(h) != 0 || r != 0;
}

int main(int argc, char **argv)
{
    void *a, *b;
    if (argc != 3 || call(argv[1], &a) || call(argv[2], &b)) return 1;
    printf("%s\nok\n", a == b ? "same" : "moved");
    return 0;
}
