/* omp_waits: OpenMP waits of known length (built with gcc and with clang -fopenmp). The master
 * (thread 0, the main thread) holds the others back by computing, never by waiting:
 * 1. a team of 3 meets at `omp barrier` after the master, once the 2 others are in the region
 *    (an atomic count), computed 200 ms: 2 x 200 ms;
 * 2. 5 times, a team of 2: once thread 1 has arrived (an atomic flag), the master computes
 *    20 ms inside `omp critical(ledger)` while thread 1, told by another flag that the section
 *    is held, enters it: 5 x 20 ms;
 * 3. the same with an omp_lock_t: 5 x 20 ms.
 * Prints "ok". */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

#include "common.h"

static omp_lock_t lock;
static atomic_int held, arrived, team_in;

static void until_set(atomic_int *flag)
{
    while (!atomic_load(flag))
        ;
}

int main(void)
{
#pragma omp parallel num_threads(3)
    {
        if (omp_get_thread_num() == 0) {
            while (atomic_load(&team_in) < 2)
                ;
            spin_ms(200);
        } else {
            atomic_fetch_add(&team_in, 1);
        }
#pragma omp barrier /* omp_waits: the barrier */
    }
    for (int round = 0; round < 5; round++) {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                until_set(&arrived);
#pragma omp critical(ledger)
                {
                    atomic_store(&held, 1);
                    spin_ms(20);
                }
            } else {
                atomic_store(&arrived, 1);
                until_set(&held);
#pragma omp critical(ledger) /* omp_waits: the critical section */
                {
                    atomic_store(&held, 0);
                    atomic_store(&arrived, 0);
                }
            }
        }
    }
    omp_init_lock(&lock);
    for (int round = 0; round < 5; round++) {
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0) {
                until_set(&arrived);
                omp_set_lock(&lock);
                atomic_store(&held, 1);
                spin_ms(20);
                omp_unset_lock(&lock);
            } else {
                atomic_store(&arrived, 1);
                until_set(&held);
                omp_set_lock(&lock); /* omp_waits: the lock */
                atomic_store(&held, 0);
                atomic_store(&arrived, 0);
                omp_unset_lock(&lock);
            }
        }
    }
    omp_destroy_lock(&lock);
    puts("ok");
    return 0;
}
