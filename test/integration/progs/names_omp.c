/* names_omp: an OpenMP parallel region of 3 threads (libgomp's or libomp's workers run the
 * compiler's outlined function); each thread sleeps 10 ms in it. Prints "ok 3". */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    int n = 0;
#pragma omp parallel num_threads(3) reduction(+ : n)
    {
        usleep(10000); /* names_omp: the region's sleep */
        n += 1;
    }
    printf("ok %d\n", n);
    return 0;
}
