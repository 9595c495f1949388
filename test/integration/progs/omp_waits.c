/* omp_waits: OpenMP waits of known length (built with gcc and with clang -fopenmp). The master
 * (thread 0, the main thread) holds the others back by computing, never by waiting:
 * 1. a team of 3 meets at `omp barrier` after the master computed 200 ms: 2 x 200 ms;
 * 2. a team of 2: the master computes 100 ms inside `omp critical(ledger)` while thread 1,
 *    told by an atomic flag that the section is held, enters it: 100 ms;
 * 3. a team of 2: the same with an omp_lock_t: 100 ms.
 * Prints "ok". */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

#include "common.h"

static omp_lock_t lock;
static atomic_int held;

static void until_held(void)
{
    while (!atomic_load(&held))
        ;
}

int main(void)
{
#pragma omp parallel num_threads(3)
    {
        if (omp_get_thread_num() == 0) spin_ms(200);
#pragma omp barrier /* omp_waits: the barrier */
    }
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
#pragma omp critical(ledger)
            {
                atomic_store(&held, 1);
                spin_ms(100);
            }
        } else {
            until_held();
#pragma omp critical(ledger) /* omp_waits: the critical section */
            atomic_store(&held, 0);
        }
    }
    omp_init_lock(&lock);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            omp_set_lock(&lock);
            atomic_store(&held, 1);
            spin_ms(100);
            omp_unset_lock(&lock);
        } else {
            until_held();
            omp_set_lock(&lock); /* omp_waits: the lock */
            omp_unset_lock(&lock);
        }
    }
    omp_destroy_lock(&lock);
    puts("ok");
    return 0;
}
