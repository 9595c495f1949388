/* waitq.c: waiters keyed by address. See waitq.h for the invariants. A node's key is written
 * by its thread before it queues, changed by a requeue under the lock (never NULL in between),
 * cleared by whoever dequeues it, and read without the lock only to find the bucket, then
 * checked again under the lock. Under the lock, the bucket's threads
 * are its solo waiter (the word's) and then its list, oldest first (each_locked). */
#include "waitq.h"

#include "hang.h"
#include "invariant.h"
#include "pages.h"
#include "stack.h"
#include "tracer.h"

#include <limits.h>
#include <sched.h>
#include <stddef.h>

struct waitq_bucket waitq_buckets[WAITQ_NBUCKETS] GT_BIG;

_Static_assert(_Alignof(struct gt_wait) > WAITQ_BITS, "the word's bits are a node's low bits");

static __attribute__((noinline)) void lock_slow(struct waitq_bucket *b)
{
    for (unsigned spins = 0;; spins++) {
        uintptr_t w = atomic_load_explicit(&b->word, memory_order_relaxed);
        if (!(w & WAITQ_LOCKED) &&
            atomic_compare_exchange_weak_explicit(&b->word, &w, w | WAITQ_LOCKED,
                                                  memory_order_acquire, memory_order_relaxed))
            return;
        if (spins > 64) sched_yield();
    }
}

/* A bucket lock is held with the thread marked inside the tracer, so a signal handler that
 * interrupts it and calls a hooked function passes straight through instead of spinning on a
 * lock its own thread holds. The word keeps its solo pointer while locked. */
static inline __attribute__((always_inline)) void bucket_lock(struct waitq_bucket *b)
{
    struct gt_thread *me = gt_self;
    if (me) me->depth++;
    uintptr_t w = atomic_load_explicit(&b->word, memory_order_relaxed);
    if (__builtin_expect(w & WAITQ_LOCKED, 0) ||
        !atomic_compare_exchange_strong_explicit(&b->word, &w, w | WAITQ_LOCKED,
                                                 memory_order_acquire, memory_order_relaxed))
        lock_slow(b);
}

static inline __attribute__((always_inline)) void bucket_unlock(struct waitq_bucket *b)
{
    uintptr_t w = atomic_load_explicit(&b->word, memory_order_relaxed);
    atomic_store_explicit(&b->word, w & ~(uintptr_t)WAITQ_LOCKED, memory_order_release);
    struct gt_thread *me = gt_self;
    if (me) me->depth--;
}

/* The solo waiter of b, whose lock the caller holds. */
static struct gt_wait *solo_locked(struct waitq_bucket *b)
{
    return waitq_solo(atomic_load_explicit(&b->word, memory_order_relaxed));
}

/* Sets b's word (locked) to solo and the list's state. */
static void word_locked(struct waitq_bucket *b, struct gt_wait *solo)
{
    uintptr_t w = (uintptr_t)solo | WAITQ_LOCKED | (b->head ? WAITQ_LISTED : 0);
    atomic_store_explicit(&b->word, w, memory_order_relaxed);
}

/* The thread after w in b's order (the solo waiter, then the list); the caller holds b's lock.
 * Whether w is the solo waiter is asked now: a solo waiter moved into the list goes on there. */
static struct gt_wait *next_locked(struct waitq_bucket *b, struct gt_wait *w)
{
    return w == solo_locked(b) ? b->head : w->next;
}

/* Every queued thread of b, oldest first; the body may dequeue w (its next is read before). */
#define each_locked(b, w)                                                                          \
    for (struct gt_wait *w = solo_locked(b) ? solo_locked(b) : (b)->head, *next_;                  \
         w && (next_ = next_locked((b), w), 1); w = next_)

static struct gt_thread *thread_of(struct gt_wait *w)
{
    return (struct gt_thread *)((char *)w - offsetof(struct gt_thread, wait));
}

/* count and sole change only under the bucket's lock (plain read-modify-writes, no locked
 * instruction); they are atomics for the lock-free hint readers. sole is the key of the first
 * thread listed in an empty list, WAITQ_MIXED once another key joins, until the list empties. */
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

static void *key_of(const struct gt_wait *w)
{
    return __atomic_load_n(&w->key, __ATOMIC_RELAXED);
}

/* Numbers w as the bucket's newest add (an atomic add: the solo CAS is made without the lock).
 * A node is numbered before it is queued: its wait began before, so a snapshot of adds that
 * counts it was taken after the wait began (waitq.h, a releaser's wake). */
static void number(struct waitq_bucket *b, struct gt_wait *w)
{
    w->added = atomic_fetch_add_explicit(&b->adds, 1, memory_order_relaxed) + 1;
    w->numbered = 1;
}

/* Whether w was queued before the bucket's adds read adds: numbered by then (a wake by adds
 * never reaches an unnumbered wait). */
static int queued_before(const struct gt_wait *w, unsigned adds)
{
    return w->numbered && (int)(w->added - adds) <= 0;
}

/* Queues node w (numbered or not) on key; the caller holds b's lock, b is key's bucket. The solo
 * waiter when the bucket is empty, else the list's last. */
static void add_locked(struct waitq_bucket *b, void *key, struct gt_wait *w)
{
    struct gt_wait *solo = solo_locked(b);
    w->next = NULL;
    __atomic_store_n(&w->key, key, __ATOMIC_RELAXED);
    if (!solo && !b->head) {
        w->prev = NULL;
        word_locked(b, w);
        return;
    }
    w->prev = b->tail;
    if (b->tail)
        b->tail->next = w;
    else
        b->head = w;
    b->tail = w;
    count_add(b, 1, key);
    word_locked(b, solo);
}

/* waitq_add's path when the bucket is not empty (or locked): under the lock. */
static __attribute__((noinline)) void add_slow(struct waitq_bucket *b, void *key, struct gt_wait *w)
{
    bucket_lock(b);
    add_locked(b, key, w);
    bucket_unlock(b);
}

/* The fast path: the solo waiter of an empty, unlocked bucket by one CAS (release: a locker
 * that finds it sees its key and number). */
static inline __attribute__((always_inline)) void add(void *key, struct gt_thread *t, int numbered)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    struct gt_wait *w = &t->wait;
    GT_ASSERT(!__atomic_load_n(&w->key, __ATOMIC_RELAXED)); /* in at most one queue */
    if (numbered)
        number(b, w);
    else
        w->numbered = 0;
    w->next = w->prev = NULL;
    __atomic_store_n(&w->key, key, __ATOMIC_RELAXED);
    uintptr_t empty = 0;
    if (atomic_compare_exchange_strong_explicit(&b->word, &empty, (uintptr_t)w,
                                                memory_order_release, memory_order_relaxed))
        return;
    __atomic_store_n(&w->key, NULL, __ATOMIC_RELAXED); /* not queued: queued under the lock */
    add_slow(b, key, w);
}
void waitq_add(void *key, struct gt_thread *t)
{
    add(key, t, 1);
}
void waitq_add_unnumbered(void *key, struct gt_thread *t)
{
    add(key, t, 0);
}

/* Takes w out of b's solo waiter or list, its key left as it is (a requeue moves it); the caller
 * holds b's lock and w is queued in b. */
static void detach_locked(struct waitq_bucket *b, struct gt_wait *w)
{
    struct gt_wait *solo = solo_locked(b);
    if (w == solo) {
        solo = NULL;
    } else {
        if (w->prev)
            w->prev->next = w->next;
        else
            b->head = w->next;
        if (w->next)
            w->next->prev = w->prev;
        else
            b->tail = w->prev;
        count_add(b, -1, key_of(w));
    }
    word_locked(b, solo);
}

/* Dequeues w; the caller holds b's lock and w is queued in b. */
static void unlink_locked(struct waitq_bucket *b, struct gt_wait *w)
{
    detach_locked(b, w);
    __atomic_store_n(&w->key, NULL, __ATOMIC_RELEASE); /* pairs with waitq_remove's acquire */
}

/* waitq_remove's path for a node queued on key when its thread looked: the solo waiter leaves
 * an unlocked bucket by one CAS; else under the lock, once the node is seen on key there (a
 * requeue may have moved it to another key meanwhile: then its new one; never NULL in between). */
static __attribute__((noinline)) void remove_queued(struct gt_wait *w, void *key)
{
    while (key) {
        struct waitq_bucket *b = waitq_bucket_of(key);
        uintptr_t word = atomic_load_explicit(&b->word, memory_order_relaxed);
        if (waitq_solo(word) == w && !(word & WAITQ_LOCKED) &&
            atomic_compare_exchange_strong_explicit(&b->word, &word, word & WAITQ_LISTED,
                                                    memory_order_acquire, memory_order_relaxed)) {
            __atomic_store_n(&w->key, NULL, __ATOMIC_RELAXED);
            return;
        }
        bucket_lock(b);
        void *now = key_of(w);
        if (now == key) unlink_locked(b, w);
        bucket_unlock(b);
        key = now == key ? NULL : now;
    }
}

void waitq_remove(struct gt_thread *t)
{
    struct gt_wait *w = &t->wait;
    /* Acquire: when a waker dequeued it, the waker's accesses to the node (under a bucket lock
     * this thread may not take) happen before the node's next use. */
    void *key = __atomic_load_n(&w->key, __ATOMIC_ACQUIRE);
    if (key) remove_queued(w, key); /* else a waker dequeued it */
}

static int count_locked(struct waitq_bucket *b, void *key)
{
    int n = 0;
    each_locked(b, w) n += key_of(w) == key;
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

/* Wakes up to max threads queued on key, oldest first; the caller holds b's lock. */
static int wake_locked(struct waitq_bucket *b, void *key, struct gt_thread *self, uint64_t stk,
                       int max)
{
    int woken = 0;
    each_locked(b, w)
    {
        if (woken == max) break;
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

/* waitq_wake_if's look at a bucket whose only thread is its solo waiter (the ping-pong's), b
 * locked. */
static int wake_solo_locked(struct waitq_bucket *b, void *key, struct gt_thread *self, uint64_t stk,
                            int n)
{
    struct gt_wait *solo = solo_locked(b);
    if (!solo || key_of(solo) != key || (n != 1 && n != INT_MAX) ||
        !tr_wake(self, thread_of(solo), stk))
        return 0;
    unlink_locked(b, solo);
    return 1;
}

int waitq_wake_if(void *key, struct gt_thread *self, uint64_t stk, int n)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    int woken;
    if (!b->head)
        woken = wake_solo_locked(b, key, self, stk, n);
    else
        woken = n == INT_MAX || count_locked(b, key) == n ? wake_locked(b, key, self, stk, n) : 0;
    bucket_unlock(b);
    return woken;
}

GOTRACE_API_FN int waitq_barrier(struct gt_thread *self, void *key, int others,
                                 enum gt_reason reason, int named)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    int blocked = 0;
    if (count_locked(b, key) == others) {
        wake_locked(b, key, self, tr_stack(), others);
    } else if (named ? tr_block_on(self, reason, key, 0) : tr_block(self, reason)) {
        self->wait.numbered = 0;
        add_locked(b, key, &self->wait);
        blocked = 1;
    }
    bucket_unlock(b);
    return blocked;
}

int waitq_wake_before(void *key, struct gt_thread *self, uint64_t stk, unsigned adds, int max)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    int woken = 0;
    bucket_lock(b);
    each_locked(b, w)
    {
        if (woken == max) break;
        if (key_of(w) == key && queued_before(w, adds) && tr_wake(self, thread_of(w), stk)) {
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
    each_locked(b, w)
    {
        if (moved == max) break;
        if (key_of(w) == key && queued_before(w, adds)) { /* queued before the requeue */
            detach_locked(b, w); /* its key never NULL: its thread must not think it woken */
            number(b2, w);
            add_locked(b2, key2, w);
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
    each_locked(b, w) if (key_of(w) == key && queued_before(w, adds))
    { /* queued before the release */
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

/* Whether b holds anything of a parent thread's (a wait, a lock, an ended thread). */
static int bucket_used(struct waitq_bucket *b)
{
    return atomic_load(&b->word) || atomic_load(&b->count) || atomic_load(&b->sole) ||
           atomic_load(&b->ended) || atomic_load(&b->ended_tid) || b->head || b->tail;
}

/* Only the buckets in use are written: writing all of them copied their 16 pages into every
 * forked child (45 us a fork); a page the parent never touched is only read (the zero page).
 * None is read when the parent never had a thread but the forking one, and that thread was not
 * queued (a fork from a signal handler during its wait): its waits left every queue empty, no
 * other thread ever took a bucket's lock or ended (a thread forking inside the tracer gets an
 * untraced child), so there is nothing to empty (16 zero-page faults a fork saved: a shell). */
void waitq_fork_child(const struct gt_thread *forker, int records)
{
    if (records <= 1 && !(forker && key_of(&forker->wait))) return;
    for (int i = 0; i < WAITQ_NBUCKETS; i++) {
        struct waitq_bucket *b = &waitq_buckets[i];
        if (!bucket_used(b)) continue;
        b->head = b->tail = NULL;
        atomic_store(&b->count, 0);
        atomic_store(&b->sole, NULL);
        atomic_store(&b->ended, NULL);
        atomic_store(&b->ended_tid, 0);
        atomic_store(&b->word, 0); /* unlocked, empty */
    }
}

GOTRACE_API_FN void waitq_thread_exit(struct gt_thread *t, int returned)
{
    uint64_t stk;
    pthread_t handle;
    if (!tr_exit_begin(t, returned, &stk, &handle)) return;
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

GOTRACE_API_FN int waitq_join_block(struct gt_thread *self, pthread_t th, int64_t holder,
                                    int untimed)
{
    void *key = (void *)(uintptr_t)th;
    struct waitq_bucket *b = waitq_bucket_of(key);
    bucket_lock(b);
    /* holder < 0: not started when looked up, but it may have run and ended since (its creator
     * cleared any earlier end of the same handle first: waitq_thread_created); 0: its record
     * has ended (or it is untraced). */
    enum gt_reason reason = untimed ? GT_R_JOIN | GT_R_UNTIMED : GT_R_JOIN;
    int traced = !ended(b, key, holder > 0 ? holder : 0) && tr_block_on(self, reason, key, holder);
    if (traced) {
        number(b, &self->wait);
        add_locked(b, key, &self->wait);
    }
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

/* The holder of the waits on key becomes unknown: only the hang check reads it (the bucket is
 * not locked when it is off). */
GOTRACE_API_FN void waitq_released(void *key, struct gt_thread *self, uint64_t stk, uint64_t ts)
{
    struct waitq_bucket *b = waitq_bucket_of(key);
    if (hang_on()) {
        bucket_lock(b);
        each_locked(b, w) if (key_of(w) == key)
            atomic_store_explicit(&thread_of(w)->wait_holder, 0, memory_order_relaxed);
        bucket_unlock(b);
    }
    tr_released_at(self, key, stk ? stk : tr_stack(), ts);
}
