/* omp_lib: a library built with -fopenmp, which omp_dlopen loads with RTLD_LOCAL (as Python
 * loads an extension module): a team of 2 meets at a barrier after the master computed 50 ms. */
#include <omp.h>

#include "common.h"

int omp_lib_work(void)
{
    int n = 0;
#pragma omp parallel num_threads(2) reduction(+ : n)
    {
        if (omp_get_thread_num() == 0) spin_ms(50);
#pragma omp barrier /* omp_lib: the barrier */
        n++;
    }
    return n;
}
