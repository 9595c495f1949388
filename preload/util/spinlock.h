/* spinlock.h: a tiny test-and-test-and-set lock for the tracer's rare internal critical
 * sections (the buffer pool, the registry, the flush; wait-queue buckets have their own, a bit
 * of their word: waitq.h).
 * Invariants: never held across a blocking call; not a pthread mutex, so it never re-enters the
 * tracer's own hooks; taken by the flusher and by application threads, never by a signal handler
 * that may interrupt its holder (the holder is inside the tracer then: depth or gt_internal). */
#ifndef GOTRACE_SPINLOCK_H
#define GOTRACE_SPINLOCK_H
#include <stdatomic.h>

typedef struct {
    atomic_int v;
} gt_spinlock;

void spin_lock(gt_spinlock *l);
/* spin_lock, unless stop() says so while it waits: 0 when taken, -1 (not taken) when stopped. */
int spin_lock_unless(gt_spinlock *l, int (*stop)(void));
static inline void spin_unlock(gt_spinlock *l)
{
    atomic_store_explicit(&l->v, 0, memory_order_release);
}
#endif
