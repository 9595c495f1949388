/* hangs.h: what every thread is doing at a time T of the trace (the end of what the holders
 * analysis was fed: the end of the trace, or `hangs --at T`), who holds what it waits on, and
 * the deadlocks: sets of threads that can never make progress (docs/locks.md sec. 5). Used by
 * `gotrace hangs` and the report's Hangs section.
 *
 * A thread is STUCK at T when it is blocked on a sync object, in a call without a timeout,
 * that only another thread of the process can end, and no such thread is known to be about to:
 *   - its waiting call (the first frame of its blocking stack) is an untimed one:
 *     pthread_mutex_lock, pthread_rwlock_rdlock/wrlock, pthread_cond_wait, sem_wait,
 *     pthread_join, pthread_barrier_wait, or an OpenMP barrier (none of these has a timeout);
 *   - the object is a lock (mutex, rwlock) or a join whose holder at T is known (hd_holder_at:
 *     the holder at block time or the thread handed it since; for a join, the joined thread,
 *     alive), or an object without owner (condvar, semaphore, barrier) in the program's static
 *     storage (named by its symbol): an object known only by its address may lie in memory
 *     shared with another process (PTHREAD_PROCESS_SHARED, sem_init(s, 1, n), sem_open),
 *     which could post it;
 *   - it has waited at least HG_SETTLE_NS: a thread woken by a signal or post to one of several
 *     waiters writes its own wake-up when it returns, so for a few microseconds it looks blocked.
 * Never stuck: running, runnable, in a system call (it may return: I/O, another process, a
 * signal), sleeping, waiting for I/O readiness, in a timed or unknown call, on a futex (its
 * timeout is not recorded), on a lock whose holder is not known.
 *
 * Deadlocks (each thread in at most one; threads listed in order of first appearance):
 *   HG_CYCLE          stuck threads each waiting on a lock or join held by the next: only
 *                     the holders can release them;
 *   HG_EXITED_HOLDER  stuck threads waiting on a lock whose holder exited holding it;
 *   HG_ALL_STUCK      every live thread is stuck: the stuck threads in no other deadlock.
 * A stuck thread whose chain of holders leads into a cycle or an exited holder is "behind"
 * that deadlock (it can never move either), listed with it, not counted apart.
 * Invariants: computed from the analysis' state at T only, without changing it; memory: one
 * record per thread and the deadlocks' lists. */
#ifndef GOTRACE_DECODER_HANGS_H
#define GOTRACE_DECODER_HANGS_H

#include "holders.h"

#define HG_SETTLE_NS 10000000 /* 10 ms: a wait newer than that is not judged */

/* What a thread does at T. */
enum {
    HG_UNKNOWN,  /* no state known (mentioned, never seen) */
    HG_RUNNING,  /* on a CPU */
    HG_RUNNABLE, /* ready, waiting for a CPU */
    HG_SYSCALL,  /* in a system call (call: which) */
    HG_SLEEPING, /* in a sleep */
    HG_WAITING,  /* blocked: on obj, or for another reason (the analysis' reason) */
    HG_EXITED    /* ended (since: when) */
};

/* Why a blocked thread is not stuck (HG_WHY_*, 0 when it is stuck or not blocked on an object). */
enum {
    HG_WHY_NONE,
    HG_WHY_TIMED,  /* a call with a timeout */
    HG_WHY_CALL,   /* the waiting call is unknown (no stack) or not a pthread one */
    HG_WHY_RECENT, /* it began less than HG_SETTLE_NS before T */
    HG_WHY_HOLDER, /* a lock or join whose holder at T is not known (or exited, for a join) */
    HG_WHY_SHARED, /* an ownerless object known by address: another process may post it */
    HG_WHY_UNOWNED /* an object whose owner is not recorded (futex, OpenMP critical / lock) */
};

enum { HG_CYCLE = 1, HG_EXITED_HOLDER, HG_ALL_STUCK };

struct hg_thread {
    uint8_t doing;       /* HG_RUNNING ... */
    uint8_t stuck;       /* stuck at T (top of file) */
    uint8_t why;         /* HG_WHY_*: a wait on an object that is not stuck */
    uint8_t owned;       /* obj is a lock or a join (hd_obj_owned) */
    uint8_t behind;      /* in deadlock dl only because its holders lead into it */
    uint32_t obj;        /* the object it waits on (HG_WAITING), HD_NONE */
    struct hd_hold hold; /* owned: who holds obj at T */
    int64_t since;       /* when its state at T began (HG_EXITED: its end) */
    const char *stack;   /* the stack of the event that began that state ("" none) */
    uint32_t dl;         /* its deadlock's index + 1, 0 none */
};

struct hg_deadlock {
    int kind;        /* HG_CYCLE ... */
    uint32_t *g;     /* members: CYCLE in cycle order (each waits for the next's object, the */
    size_t n, cap;   /* last for the first's); EXITED_HOLDER the waiters; ALL_STUCK the rest */
    uint32_t holder; /* EXITED_HOLDER: the holder that exited; obj: the object */
    uint32_t obj;
    uint32_t *behind; /* stuck threads whose holders lead into it */
    size_t nbehind, bcap;
};

/* A deadlock across processes that the live check found (GOTRACE_HANG_MS: a thread reading a
 * pipe whose write end only processes waiting for the reader's process hold, or the reader's
 * own process with every other thread stuck; docs/locks.md section 6), still true at T by the
 * trace: a gotrace.deadlock log (hd_dlog) at or before T, whose threads in the trace (its reader
 * and the waiting threads it names, by TID) each were, at the log, in a wait or system call
 * that lasted until T or until the thread ended without running again (its process was
 * killed). A thread the log names that is not in the trace (another process's, traced apart or
 * not at all) is taken from the log. Never one when the trace shows such a wait ended and the
 * thread ran on. */
struct hg_xproc {
    const char *text; /* the log's text, its threads' list left off */
    int64_t t;        /* the log's time */
    uint32_t *g;      /* its threads in the trace (goroutine indexes), the reader first */
    size_t n;
};

struct hg_report {
    int64_t at;          /* T */
    struct hg_thread *t; /* by goroutine index (nt = the analysis' goroutines) */
    size_t nt;
    struct hg_deadlock *d;
    size_t nd, dcap;
    size_t nlive, nstuck; /* threads alive at T, of which stuck */
    int all_stuck;        /* nlive > 0 and every live thread is stuck: no thread can move */
    struct hg_xproc *x;   /* the deadlocks across processes (not in d) */
    size_t nx, xcap;
};

/* The report of s at time at (the time of s's last fed event, or later: a `--at` past it).
 * 0, or -1 when out of memory (r is then empty). */
int hg_compute(const struct hd *s, int64_t at, struct hg_report *r);
void hg_free(struct hg_report *r);
/* The call a stack text begins with (its first frame's function, without a symbol version
 * "@@GLIBC_..."), into buf (n bytes); "" for none. */
const char *hg_call(const char *stack, char *buf, size_t n);
#endif
