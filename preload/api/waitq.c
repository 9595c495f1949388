/* waitq.c: waiters keyed by address. See waitq.h for the invariants. A node's key is written
 * under its bucket's lock (set by waitq_add, cleared by whoever dequeues it) and read without
 * it only to find the bucket, then checked again under the lock. */
#include "waitq.h"

#include "invariant.h"
#include "stack.h"
#include "tracer.h"

#include <limits.h>
#include <stddef.h>

struct waitq_bucket waitq_buckets[WAITQ_NBUCKETS];

/* A bucket lock is held with the thread marked inside the tracer, so a signal handler that
 * interrupts it and calls a hooked function passes straight through instead of spinning on a
 * lock its own thread holds. */
static void bucket_lock(struct waitq_bucket *b)
{
    if (gt_self) gt_self->depth++;
    spin_lock(&b->lock);
}

static void bucket_unlock(struct waitq_bucket *b)
{
    spin_unlock(&b->lock);
    if (gt_self) gt_self->depth--;
}

static struct gt_thread *thread_of(struct gt_wait *w)
{
    return (struct gt_thread *)((char *)w - offsetof(struct gt_thread, wait));
}

/* count, sole and adds change only under the bucket's lock (plain read-modify-writes, no
 * locked instruction); they are atomics for the lock-free hint readers. sole is the key of
 * the first thread queued in an empty bucket, WAITQ_MIXED once another key joins, until the
 * bucket empties; adds counts waitq_add calls (wrapping). */
static void count_add(struct waitq_bucket *b, int d, void *key)
{
    int n = atomic_load_explicit(&b->count, memory_order_relaxed);
    atomic_store_explicit(&b->count, n + d, memory_order_relaxed);
    void *sole = atomic_load_explicit(&b->sole, memory_order_relaxed);
    if (n + d == 0)
        sole = NULL;
    else if (n == 0)
        sole = key;
    else if (sole != key)
        sole = WAITQ_MIXED;
    atomic_store_explicit(&b->sole, sole, memory_order_relaxed);
}

static void *key_of(struct gt_wait *w)
{
    return __atomic_load_n(&w->key, __ATOMIC_RELAXED);
}

/* Queues t on key; the caller holds b's lock, b is key's bucket. */
static void add_locked(struct waitq_bucket *b, void *key, struct gt_thread *t)
{
    struct gt_wait *w = &t->wait;
    GT_ASSERT(!__atomic_load_n(&w->key, __ATOMIC_RELAXED)); /* in at most one queue */
    w->next = NULL;
    __atomic_store_n(&w->key, key, __ATOMIC_RELAXED);
    w->added = atomic_load_explicit(&b->adds, memory_order_relaxed) + 1;
    atomic_store_explicit(&b->adds, w->added, memory_order_relaxed);
    w->prev = b->tail;
    if (b->tail)
        b->tail->next = w;
    else
        b->head = w;
    b->tail = w;
    count_add(b, 1, key);
}

void waitq_add(void *key, struct gt_thread *t)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    add_locked(b, key, t);
    bucket_unlock(b);
}

/* Unlinks w; the caller holds b's lock and w is queued in b. */
static void unlink_locked(struct waitq_bucket *b, struct gt_wait *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else
        b->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        b->tail = w->prev;
    count_add(b, -1, key_of(w));
    __atomic_store_n(&w->key, NULL, __ATOMIC_RELEASE); /* pairs with waitq_remove's acquire */
}

void waitq_remove(struct gt_thread *t)
{
    struct gt_wait *w = &t->wait;
    /* Acquire: when a waker dequeued it, the waker's accesses to the node (under a bucket lock
     * this thread may not take) happen before the node's next use. */
    void *key = __atomic_load_n(&w->key, __ATOMIC_ACQUIRE);
    if (!key) return; /* a waker dequeued it */
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    if (key_of(w)) unlink_locked(b, w);
    bucket_unlock(b);
}

static int count_locked(struct waitq_bucket *b, void *key)
{
    int n = 0;
    for (struct gt_wait *w = b->head; w; w = w->next)
        n += key_of(w) == key;
    return n;
}

int waitq_count(void *key)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    int n = count_locked(b, key);
    bucket_unlock(b);
    return n;
}

static int wake_locked(struct waitq_bucket *b, void *key, struct gt_thread *self, uint64_t stk,
                       int max)
{
    int woken = 0;
    for (struct gt_wait *w = b->head, *next; w && woken < max; w = next) {
        next = w->next;
        if (key_of(w) == key && tr_wake(self, thread_of(w), stk)) {
            unlink_locked(b, w);
            woken++;
        }
    }
    return woken;
}

int waitq_wake(void *key, struct gt_thread *self, uint64_t stk, int max)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    int woken = wake_locked(b, key, self, stk, max);
    bucket_unlock(b);
    return woken;
}

int waitq_wake_if(void *key, struct gt_thread *self, uint64_t stk, int n)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    int woken = n == INT_MAX || count_locked(b, key) == n ? wake_locked(b, key, self, stk, n) : 0;
    bucket_unlock(b);
    return woken;
}

int waitq_wake_before(void *key, struct gt_thread *self, uint64_t stk, unsigned adds, int max)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    int woken = 0;
    bucket_lock(b);
    for (struct gt_wait *w = b->head, *next; w && woken < max; w = next) {
        next = w->next;
        if (key_of(w) == key && (int)(w->added - adds) <= 0 && tr_wake(self, thread_of(w), stk)) {
            unlink_locked(b, w);
            woken++;
        }
    }
    bucket_unlock(b);
    return woken;
}

int waitq_requeue(void *key, void *key2, unsigned adds, int max)
{
    struct waitq_bucket *b = waitq_bucket_of(key), *b2 = waitq_bucket_of(key2);
    struct waitq_bucket *first = b < b2 ? b : b2, *second = b < b2 ? b2 : b; /* in one order */
    int moved = 0;
    bucket_lock(first);
    if (second != first) bucket_lock(second);
    for (struct gt_wait *w = b->head, *next; w && moved < max; w = next) {
        next = w->next;
        if (key_of(w) == key && (int)(w->added - adds) <= 0) { /* queued before the requeue */
            unlink_locked(b, w);
            add_locked(b2, key2, thread_of(w));
            moved++;
        }
    }
    if (second != first) bucket_unlock(second);
    bucket_unlock(first);
    return moved;
}

int waitq_wake_released(void *key, struct gt_thread *self, uint64_t stk, unsigned adds)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    struct gt_wait *sole = NULL;
    int woken = 0, n = 0;
    bucket_lock(b);
    for (struct gt_wait *w = b->head; w; w = w->next)
        if (key_of(w) == key && (int)(w->added - adds) <= 0) { /* queued before the release */
            sole = w;
            n++;
        }
    if (n == 1 && tr_wake(self, thread_of(sole), stk)) {
        unlink_locked(b, sole);
        woken = 1;
    }
    bucket_unlock(b);
    return woken;
}

void waitq_fork_child(void)
{
    for (int i = 0; i < WAITQ_NBUCKETS; i++) {
        waitq_buckets[i].head = waitq_buckets[i].tail = NULL;
        atomic_store(&waitq_buckets[i].count, 0);
        atomic_store(&waitq_buckets[i].sole, NULL);
        atomic_store(&waitq_buckets[i].ended, NULL);
        atomic_store(&waitq_buckets[i].ended_tid, 0);
        spin_unlock(&waitq_buckets[i].lock);
    }
}

GOTRACE_API_FN void waitq_thread_exit(struct gt_thread *t)
{
    uint64_t stk;
    pthread_t handle;
    if (!tr_exit_begin(t, &stk, &handle)) return;
    waitq_remove(t);
    void *key = (void *)(uintptr_t)handle;
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    wake_locked(b, key, t, stk, INT_MAX);
    atomic_store_explicit(&b->ended, key, memory_order_relaxed);
    atomic_store_explicit(&b->ended_tid, atomic_load(&t->tid), memory_order_relaxed);
    bucket_unlock(b);
    tr_exit_end(t);
}

/* Whether the bucket's ended handle is key, of thread tid (0: whichever). */
static int ended(struct waitq_bucket *b, void *key, int64_t tid)
{
    return atomic_load_explicit(&b->ended, memory_order_relaxed) == key &&
           (!tid || atomic_load_explicit(&b->ended_tid, memory_order_relaxed) == tid);
}

GOTRACE_API_FN int waitq_join_block(struct gt_thread *self, pthread_t th, int64_t holder)
{
    void *key = (void *)(uintptr_t)th;
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    /* holder < 0: not started, so not ended either; 0: its record has ended (or it is untraced) */
    int traced =
        (holder < 0 || !ended(b, key, holder)) && tr_block_on(self, GT_R_JOIN, key, holder);
    if (traced) add_locked(b, key, self);
    bucket_unlock(b);
    return traced;
}

void waitq_thread_created(pthread_t th, struct gt_thread *child)
{
    void *key = (void *)(uintptr_t)th;
    struct waitq_bucket *b = waitq_bucket_of(key);
    if (atomic_load_explicit(&b->ended, memory_order_relaxed) != key) return; /* the usual case */
    int64_t tid = child ? atomic_load(&child->tid) : 0;                       /* 0: not started */
    bucket_lock(b);
    if (ended(b, key, 0) && (!tid || !ended(b, key, tid))) /* not the child's own end */
        atomic_store_explicit(&b->ended, NULL, memory_order_relaxed);
    bucket_unlock(b);
}

GOTRACE_API_FN void waitq_released(void *key, struct gt_thread *self, uint64_t stk, uint64_t ts)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    for (struct gt_wait *w = b->head; w; w = w->next)
        if (key_of(w) == key)
            atomic_store_explicit(&thread_of(w)->wait_holder, 0, memory_order_relaxed);
    bucket_unlock(b);
    tr_released_at(self, key, stk ? stk : tr_stack(), ts);
}
