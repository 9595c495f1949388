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
int waitq_has_waiters(void *key);
/* Number of threads queued on key. */
int waitq_count(void *key);
/* Wakes up to max waiters on key, oldest first (tr_wake with stack stk) and dequeues them;
 * returns how many. */
int waitq_wake(void *key, struct gt_thread *self, uint64_t stk, int max);
/* Wakes every waiter on key (as waitq_wake) only if exactly n are queued; returns how many. */
int waitq_wake_if(void *key, struct gt_thread *self, uint64_t stk, int n);
#endif
