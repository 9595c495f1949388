/* spinlock.c: see spinlock.h. */
#include "spinlock.h"

#include <sched.h>

void spin_lock(gt_spinlock *l)
{
    for (unsigned spins = 0;; spins++) {
        if (!atomic_load_explicit(&l->v, memory_order_relaxed) &&
            !atomic_exchange_explicit(&l->v, 1, memory_order_acquire))
            return;
        if (spins > 64) sched_yield();
    }
}
