/* sync.c: interposed pthread synchronization: mutexes, read-write locks, condition
 * variables, semaphores, barriers (spinlocks are not hooked: a spinning thread runs; see
 * docs/blocking.md).
 * Invariants: each hook returns exactly what the real function returns, with the same errno,
 * and calls it exactly once, except that a lock or semaphore is tried first and the blocking
 * call made only if the try found it taken; an acquisition that does not wait emits nothing.
 * Waiters are queued on the primitive's address (for rwlocks, on the lock, whatever the mode);
 * a releaser wakes them itself only when it knows whom it frees: the sole waiter of a mutex it
 * really releases, of a rwlock it holds for writing (both after the real release, outside the
 * critical section: hooks.h RELEASE_BEGIN), of a signalled condvar or posted semaphore; every
 * waiter of a broadcast condvar or of a barrier it completes. A wake of a process-shared
 * condvar, semaphore or rwlock that glibc says threads of another process sleep on writes a
 * gotrace.post log naming the object for a merged trace to link them by. glibc objects are only
 * read (lock word, owner and recursion count of a mutex, writer, readers and futex words of a
 * rwlock, waiter counts of a condvar and a semaphore, count of a barrier),
 * never written, except by the hooks' own take (and, while the program has one thread,
 * release) of a default mutex, which do exactly what glibc's lock and unlock do (plainlock.h). */
#include "clock.h"
#include "hooks.h"
#include "locktrack.h"
#include "plainlock.h"
#include "real.h"
#include "stack.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

/* Keeps the hook's frame around the call that produced r: no tail call into an out-of-line
 * half in section gotrace_api (stack.h), whose frame captures skip. */
#define KEEP_FRAME(r) __asm__ volatile("" : "+r"(r))

/* REAL for a fast path: no check, the pointer is never NULL (a stub that resolves first until
 * real_init ran, real.c). */
#define REAL_HOT(name) (gt_real.name)

#define MUTEX_KIND_MASK 3 /* glibc's PTHREAD_MUTEX_KIND_MASK_NP: the type bits of __kind */

/* glibc's futex-based calls accept these clocks only, and fail with EINVAL before anything
 * else for another clock or a malformed time (mutexes check the time only when they wait). */
static int clock_ok(clockid_t clk)
{
    return clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC;
}
static int time_ok(const struct timespec *t)
{
    return t->tv_nsec >= 0 && t->tv_nsec < 1000000000L;
}

/* Lock tracking (locktrack.h), when on: key taken in mode by the hook's caller, once r says
 * it was (0); the edges to key before a wait for it. */
#define TAKEN(r, key, mode)                                                                        \
    do {                                                                                           \
        if (LOCK_ON() && (r) == 0)                                                                 \
            tr_lock_taken((key), (mode), (uintptr_t)__builtin_return_address(0));                  \
    } while (0)
#define WANTED(key, mode)                                                                          \
    do {                                                                                           \
        if (LOCK_ON()) tr_lock_wanted((key), (mode));                                              \
    } while (0)

/* Body of a hook of a lock that may wait (mutexes, rwlocks): when ok (an expression of self:
 * the call would not fail at once), try first; block only if the try reports EBUSY, on key
 * held by holder (a TID read once the try failed, 0 unknown). The take is tracked in mode
 * (LO_*, locktrack.h). */
#define TRY_THEN_WAIT(ok, key, mode, reason, holder, try_call, call)                               \
    struct gt_thread *self = tr_current();                                                         \
    if (!self || !(ok)) return call;                                                               \
    int r = try_call;                                                                              \
    if (r != EBUSY) {                                                                              \
        TAKEN(r, key, mode);                                                                       \
        return r;                                                                                  \
    }                                                                                              \
    WANTED(key, mode);                                                                             \
    r = WAIT_ON(self, key, reason, holder, call);                                                  \
    TAKEN(r, key, (mode) | LO_NOEDGE);                                                             \
    return r

/* The thread holding m (glibc's owner TID; 0 for none or a shared mutex's foreign owner). */
#define MUTEX_HOLDER(m) (__atomic_load_n(&(m)->__data.__owner, __ATOMIC_RELAXED))
/* The thread holding l for writing (0: free or held by readers). */
#define RWLOCK_WRITER(l) (__atomic_load_n(&(l)->__data.__cur_writer, __ATOMIC_RELAXED))

/* The caller of a pthread_*_init hook names the object it initialized (syncobj.h), when the
 * thread is traced (an untraced process touches no table). */
#define NOTE_INIT(obj, r)                                                                          \
    do {                                                                                           \
        if ((r) == 0 && tr_current()) tr_note_init((obj), (uintptr_t)__builtin_return_address(0)); \
    } while (0)

/* ---- mutexes ---- */

/* Whether self's lock of m may wait: not when it fails at once (an error-checking mutex that
 * self holds: EDEADLK). */
static int mutex_waits(const pthread_mutex_t *m, struct gt_thread *self)
{
    return m->__data.__owner != tr_tid(self) ||
           (m->__data.__kind & MUTEX_KIND_MASK) != PTHREAD_MUTEX_ERRORCHECK_NP;
}

/* Whether self unlocking m frees it: self owns it and does not hold it recursively twice. */
static int mutex_frees(const pthread_mutex_t *m, struct gt_thread *self)
{
    return m->__data.__owner == tr_tid(self) &&
           ((m->__data.__kind & MUTEX_KIND_MASK) != PTHREAD_MUTEX_RECURSIVE_NP ||
            m->__data.__count <= 1);
}

/* The waiting half of pthread_mutex_lock, after a trylock found m taken. */
GOTRACE_API_FN static int mutex_lock_wait(pthread_mutex_t *m)
{
    struct gt_thread *self = tr_current();
    if (!self || !mutex_waits(m, self)) return REAL(pthread_mutex_lock)(m);
    return WAIT_ON(self, m, GT_R_MUTEX | GT_R_UNTIMED, MUTEX_HOLDER(m),
                   REAL(pthread_mutex_lock)(m));
}

/* The try of the lock hooks: the hooks' own for a default mutex (plainlock.h), else glibc's. */
static inline __attribute__((always_inline)) int mutex_try(pthread_mutex_t *m)
{
    int r = plainlock_try(m);
    return __builtin_expect(r != PLAINLOCK_OTHER, 1) ? r : REAL_HOT(pthread_mutex_trylock)(m);
}

/* The fast path is one try, traced thread or not: a free mutex is taken at once (a recursive
 * one held by self too); EBUSY (taken, or an error-checking mutex self holds) goes to the
 * waiting half, which makes the real lock call. */
EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    int r = mutex_try(m);
    if (__builtin_expect(r != EBUSY, 1)) {
        TAKEN(r, m, LO_MUTEX);
        return r;
    }
    WANTED(m, LO_MUTEX);
    r = mutex_lock_wait(m);
    TAKEN(r, m, LO_MUTEX | LO_NOEDGE);
    KEEP_FRAME(r);
    return r;
}

/* Not a wait: hooked so that a thread's first touch of a mutex passes plainlock_self, and
 * the lone thread takes a default mutex as glibc would untraced. */
EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
    int r = mutex_try(m);
    TAKEN(r, m, LO_MUTEX | LO_TRY);
    return r;
}

EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
    (void)plainlock_self(); /* a thread's first touch of a mutex, traced or not */
    TRY_THEN_WAIT(mutex_waits(m, self), m, LO_MUTEX, GT_R_MUTEX, MUTEX_HOLDER(m), mutex_try(m),
                  REAL(pthread_mutex_timedlock)(m, abstime));
}

EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
                                   const struct timespec *abstime)
{
    (void)plainlock_self();
    TRY_THEN_WAIT(clock_ok(clk) && mutex_waits(m, self), m, LO_MUTEX, GT_R_MUTEX, MUTEX_HOLDER(m),
                  mutex_try(m), REAL(pthread_mutex_clocklock)(m, clk, abstime));
}

/* call, the real release of lock key by self, when it frees the lock (frees: an expression
 * of self) and threads are queued on it: the releaser's stack and the time (before the
 * release: hooks.h RELEASE_BEGIN; clock.h gt_now_early), then, after it, a release record
 * (waitq_released) and the wake of the sole waiter. The value of call. */
#define RELEASE(self, frees, key, call)                                                            \
    __extension__({                                                                                \
        unsigned adds_ = 0;                                                                        \
        uint64_t stk_ = 0;                                                                         \
        int queued_ = (self) && (frees) && waitq_queued(key);                                      \
        int wake_ = queued_ && RELEASE_BEGIN(key, adds_, stk_);                                    \
        uint64_t ts_ = queued_ ? gt_now_early() : 0;                                               \
        int r_ = (call);                                                                           \
        KEEP_FRAME(r_); /* never a tail call: the caller of the real release is the hook */        \
        if (queued_ && r_ == 0) {                                                                  \
            waitq_released((key), (self), stk_, ts_);                                              \
            if (wake_) RELEASE_END((self), (key), adds_, stk_);                                    \
        }                                                                                          \
        r_;                                                                                        \
    })

/* The waking half of an unlock that found threads queued in m's bucket. */
GOTRACE_API_FN static int mutex_unlock_wake(pthread_mutex_t *m)
{
    struct gt_thread *self = tr_current();
    return RELEASE(self, mutex_frees(m, self), m, REAL(pthread_mutex_unlock)(m));
}

EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
    int r = REAL(pthread_mutex_init)(m, a);
    NOTE_INIT(m, r);
    return r;
}

/* glibc's lock word of a mutex held with nobody asleep on it (normal, recursive, error-checking
 * and adaptive types: a waiter marks it 2 before it sleeps; the word of another type holds a
 * thread id, or a ceiling, and is 1 only for thread id 1). A waiter that queued here but did not
 * sleep yet takes the lock without sleeping once it is released, and unblocks itself. */
#define LLL_HELD_UNCONTENDED 1

/* The lone thread releases a default mutex itself (plainlock.h). Fast path: a lock word that
 * says nobody sleeps (the word's line is the caller's already), or nobody queued in m's bucket
 * (one more load), then a tail call. */
EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (LOCK_ON()) tr_lock_dropped(m);
    if (plainlock_unlock(m) == 0) return 0;
    if (__builtin_expect(__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) !=
                                 LLL_HELD_UNCONTENDED &&
                             waitq_has_waiters(m),
                         0)) {
        int r = mutex_unlock_wake(m);
        KEEP_FRAME(r);
        return r;
    }
    return REAL_HOT(pthread_mutex_unlock)(m);
}

/* ---- read-write locks (glibc checks the time first, even for a free lock) ---- */

/* Whether self holds l for writing (then its lock calls fail at once with EDEADLK, and its
 * unlock frees l). */
static int writer_of(const pthread_rwlock_t *l, struct gt_thread *self)
{
    return l->__data.__cur_writer == tr_tid(self);
}

EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
    TRY_THEN_WAIT(!writer_of(l, self), l, LO_READ, GT_R_RWLOCK_READ | GT_R_UNTIMED,
                  RWLOCK_WRITER(l), REAL(pthread_rwlock_tryrdlock)(l),
                  REAL(pthread_rwlock_rdlock)(l));
}

EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
    TRY_THEN_WAIT(!writer_of(l, self), l, LO_WRITE, GT_R_RWLOCK_WRITE | GT_R_UNTIMED,
                  RWLOCK_WRITER(l), REAL(pthread_rwlock_trywrlock)(l),
                  REAL(pthread_rwlock_wrlock)(l));
}

EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
    TRY_THEN_WAIT(time_ok(abstime) && !writer_of(l, self), l, LO_READ, GT_R_RWLOCK_READ,
                  RWLOCK_WRITER(l), REAL(pthread_rwlock_tryrdlock)(l),
                  REAL(pthread_rwlock_timedrdlock)(l, abstime));
}

EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
    TRY_THEN_WAIT(time_ok(abstime) && !writer_of(l, self), l, LO_WRITE, GT_R_RWLOCK_WRITE,
                  RWLOCK_WRITER(l), REAL(pthread_rwlock_trywrlock)(l),
                  REAL(pthread_rwlock_timedwrlock)(l, abstime));
}

EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk,
                                      const struct timespec *abstime)
{
    TRY_THEN_WAIT(clock_ok(clk) && time_ok(abstime) && !writer_of(l, self), l, LO_READ,
                  GT_R_RWLOCK_READ, RWLOCK_WRITER(l), REAL(pthread_rwlock_tryrdlock)(l),
                  REAL(pthread_rwlock_clockrdlock)(l, clk, abstime));
}

EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk,
                                      const struct timespec *abstime)
{
    TRY_THEN_WAIT(clock_ok(clk) && time_ok(abstime) && !writer_of(l, self), l, LO_WRITE,
                  GT_R_RWLOCK_WRITE, RWLOCK_WRITER(l), REAL(pthread_rwlock_trywrlock)(l),
                  REAL(pthread_rwlock_clockwrlock)(l, clk, abstime));
}

/* Not waits: hooked for lock tracking only (a lock they take is held: locktrack.h). */
EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
    int r = REAL(pthread_rwlock_tryrdlock)(l);
    TAKEN(r, l, LO_READ | LO_TRY);
    return r;
}

EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
    int r = REAL(pthread_rwlock_trywrlock)(l);
    TAKEN(r, l, LO_WRITE | LO_TRY);
    return r;
}

/* glibc's rwlock (2.25 on, nptl/pthread_rwlock_common.c): __readers counts the readers from
 * bit 3 up (those that wait for a writer too) and has WRLOCKED (2) while a writer holds or
 * waits to take the lock; writers sleep on __writers_futex, readers (and a writer waiting for
 * the readers to leave) on __wrphase_futex, each marked FUTEX_USED (2) by its sleepers. */
#define RWLOCK_READER_SHIFT 3
#define RWLOCK_WRLOCKED 2u
#define RWLOCK_FUTEX_USED 2u

/* Whether the unlock of process-shared rwlock l (by its writer when writer, else by a reader)
 * wakes threads that sleep in another process: a writer's when a futex word says threads
 * sleep; a reader's when it is the last reader and a writer sleeps until the readers leave;
 * in both cases none is queued here (those are woken here: RELEASE). */
static int rwlock_wakes_others(const pthread_rwlock_t *l, int writer)
{
    unsigned wf = __atomic_load_n(&l->__data.__wrphase_futex, __ATOMIC_RELAXED), used;
    if (writer) {
        used = (__atomic_load_n(&l->__data.__writers_futex, __ATOMIC_RELAXED) | wf) &
               RWLOCK_FUTEX_USED;
    } else {
        unsigned r = __atomic_load_n(&l->__data.__readers, __ATOMIC_RELAXED);
        used = r >> RWLOCK_READER_SHIFT == 1 && (r & RWLOCK_WRLOCKED) && (wf & RWLOCK_FUTEX_USED);
    }
    return used && !waitq_queued((void *)l);
}

/* A writer's unlock frees the lock; a reader's may leave other readers holding it. An unlock of
 * a process-shared rwlock (__shared not 0: one load) that wakes threads of another process
 * writes a gotrace.post log (timed before it) that a merged trace links them by
 * (docs/processes.md). */
EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
    if (LOCK_ON()) tr_lock_dropped(l);
    struct gt_thread *self = tr_current();
    int writer = self && writer_of(l, self);
    uint64_t ts = self && l->__data.__shared && rwlock_wakes_others(l, writer) ? tr_clock() : 0;
    int r = RELEASE(self, writer, l, REAL(pthread_rwlock_unlock)(l));
    if (ts && r == 0) tr_post_shared(self, "rwlock", l, ts);
    return r;
}

EXPORT int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
    int r = REAL(pthread_rwlock_init)(l, a);
    NOTE_INIT(l, r);
    return r;
}

/* ---- condition variables (the GLIBC_2.3.2 versions, real.h) ---- */

/* Body of a condvar wait hook: the wait first releases the mutex (waking its sole waiter, as
 * an unlock would), then blocks on the condvar (reason: GT_R_CONDVAR, | GT_R_UNTIMED). */
#define COND_WAIT(c, m, reason, call)                                                              \
    struct gt_thread *self = tr_current();                                                         \
    if (!self) return call;                                                                        \
    if (mutex_frees(m, self) && waitq_queued(m)) {                                                 \
        waitq_released(m, self, 0, gt_now_early());                                                \
        WAKE_IF(self, m, 1);                                                                       \
    }                                                                                              \
    int holds_ =                                                                                   \
        LOCK_ON() && (lo__on & LO_HOLDS); /* the wait ends a hold, its return starts one */        \
    if (holds_) tr_lock_dropped(m);                                                                \
    int r_ = WAIT_AS(self, c, reason, call);                                                       \
    if (holds_) tr_lock_taken(m, LO_MUTEX | LO_NOEDGE, (uintptr_t)__builtin_return_address(0));    \
    return r_

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    COND_WAIT(c, m, GT_R_CONDVAR | GT_R_UNTIMED, REAL(pthread_cond_wait)(c, m));
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  const struct timespec *abstime)
{
    COND_WAIT(c, m, GT_R_CONDVAR, REAL(pthread_cond_timedwait)(c, m, abstime));
}

EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                                  const struct timespec *abstime)
{
    COND_WAIT(c, m, GT_R_CONDVAR, REAL(pthread_cond_clockwait)(c, m, clk, abstime));
}

EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
    int r = REAL(pthread_cond_init)(c, a);
    NOTE_INIT(c, r);
    return r;
}

/* A signal, broadcast or post that frees n threads queued on key (WAKE_IF): none can be queued
 * while the program has a single thread (plainlock_alone). A macro so that the hook is the leaf. */
#define POST_WAKES(key, n)                                                                         \
    do {                                                                                           \
        struct gt_thread *self_ = plainlock_alone() ? NULL : tr_current();                         \
        if (self_) WAKE_IF(self_, (key), (n));                                                     \
    } while (0)

/* glibc's __wrefs of a condvar (2.25 on, nptl/pthread_cond_common.c; pthread_cond_signal and
 * _broadcast return at once when its count is 0): bit 0 says process-shared, bits 3 up count
 * the waiters' references (a waiter takes one before it releases the mutex, drops it once
 * woken). */
#define COND_SHARED 1u
#define COND_REFS_SHIFT 3

/* Whether c is a process-shared condvar with waiters by glibc's count: one load. */
static inline int cond_shared_waiters(const pthread_cond_t *c)
{
    unsigned w = __atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED);
    return (w & COND_SHARED) && (w >> COND_REFS_SHIFT);
}

/* The signal (n 1) or broadcast (n INT_MAX) of a process-shared condvar with waiters: when
 * glibc counts more waiters than are queued here, the others wait in another process, whom
 * this tracer cannot wake: a gotrace.post log (timed before the call) that a merged trace
 * links them by (docs/processes.md, "Waits across processes"). */
GOTRACE_API_FN static int cond_wake_shared(pthread_cond_t *c, int n)
{
    struct gt_thread *self = tr_current();
    unsigned refs = __atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) >> COND_REFS_SHIFT;
    int here = self && waitq_has_waiters(c) ? waitq_count(c) : 0;
    uint64_t ts = self && refs > (unsigned)here ? tr_clock() : 0;
    POST_WAKES(c, n);
    int r = n == 1 ? REAL(pthread_cond_signal)(c) : REAL(pthread_cond_broadcast)(c);
    if (ts && r == 0) tr_post_shared(self, "condvar", c, ts);
    return r;
}

/* Fast path: one load of c (the line glibc reads first anyway), then a tail call. */
EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
    if (__builtin_expect(cond_shared_waiters(c), 0)) {
        int r = cond_wake_shared(c, 1);
        KEEP_FRAME(r);
        return r;
    }
    POST_WAKES(c, 1);
    return REAL(pthread_cond_signal)(c);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
    if (__builtin_expect(cond_shared_waiters(c), 0)) {
        int r = cond_wake_shared(c, INT_MAX);
        KEEP_FRAME(r);
        return r;
    }
    POST_WAKES(c, INT_MAX);
    return REAL(pthread_cond_broadcast)(c);
}

/* ---- semaphores (glibc checks the time first, even for an available semaphore) ---- */

/* Body of a semaphore wait hook: when ok, sem_trywait first; block only if it failed (reason:
 * GT_R_SEMAPHORE, | GT_R_UNTIMED). */
#define SEM_WAIT(ok, s, reason, call)                                                              \
    struct gt_thread *self;                                                                        \
    if (!(ok) || !(self = tr_current())) return call;                                              \
    int saved = errno;                                                                             \
    if (REAL(sem_trywait)(s) == 0) return 0;                                                       \
    errno = saved;                                                                                 \
    return WAIT_AS(self, s, reason, call)

EXPORT int sem_wait(sem_t *s)
{
    SEM_WAIT(1, s, GT_R_SEMAPHORE | GT_R_UNTIMED, REAL(sem_wait)(s));
}

EXPORT int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
    SEM_WAIT(time_ok(abstime), s, GT_R_SEMAPHORE, REAL(sem_timedwait)(s, abstime));
}

EXPORT int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abstime)
{
    SEM_WAIT(clock_ok(clk) && time_ok(abstime), s, GT_R_SEMAPHORE,
             REAL(sem_clockwait)(s, clk, abstime));
}

EXPORT int sem_init(sem_t *s, int shared, unsigned value)
{
    int r = REAL(sem_init)(s, shared, value);
    NOTE_INIT(s, r);
    return r;
}

/* Whether s is a process-shared semaphore that threads sleep on, by glibc's count (nptl's
 * new_sem on 64-bit: data, the value in its low 32 bits and the waiters in its high ones, then
 * private: FUTEX_SHARED, 128, for a process-shared one, 0 for a private one): two loads. */
static int shared_waiters(const sem_t *s)
{
    const uint64_t *data = (const uint64_t *)(const void *)s;
    const int *priv = (const int *)(const void *)(data + 1);
    return sizeof(void *) == 8 && *priv != 0 && __atomic_load_n(data, __ATOMIC_RELAXED) >> 32;
}

/* A post that a process-shared semaphore's sleepers wait for writes a gotrace.post log (timed
 * before the post, so before the waiter wakes) that a merged trace links them by: another
 * process's waiter is known to nobody here (docs/processes.md, "Waits across processes"). */
EXPORT int sem_post(sem_t *s)
{
    POST_WAKES(s, 1);
    struct gt_thread *self = shared_waiters(s) ? tr_current() : NULL;
    uint64_t ts = self ? tr_clock() : 0;
    int r = REAL(sem_post)(s);
    if (self && r == 0) tr_post_shared(self, "semaphore", s, ts);
    return r;
}

/* ---- barriers ---- */

/* glibc's barrier (nptl/pthreadP.h, unchanged since 2.25) is {in, current_round, count,
 * shared, out}: count is the number of threads per round. */
static int barrier_count(const pthread_barrier_t *b)
{
    return (int)((const unsigned *)(const void *)b)[2];
}

EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n)
{
    int r = REAL(pthread_barrier_init)(b, a, n);
    NOTE_INIT(b, r);
    return r;
}

/* The thread that finds all the others queued completes the round: it wakes them and does not
 * wait; every other thread blocks (one locked step each: waitq_barrier). */
EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
    struct gt_thread *self = tr_current();
    int others = self ? barrier_count(b) - 1 : 0;
    if (others < 1) return REAL(pthread_barrier_wait)(b);
    return WAIT_WITH(self, waitq_barrier(self, b, others, GT_R_BARRIER | GT_R_UNTIMED, 1), (void)0,
                     waitq_remove(self), REAL(pthread_barrier_wait)(b));
}
