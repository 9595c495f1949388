/* waitq.h: the side table of waiting threads, keyed by the address of what they wait on (a
 * mutex, a condvar, a pthread_t for joins). The application's objects are never written.
 * Invariants: a thread is in at most one queue (its gt_thread.wait node); it adds itself after
 * tr_block and removes itself before tr_unblock (a no-op if a waker already dequeued it), so
 * while a waker holds the bucket lock every queued thread is still inside its wait and tr_wake
 * cannot wake a later, unrelated wait. A waker dequeues every thread it wakes, so the queue of
 * a key holds exactly the threads still waiting there that nobody has woken yet.
 * A join is queued in one piece with its GoBlock, under its bucket's lock, and a thread's exit
 * wakes its joiners and records its handle and TID as ended (the bucket's last) under the same
 * lock: a joiner either blocks before the exit's look, and is woken by it, or finds the handle
 * ended, by the thread it joins, and does not block (its real join waits only for the rest of
 * the exit, which the trace does not see). pthread_create forgets an earlier thread's end under
 * the handle it returns (not the new thread's own, when it ended already).
 * A lock's releaser wakes after its release, outside its critical section: it reads the
 * bucket's count of adds before the release, and wakes the key's sole waiter queued by then
 * (each node keeps the number of its add), so a wake never reaches a wait that began after the
 * release, even when the waiter left and queued again meanwhile.
 * A bucket is one word and a list. The word holds the lock bit, a bit saying the list is not
 * empty, and the bucket's solo waiter: a thread queued when the bucket was empty, older than
 * every thread of the list, never in it. Without the lock, a waiter queues itself as the solo
 * one by one CAS of an all-zero word, and the solo waiter removes itself by one CAS of the word
 * while it is unlocked; everything else takes the lock (a CAS setting the bit, which keeps the
 * solo pointer) and changes the word only with the lock bit set, so neither CAS can succeed
 * meanwhile: a waker that finds the solo waiter holds it queued, as any queued thread, until it
 * unlocks. So a wait of the ping-pong kind (one waiter on an empty bucket, one waker) costs one
 * CAS to queue, one lock round to wake and dequeue, and nothing to leave.
 * Bucket locks are spinlocks held for a few hundred ns (a join's and a barrier's arrival's for
 * a stack capture too); nothing else is locked inside them but the buffer pool, and a
 * requeue's second bucket (two buckets are locked in address order). The bucket's word, count,
 * sole key and adds are lock-free hints for fast paths; adds is counted with an atomic add (the
 * solo CAS is made without the lock), by the waits that wakes by adds may end only (waitq_add). */
#ifndef GOTRACE_WAITQ_H
#define GOTRACE_WAITQ_H
#include "thread.h"
#include "tracer.h"

/* Queues t on key, numbered: for a wait that a wake by adds may end (a lock's release, a futex
 * word's wake or requeue: waitq_wake_released, waitq_wake_before, waitq_requeue). */
void waitq_add(void *key, struct gt_thread *t);
/* The same, unnumbered, for a wait that only waitq_wake and waitq_wake_if end (condvars,
 * semaphores, OpenMP's critical sections and locks; a barrier's waits are queued by
 * waitq_barrier): no atomic add on the bucket; wakes by adds pass it by. */
void waitq_add_unnumbered(void *key, struct gt_thread *t);
void waitq_remove(struct gt_thread *t);
/* The buckets (waitq.c), here so that the lock-free hint below inlines into the hooks' fast
 * paths: one multiply and one load. */
#define WAITQ_NBUCKETS 1024
#define WAITQ_LOCKED 1u /* the word's lock bit */
#define WAITQ_LISTED 2u /* the word's bit: the list is not empty */
#define WAITQ_BITS 3u
struct waitq_bucket {
    _Atomic uintptr_t word;    /* the solo waiter's node | WAITQ_LISTED | WAITQ_LOCKED */
    atomic_int count;          /* threads in the list (the solo one is not) */
    void *_Atomic sole;        /* the key of every listed thread; WAITQ_MIXED when keys differ */
    atomic_uint adds;          /* threads queued in this bucket so far (wraps) */
    void *_Atomic ended;       /* the last handle here whose thread's exit woke its joiners */
    _Atomic int64_t ended_tid; /* and that thread's TID */
    struct gt_wait *head, *tail;
} __attribute__((aligned(64)));
extern struct waitq_bucket waitq_buckets[WAITQ_NBUCKETS];
static inline struct waitq_bucket *waitq_bucket_of(void *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
    return &waitq_buckets[h >> 54];
}
/* The solo waiter of a bucket's word (NULL: none). */
static inline struct gt_wait *waitq_solo(uintptr_t word)
{
    return (struct gt_wait *)(word & ~(uintptr_t)WAITQ_BITS);
}
/* Threads queued in key's bucket, whatever their key (a hint: no lock). */
static inline int waitq_bucket_count(void *key)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    uintptr_t w = atomic_load_explicit(&b->word, memory_order_relaxed);
    int listed = w & WAITQ_LISTED ? atomic_load_explicit(&b->count, memory_order_relaxed) : 0;
    return (waitq_solo(w) != NULL) + listed;
}
/* Whether every thread queued in key's bucket waits on key (a hint: no lock). */
#define WAITQ_MIXED ((void *)1)
static inline int waitq_bucket_only(void *key)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    uintptr_t w = atomic_load_explicit(&b->word, memory_order_relaxed);
    struct gt_wait *solo = waitq_solo(w);
    if (solo && __atomic_load_n(&solo->key, __ATOMIC_RELAXED) != key) return 0;
    return w & WAITQ_LISTED ? atomic_load_explicit(&b->sole, memory_order_relaxed) == key
                            : solo != NULL;
}
/* The number of threads ever queued in key's bucket (a hint: no lock). */
static inline unsigned waitq_adds(void *key)
{
    return atomic_load_explicit(&waitq_bucket_of(key)->adds, memory_order_relaxed);
}
static inline int waitq_has_waiters(void *key)
{
    uintptr_t w = atomic_load_explicit(&waitq_bucket_of(key)->word, memory_order_relaxed);
    return (w & ~(uintptr_t)WAITQ_LOCKED) != 0;
}
/* Number of threads queued on key. */
int waitq_count(void *key);
/* Wakes up to max waiters on key, oldest first (tr_wake with stack stk) and dequeues them;
 * returns how many. */
int waitq_wake(void *key, struct gt_thread *self, uint64_t stk, int max);
/* Wakes every waiter on key (as waitq_wake) only if exactly n are queued (n == INT_MAX: however
 * many); returns how many. */
int waitq_wake_if(void *key, struct gt_thread *self, uint64_t stk, int n);
/* After a release: wakes the waiter on key (as waitq_wake) that was queued before the bucket's
 * adds read adds, if exactly one such is still queued; returns how many. */
int waitq_wake_released(void *key, struct gt_thread *self, uint64_t stk, unsigned adds);
/* The kernel moved max waiters of key to key2 (FUTEX_CMP_REQUEUE): the oldest max threads queued
 * on key before the bucket's adds read adds are queued on key2 from now, so that a wake of key2
 * finds them; returns how many. */
int waitq_requeue(void *key, void *key2, unsigned adds, int max);
/* Whether threads are queued on key (lock-free when key is its bucket's only key). */
static inline int waitq_queued(void *key)
{
    return waitq_has_waiters(key) && (waitq_bucket_only(key) || waitq_count(key));
}
/* self released key (a lock it held) at time ts (gt_now, read just before the release: the
 * releaser may lose its CPU after it) while threads were queued on it (waitq_queued, asked
 * before the release: the waiters may all be gone by now): a release record with stack stk
 * (0: captured here) tells the decoder (tr_released), and the holder the waiters still queued
 * blocked on is unknown from now (the hang check must not blame self). */
void waitq_released(void *key, struct gt_thread *self, uint64_t stk, uint64_t ts);
/* Thread t's last events (tracer.h, tr_exit_begin/tr_exit_end: returned as there), with its
 * joiners (the waiters on its pthread_t) woken in between and t out of any queue (cancelled,
 * or exiting inside a wait); nothing if its exit is not traced. */
void waitq_thread_exit(struct gt_thread *t, int returned);
/* A join of thread th (holder: tr_thread_tid) that waits (its try failed), untimed or not
 * (pthread_join, or with a timeout): GoBlock and queued on th, unless th's exit has woken its
 * joiners already; whether it blocked (then waitq_remove and tr_unblock after the real join). */
int waitq_join_block(struct gt_thread *self, pthread_t th, int64_t holder, int untimed);
/* pthread_create returned handle th for child (NULL: untraced), before tr_create_done: an
 * earlier thread's end under th is forgotten. */
void waitq_thread_created(pthread_t th, struct gt_thread *child);
/* self arrives at a barrier that others threads besides it reach each round, its waiters queued
 * on key: under key's bucket lock, either all others are queued there (self completes the round:
 * it wakes them with its own stack and does not block), or self blocks (tr_block_on with reason
 * and key when named, else tr_block) and is queued, unnumbered. Deciding and queueing in one
 * locked step makes exactly one arrival of each round its waker, however the arrivals
 * interleave. Returns whether self blocked (then waitq_remove and tr_unblock after the real
 * wait). */
int waitq_barrier(struct gt_thread *self, void *key, int others, enum gt_reason reason, int named);
/* Wakes up to max waiters on key queued before the bucket's adds read adds (waitq_adds, read
 * before a release), oldest first (as waitq_wake); returns how many. */
int waitq_wake_before(void *key, struct gt_thread *self, uint64_t stk, unsigned adds, int max);
/* After fork, in the child: every queue empty (the waiters were the parent's threads).
 * forker: the forking thread's record in the parent (or NULL); records: the parent's
 * thread_records_made. */
void waitq_fork_child(const struct gt_thread *forker, int records);
#endif
