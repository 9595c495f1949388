/* plainlock.h: glibc's default mutex taken and released by the hooks themselves, without a call
 * into libc.
 *
 * The lock hook must try a lock before it may wait on it (an acquisition that waits is traced,
 * one that does not emits nothing), and glibc's trylock is a heavier function than its lock (a
 * jump table, five saved registers). For the default type (PTHREAD_MUTEX_TIMED_NP: what
 * PTHREAD_MUTEX_INITIALIZER and a NULL attribute give, by far the most common) the try is what
 * glibc's lock does when the lock word is free: lock word 0 -> 1 by CAS, then owner = the
 * thread's TID and one more user. Taken, the hook goes straight to its waiting half, which
 * calls the real lock.
 *
 * Alone: glibc takes and releases a private default mutex with plain loads and stores while the
 * process has a single thread. A traced process never has (the flusher thread), so while the
 * program itself has one thread (the lone thread: __libc_single_threaded when the tracer
 * started, no thread created since), the hooks do what glibc would do untraced, for that thread
 * only. The flusher never locks a mutex the program locks (its libraries' locks are its own).
 * Any other thread ends the lone mode before its first touch of a mutex through a hook
 * (plainlock_thread_start; the lock hooks, trylock and unlock all pass there) or before it is
 * created by pthread_create (plainlock_threads_begin): the lone thread brackets each plain
 * operation with lone_busy (one plain instruction each way) and re-reads the lone TID inside;
 * the ender stores 0, runs membarrier (a full barrier on every CPU running one of our threads)
 * and waits for lone_busy to be 0, so either the lone thread sees the mode ended or the ender
 * sees it busy (the asymmetric fence of fence.h).
 *
 * The lone thread's releases of condvars and semaphores skip the wait queue too (plainlock_alone):
 * with no other thread, nobody can be queued; a thread that appears without pthread_create
 * (made inside glibc, or by clone) ends the lone mode when the tracer adopts it (tracer.c
 * tr_adopt), before it can queue itself.
 *
 * Invariants: only a mutex whose __kind has none of glibc's type, robustness, priority or
 * elision bits is touched (and only one without the process-shared bit while alone), and only
 * while plainlock_init verified, on this process's libc, that glibc's own lock and unlock give
 * and read those fields exactly so (plainlock.c); the real lock, trylock and unlock must be
 * libc's (not another interposer's, e.g. a sanitizer's, which must see every lock) and lock
 * elision must be off. A thread's plainlock_tid is its kernel TID (what glibc records as owner)
 * while the path is on, -1 while it is off, 0 until the thread's first hook after plainlock_init
 * decided (that call fetches it) and again in a forked child. The lone mode starts only in
 * plainlock_lone_begin and never again once ended. */
#ifndef GOTRACE_PLAINLOCK_H
#define GOTRACE_PLAINLOCK_H
#include <errno.h>
#include <pthread.h>

/* glibc's PTHREAD_MUTEX_KIND_MASK_NP | robust | priority inheritance/protection bits (0x7f)
 * and PTHREAD_MUTEX_ELISION_NP (0x100); the process-shared bit (0x80) only changes the futex
 * calls of the real lock and unlock, and the no-elision bit (0x200) nothing here. */
#define PLAINLOCK_KIND_BITS 0x17f
#define PLAINLOCK_OTHER (-1) /* not for this path: use glibc's functions */

extern __thread int plainlock_tid __attribute__((tls_model("initial-exec")));
extern int plainlock_lone_tid;       /* the lone thread's TID while alone, else 0 */
extern unsigned plainlock_lone_busy; /* >0 while the lone thread is in a plain operation */

/* Checks, once, that the path may be used in this process (resolving the real functions first);
 * called at the tracer's set-up and by the main trampoline, before the program's main. */
void plainlock_init(void);
/* Starts the lone mode if the process has a single thread, the caller (tr_init, after
 * fence_init and before it starts the flusher) says: glibc's __libc_single_threaded. */
void plainlock_lone_begin(int single_threaded);
/* Sets the calling thread's plainlock_tid once plainlock_init has decided (a syscall, once per
 * thread), ending the lone mode first if this is another thread of the program. */
void plainlock_thread_start(void);
/* The flusher thread, at its start: its TID, without ending the lone mode. */
void plainlock_tracer_thread(void);
/* Before the program creates a thread: ends the lone mode. */
void plainlock_threads_begin(void);
/* In a forked child: a new TID, and never alone (the child's flusher exists already). */
void plainlock_fork_child(void);

/* The calling thread's plainlock_tid, fetched on its first use. */
static inline __attribute__((always_inline)) int plainlock_self(void)
{
    int tid = plainlock_tid;
    if (__builtin_expect(tid == 0, 0)) {
        plainlock_thread_start();
        tid = plainlock_tid;
    }
    return tid;
}

static inline __attribute__((always_inline)) void plainlock_lone_bump(int enter)
{
#if defined(__x86_64__)
    /* One instruction, no lock prefix: a signal handler nesting an operation sees whole
     * updates, and only the lone thread writes the counter. */
    if (enter)
        __asm__ volatile("incl %0" : "+m"(plainlock_lone_busy)::"memory");
    else
        __asm__ volatile("decl %0" : "+m"(plainlock_lone_busy)::"memory");
#else
    (void)enter; /* never alone: fence.h's asymmetric fence is x86-64 only */
#endif
}

/* Whether the calling thread is the lone thread. A release it makes wakes nobody: no other
 * thread of the program exists, and one that appears ends the lone mode when it is adopted,
 * before it can queue itself (tr_adopt). A release racing with that end may miss the new thread's
 * wake-up, which that thread then writes itself, as after a timeout (not bracketed by lone_busy: a
 * signal handler on the lone thread must never make a new thread wait for it). */
static inline __attribute__((always_inline)) int plainlock_alone(void)
{
    int tid = plainlock_tid;
    return tid > 0 && tid == __atomic_load_n(&plainlock_lone_tid, __ATOMIC_RELAXED);
}

/* Whether tid is the lone thread and m a mutex it takes with plain operations. */
static inline __attribute__((always_inline)) int plainlock_lone_for(int tid,
                                                                    const pthread_mutex_t *m)
{
    return tid == __atomic_load_n(&plainlock_lone_tid, __ATOMIC_RELAXED) && m->__data.__kind == 0;
}

/* 0 when m was free and is now the caller's, EBUSY when it is taken, PLAINLOCK_OTHER when this
 * is not for the path (not the default type, or the path off or not started on this thread). */
static inline __attribute__((always_inline)) int plainlock_try(pthread_mutex_t *m)
{
    int tid = plainlock_self();
    if (__builtin_expect(tid <= 0 || (m->__data.__kind & PLAINLOCK_KIND_BITS), 0))
        return PLAINLOCK_OTHER;
    if (plainlock_lone_for(tid, m)) {
        plainlock_lone_bump(1);
        int r = PLAINLOCK_OTHER;
        if (__atomic_load_n(&plainlock_lone_tid, __ATOMIC_RELAXED) == tid) {
            r = __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) ? EBUSY : 0;
            if (!r) {
                __atomic_store_n(&m->__data.__lock, 1, __ATOMIC_RELAXED);
                m->__data.__owner = tid;
                m->__data.__nusers++;
            }
        }
        plainlock_lone_bump(0);
        if (r != PLAINLOCK_OTHER) return r;
    }
    int free_word = 0;
    if (!__atomic_compare_exchange_n(&m->__data.__lock, &free_word, 1, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return EBUSY;
    m->__data.__owner = tid;
    m->__data.__nusers++;
    return 0;
}

/* The lone thread's release of a default mutex held with nobody waiting (lock word 1): 0 when
 * done, PLAINLOCK_OTHER when the caller must call glibc's unlock. */
static inline __attribute__((always_inline)) int plainlock_unlock(pthread_mutex_t *m)
{
    int tid = plainlock_self();
    if (tid <= 0 || !plainlock_lone_for(tid, m)) return PLAINLOCK_OTHER;
    int r = PLAINLOCK_OTHER;
    plainlock_lone_bump(1);
    if (__atomic_load_n(&plainlock_lone_tid, __ATOMIC_RELAXED) == tid &&
        __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) == 1) {
        m->__data.__owner = 0;
        m->__data.__nusers--;
        __atomic_store_n(&m->__data.__lock, 0, __ATOMIC_RELAXED);
        r = 0;
    }
    plainlock_lone_bump(0);
    return r;
}
#endif
