/* plainlock.c: whether the hooks may take and release glibc's default mutex themselves, each
 * thread's TID for it, and the lone mode's start and end (plainlock.h).
 * Invariants: the decision is made once, by the first plainlock_init (the tracer's set-up, or
 * the main trampoline's start, whichever comes first); until then every thread's
 * plainlock_tid stays 0 and the hooks use glibc's functions; it is on only when the real lock,
 * trylock and unlock are libc's own, elision is not requested, and glibc's lock and unlock were
 * seen to set and clear exactly the fields the hooks set (on a mutex of this file's own, so a
 * different glibc turns the path off instead of breaking programs). The lone mode ends once:
 * lone_over is set only after the lone thread was seen out of every plain operation, and no other
 * thread of the program touches a mutex through a hook before it has seen lone_over (or ended the
 * mode itself). */
#include "plainlock.h"

#include "fence.h"
#include "log.h"
#include "pages.h"
#include "real.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__thread int plainlock_tid __attribute__((tls_model("initial-exec")));
int plainlock_lone_tid GT_FORK_WORDS;
unsigned plainlock_lone_busy GT_FORK_WORDS;

static int decided;                 /* 0 until plainlock_init ran, then 1 (on) or -1 (off) */
static int lone_over GT_FORK_WORDS; /* the lone mode has ended, or never started */
static int lone_first;              /* the lone thread's TID, once it started */

static int fields_are(const pthread_mutex_t *m, int lock, int owner, unsigned nusers)
{
    return m->__data.__lock == lock && m->__data.__owner == owner && m->__data.__nusers == nusers &&
           m->__data.__count == 0 && m->__data.__kind == 0;
}

/* glibc's lock and unlock of a default mutex, and the path's own take seen by glibc's trylock
 * and undone by its unlock. */
static int glibc_agrees(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    int tid = gettid();
    if (gt_real.pthread_mutex_lock(&m) != 0 || !fields_are(&m, 1, tid, 1)) return 0;
    if (gt_real.pthread_mutex_unlock(&m) != 0 || !fields_are(&m, 0, 0, 0)) return 0;
    plainlock_tid = tid;
    int ok = plainlock_try(&m) == 0 && fields_are(&m, 1, tid, 1) &&
             gt_real.pthread_mutex_trylock(&m) == EBUSY && plainlock_try(&m) == EBUSY &&
             gt_real.pthread_mutex_unlock(&m) == 0 && fields_are(&m, 0, 0, 0);
    plainlock_tid = 0;
    return ok;
}

void plainlock_init(void)
{
    if (__atomic_load_n(&decided, __ATOMIC_ACQUIRE)) return;
    real_init();
    const char *tunables = getenv("GLIBC_TUNABLES");
    int on = real_in_libc((void *)gt_real.pthread_mutex_lock) &&
             real_in_libc((void *)gt_real.pthread_mutex_trylock) &&
             real_in_libc((void *)gt_real.pthread_mutex_unlock) &&
             !(tunables && strstr(tunables, "glibc.elision.enable=1")) && glibc_agrees();
    __atomic_store_n(&decided, on ? 1 : -1, __ATOMIC_RELEASE);
}

void plainlock_lone_begin(int single_threaded)
{
    /* The end needs the asymmetric fence of fence.h (x86-64, membarrier). */
    if (!single_threaded || !fence_asym || __atomic_load_n(&decided, __ATOMIC_ACQUIRE) <= 0 ||
        __atomic_load_n(&lone_over, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&lone_over, 1, __ATOMIC_RELEASE);
        return;
    }
    plainlock_tid = gettid();
    __atomic_store_n(&plainlock_lone_tid, plainlock_tid, __ATOMIC_RELEASE);
    __atomic_store_n(&lone_first, plainlock_tid, __ATOMIC_RELEASE);
    gt_debug("mutexes: the program's only thread takes default mutexes with plain stores");
}

/* Ends the lone mode and waits until its thread is out of every plain operation (unless the
 * caller is that thread, which is not inside one). Every thread that finds the mode not over
 * yet runs this in full: another may have stored 0 and not be done waiting. */
static void lone_end(int tid)
{
    if (__atomic_load_n(&lone_over, __ATOMIC_ACQUIRE)) return;
    __atomic_store_n(&plainlock_lone_tid, 0, __ATOMIC_SEQ_CST);
    if (tid != lone_first) {
        (void)fence_sync(); /* proved to work at the start (fence_init) */
        while (__atomic_load_n(&plainlock_lone_busy, __ATOMIC_ACQUIRE))
            sched_yield();
    }
    __atomic_store_n(&lone_over, 1, __ATOMIC_RELEASE);
}

void plainlock_thread_start(void)
{
    int d = __atomic_load_n(&decided, __ATOMIC_ACQUIRE);
    if (!d) return;
    if (d < 0) {
        plainlock_tid = -1;
        return;
    }
    int tid = gettid();
    /* Before the lone mode started nobody is alone: a thread that exists then makes
     * __libc_single_threaded false, and the mode does not start. */
    if (__atomic_load_n(&lone_first, __ATOMIC_ACQUIRE)) lone_end(tid);
    plainlock_tid = tid;
}

void plainlock_tracer_thread(void)
{
    plainlock_tid = __atomic_load_n(&decided, __ATOMIC_ACQUIRE) > 0 ? (int)gettid() : -1;
}

void plainlock_threads_begin(void)
{
    if (!__atomic_load_n(&lone_over, __ATOMIC_ACQUIRE)) lone_end(plainlock_self());
}

void plainlock_fork_child(void)
{
    plainlock_tid = 0;
    plainlock_lone_tid = 0;
    plainlock_lone_busy = 0;
    lone_over = 1;
}
