/* waitq.h: the side table of waiting threads, keyed by the address of what they wait on (a
 * mutex, a condvar, a pthread_t for joins). The application's objects are never written.
 * Invariants: a thread is in at most one queue (its gt_thread.wait node); it adds itself after
 * tr_block and removes itself before tr_unblock, so while a waker holds the bucket lock every
 * queued thread is still inside its wait and tr_wake cannot wake a later, unrelated wait.
 * Bucket locks are spinlocks held for a few hundred ns; nothing else is locked inside them but
 * the buffer pool. waitq_has_waiters is a lock-free hint for fast paths. */
#ifndef GOTRACE_WAITQ_H
#define GOTRACE_WAITQ_H
#include "thread.h"

void waitq_add(void *key, struct gt_thread *t);
void waitq_remove(struct gt_thread *t);
int waitq_has_waiters(void *key);
/* Wakes up to max waiters on key, oldest first (tr_wake with stack stk); returns how many. */
int waitq_wake(void *key, struct gt_thread *self, uint64_t stk, int max);
#endif
