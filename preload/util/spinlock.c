/* spinlock.c: see spinlock.h. */
#include "spinlock.h"

#include <sched.h>

static int try_lock(gt_spinlock *l)
{
    return !atomic_load_explicit(&l->v, memory_order_relaxed) &&
           !atomic_exchange_explicit(&l->v, 1, memory_order_acquire);
}

void spin_lock(gt_spinlock *l)
{
    for (unsigned spins = 0; !try_lock(l); spins++)
        if (spins > 64) sched_yield();
}

int spin_lock_unless(gt_spinlock *l, int (*stop)(void))
{
    for (unsigned spins = 0; !try_lock(l); spins++) {
        if (stop()) return -1;
        if (spins > 64) sched_yield();
    }
    return 0;
}
