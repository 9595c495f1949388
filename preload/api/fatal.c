/* fatal.c: the last write before a fatal signal's default action. See fatal.h. */
#include "fatal.h"

#include "flusher.h"
#include "pages.h"
#include "real.h"
#include "state.h"
#include "thread.h"
#include "writer.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Every signal whose default action ends the process, but SIGPROF (CPU sampling's: cpuprof.h),
 * SIGTRAP (a debugger's), SIGSYS (seccomp's: the last write's own system calls could trap
 * again) and the real-time ones (programs send them with a handler installed; 30 more sigaction
 * pairs would cost every process 11 us). */
static const int fatal_signals[] = {
    SIGTERM,   SIGINT, SIGHUP, SIGQUIT,   SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
    SIGVTALRM, SIGIO,  SIGPWR, SIGSTKFLT, SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,  SIGABRT};
#define NFATAL (sizeof fatal_signals / sizeof *fatal_signals)

/* What start-up touches: one page. */
static struct {
    _Atomic uint32_t dying;            /* futex word: a fatal signal is being handled */
    pid_t pid;                         /* the process the tracer belongs to (not a vfork child) */
    int flight;                        /* the flight recorder's trigger, 0 none */
    struct sigaction view[NFATAL + 1]; /* what the program sees while the tracer's handler holds */
} S GT_BIG;
_Static_assert(sizeof S <= GT_PAGE, "the fatal signals' state spans one page");

/* The index of sig's view: its place among the fatal signals, NFATAL for the flight trigger
 * (when not one of them), -1 for a signal the tracer never takes. */
static int slot_of(int sig)
{
    for (size_t i = 0; i < NFATAL; i++)
        if (fatal_signals[i] == sig) return (int)i;
    return sig == S.flight && sig ? (int)NFATAL : -1;
}

/* What the program sees of sig (one the tracer takes). */
static struct sigaction *view_of(int sig)
{
    return &S.view[slot_of(sig)];
}

/* This thread is in fork(), from the tracer's prepare handler to its parent handler, holding
 * the tracer's locks and glibc's (malloc's): a fatal signal sent meanwhile is handled once the
 * fork is over (fatal_fork_end); a child the fork gave ends at once (fatal_fork_orphaned). */
static __thread int forking;
static __thread int deferred; /* that signal */

void fatal_fork_begin(void)
{
    forking = 1;
}

void fatal_fork_end(void)
{
    forking = 0;
    int sig = deferred;
    deferred = 0;
    if (sig) REAL(syscall)(SYS_tgkill, getpid(), gettid(), sig);
}

int fatal_fork_deferred(void)
{
    return deferred;
}

int fatal_fork_orphaned(void)
{
    forking = 0;
    return deferred || fatal_dying();
}

int fatal_dying(void)
{
    return atomic_load_explicit(&S.dying, memory_order_acquire) != 0;
}

void fatal_park(void)
{
    for (;;) /* the dying thread ends the process */
        REAL(syscall)(SYS_futex, &S.dying, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
}

/* A fault the kernel raised (it returns to the faulting instruction, which raises it again). */
static int is_fault(int sig, const siginfo_t *si)
{
    return si && si->si_code > 0 &&
           (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
}

/* A fault is raised again by returning; a signal that was sent is sent again, to this thread
 * (blocked until the handler returns). */
static void default_action(int sig, const siginfo_t *si)
{
    struct sigaction dfl = *view_of(sig);
    dfl.sa_handler = SIG_DFL;
    REAL(sigaction)(sig, &dfl, NULL);
    if (!is_fault(sig, si)) REAL(syscall)(SYS_tgkill, getpid(), gettid(), sig);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    if (forking && !is_fault(sig, si)) { /* its last write needs what the fork holds */
        deferred = sig;
        errno = saved;
        return;
    }
    struct gt_thread *t = gt_self;
    if (t && !is_fault(sig, si) && (atomic_load_explicit(&t->seq, memory_order_relaxed) & 1)) {
        wr_deferred_sig = sig; /* the last write would wait for this section: after it */
        errno = saved;
        return;
    }
    if (getpid() == S.pid) {
        if (atomic_exchange(&S.dying, 1) == 0) {
            gt_internal++; /* this thread works for the tracer from here */
            state_stop();  /* the others stop at their next hook (tr_current_slow) */
            flusher_final_within(FATAL_WAIT_MS);
        } else if (!gt_internal) {
            fatal_park(); /* another thread writes, then ends the process */
        }
    }
    default_action(sig, si);
    errno = saved;
}

void fatal_fork_child(void)
{
    S.pid = getpid();
}

/* The flight recorder's trigger: a dump after the next switch; the program goes on. */
static void on_flight(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    int saved = errno;
    if (getpid() == S.pid) flusher_flight_request();
    errno = saved;
}

static struct sigaction tracer_action(void (*handler)(int, siginfo_t *, void *))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sa;
}

/* The tracer's action for sig (one it takes). */
static struct sigaction tracer_action_for(int sig)
{
    return tracer_action(sig == S.flight ? on_flight : on_fatal);
}

/* Whether handler, as the kernel reports it, is the tracer's. */
static int is_tracers(void (*handler)(int))
{
    void (*h)(void) = (void (*)(void))handler; /* (any function type: no cast warning) */
    return h == (void (*)(void))on_fatal || h == (void (*)(void))on_flight;
}

/* Installs the tracer's handler for sig if its disposition is SIG_DFL. */
static void own(int sig)
{
    struct sigaction cur, sa = tracer_action_for(sig);
    if (sig <= 0 || sig >= NSIG) return;
    if (REAL(sigaction)(sig, NULL, &cur) != 0 || cur.sa_handler != SIG_DFL) return;
    *view_of(sig) = cur;
    REAL(sigaction)(sig, &sa, NULL);
}

#if defined(__x86_64__)
/* own for every fatal signal, when the process has a single thread: with them blocked, each is
 * installed with the disposition it replaces read in the same call, and that one is put back
 * exactly (flags and restorer as the kernel had them: glibc's sigaction would add its own) when
 * it was not SIG_DFL (an inherited SIG_IGN, a handler): one call a signal, not two, and none is
 * taken meanwhile (this thread is the only one that could take it). Only with libc's own
 * sigaction: an interposer's (a sanitizer's) keeps its own table, which the raw put-back would
 * leave behind. The flight trigger, already the tracer's, is left alone. */
static void own_fatal_alone(void)
{
    sigset_t set, old;
    sigemptyset(&set);
    for (size_t i = 0; i < NFATAL; i++)
        sigaddset(&set, fatal_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    struct sigaction sa = tracer_action(on_fatal), cur;
    for (size_t i = 0; i < NFATAL; i++) {
        int sig = fatal_signals[i];
        if (sig == S.flight || REAL(sigaction)(sig, &sa, &cur) != 0) continue;
        if (cur.sa_handler != SIG_DFL) { /* the program's, or its parent's SIG_IGN */
            struct kernel_sigaction k = {cur.sa_handler, (unsigned long)cur.sa_flags,
                                         cur.sa_restorer, 0};
            memcpy(&k.mask, &cur.sa_mask, sizeof k.mask);
            if (REAL(syscall)(SYS_rt_sigaction, sig, &k, NULL, sizeof k.mask) != 0)
                REAL(sigaction)(sig, &cur, NULL); /* (a filter refused it): glibc's flags */
            continue;
        }
        *view_of(sig) = cur;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}
#endif

int fatal_takes(int sig)
{
    return S.pid && slot_of(sig) >= 0;
}

int fatal_retakes(int sig, void (*handler)(int))
{
    return handler == SIG_DFL && fatal_takes(sig) && getpid() == S.pid;
}

int fatal_view(int sig, void (*handler)(int), struct sigaction *view)
{
    if (!is_tracers(handler) || slot_of(sig) < 0) return 0;
    *view = *view_of(sig);
    return 1;
}

void fatal_init(int flight_signal, int alone)
{
    S.pid = getpid();
    S.flight = flight_signal;
    if (flight_signal) own(flight_signal);
#if defined(__x86_64__)
    if (alone && real_in_libc((void *)REAL(sigaction))) {
        own_fatal_alone();
        return;
    }
#else
    (void)alone;
#endif
    for (size_t i = 0; i < NFATAL; i++)
        own(fatal_signals[i]);
}

/* The program's call made as it is; the tracer's handler, if it reports it, is shown as the
 * program's view (the view read first: a retake may replace it meanwhile). */
static int pass(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction prev, view = *view_of(sig);
    int r = REAL(sigaction)(sig, act, &prev);
    if (r == 0 && old) *old = is_tracers(prev.sa_handler) ? view : prev;
    return r;
}

/* The program sets SIG_DFL: set as asked, then replaced by the tracer's handler in a call that
 * reads it back, so that the view is that SIG_DFL exactly as the kernel keeps it (flags and mask
 * as it stores them, libc's restorer). What another thread set in between stays. */
static int retake(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction prev, set, view = *view_of(sig), sa = tracer_action_for(sig);
    if (REAL(sigaction)(sig, act, &prev) != 0) return -1;
    int saved = errno;
    if (REAL(sigaction)(sig, &sa, &set) == 0) {
        if (set.sa_handler == SIG_DFL)
            *view_of(sig) = set;
        else
            REAL(sigaction)(sig, &set, NULL);
    }
    errno = saved;
    if (old) *old = is_tracers(prev.sa_handler) ? view : prev;
    return 0;
}

int fatal_sigaction(int sig, const struct sigaction *act, struct sigaction *old, int *r)
{
    if (!fatal_takes(sig)) return 0;
    *r = act && fatal_retakes(sig, act->sa_handler) ? retake(sig, act, old) : pass(sig, act, old);
    return 1;
}
