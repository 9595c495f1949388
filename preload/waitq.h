/* waitq.h: the side table of waiting threads, keyed by the address of what they wait on (a
 * mutex, a condvar, a pthread_t for joins). The application's objects are never written.
 * Invariants: a thread is in at most one queue (its gt_thread.wait node); it adds itself after
 * tr_block and removes itself before tr_unblock (a no-op if a waker already dequeued it), so
 * while a waker holds the bucket lock every queued thread is still inside its wait and tr_wake
 * cannot wake a later, unrelated wait. A waker dequeues every thread it wakes, so the queue of
 * a key holds exactly the threads still waiting there that nobody has woken yet.
 * Bucket locks are spinlocks held for a few hundred ns; nothing else is locked inside them but
 * the buffer pool. waitq_has_waiters is a lock-free hint for fast paths. */
#ifndef GOTRACE_WAITQ_H
#define GOTRACE_WAITQ_H
#include "thread.h"

void waitq_add(void *key, struct gt_thread *t);
void waitq_remove(struct gt_thread *t);
/* The buckets (waitq.c), here so that the lock-free hint below inlines into the hooks' fast
 * paths: one multiply and one load. */
#define WAITQ_NBUCKETS 1024
struct waitq_bucket {
    gt_spinlock lock;
    atomic_int count; /* threads queued in this bucket, whatever their key */
    struct gt_wait *head, *tail;
} __attribute__((aligned(64)));
extern struct waitq_bucket waitq_buckets[WAITQ_NBUCKETS];
static inline struct waitq_bucket *waitq_bucket_of(void *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
    return &waitq_buckets[h >> 54];
}
/* Threads queued in key's bucket, whatever their key (a hint: no lock). */
static inline int waitq_bucket_count(void *key)
{
    return atomic_load_explicit(&waitq_bucket_of(key)->count, memory_order_relaxed);
}
static inline int waitq_has_waiters(void *key)
{
    return waitq_bucket_count(key) != 0;
}
/* Number of threads queued on key. */
int waitq_count(void *key);
/* Wakes up to max waiters on key, oldest first (tr_wake with stack stk) and dequeues them;
 * returns how many. */
int waitq_wake(void *key, struct gt_thread *self, uint64_t stk, int max);
/* Wakes every waiter on key (as waitq_wake) only if exactly n are queued (n == INT_MAX: however
 * many); returns how many. */
int waitq_wake_if(void *key, struct gt_thread *self, uint64_t stk, int n);
/* After fork, in the child: every queue empty (the waiters were the parent's threads). */
void waitq_fork_child(void);
#endif
