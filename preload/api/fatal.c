/* fatal.c: the last write before a fatal signal's default action. See fatal.h. */
#include "fatal.h"

#include "flusher.h"
#include "gen.h"
#include "pages.h"
#include "real.h"
#include "thread.h"

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
#define SLOTS (sizeof fatal_signals / sizeof *fatal_signals + 1) /* and the flight signal */

/* What start-up touches: one page. */
static struct {
    _Atomic uint32_t dying;       /* futex word: a fatal signal is being handled */
    pid_t pid;                    /* the process the tracer belongs to (not a vfork child) */
    atomic_int owned[NSIG];       /* the tracer's handler is installed for the signal */
    uint8_t slot[NSIG];           /* its view's index, set once when it was installed */
    unsigned slots;               /* the views in use */
    struct sigaction view[SLOTS]; /* what the program sees (it set SIG_DFL, or nothing) */
} S GT_BIG;
_Static_assert(sizeof S <= GT_PAGE, "the fatal signals' state spans one page");

int fatal_owns(int sig)
{
    return sig > 0 && sig < NSIG && atomic_load(&S.owned[sig]);
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

/* Faults that the kernel raised return to the faulting instruction, which raises them again;
 * a signal that was sent is sent again, to this thread (blocked until the handler returns). */
static void default_action(int sig, const siginfo_t *si)
{
    struct sigaction dfl = S.view[S.slot[sig]];
    dfl.sa_handler = SIG_DFL;
    REAL(sigaction)(sig, &dfl, NULL);
    int fault = si && si->si_code > 0 &&
                (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
    if (!fault) REAL(syscall)(SYS_tgkill, getpid(), gettid(), sig);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    if (getpid() == S.pid && atomic_load(&S.owned[sig])) {
        if (atomic_exchange(&S.dying, 1) == 0) {
            gt_internal++; /* this thread works for the tracer from here */
            gen_stop();    /* the others stop at their next hook (tr_current_slow) */
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

/* Installs handler for sig if its disposition is SIG_DFL. */
static void own(int sig, void (*handler)(int, siginfo_t *, void *))
{
    struct sigaction cur, sa;
    if (sig <= 0 || sig >= NSIG || atomic_load(&S.owned[sig])) return;
    if (REAL(sigaction)(sig, NULL, &cur) != 0 || cur.sa_handler != SIG_DFL) return;
    S.slot[sig] = (uint8_t)S.slots++;
    S.view[S.slot[sig]] = cur;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (REAL(sigaction)(sig, &sa, NULL) == 0) atomic_store(&S.owned[sig], 1);
}

void fatal_init(int flight_signal)
{
    S.pid = getpid();
    if (flight_signal) own(flight_signal, on_flight);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
        own(fatal_signals[i], on_fatal);
}

int fatal_sigaction(int sig, const struct sigaction *act, struct sigaction *old, int *r)
{
    if (!fatal_owns(sig)) return 0;
    struct sigaction prev = S.view[S.slot[sig]];
    *r = 0;
    if (act && act->sa_handler != SIG_DFL) { /* a handler or SIG_IGN: the program's from now */
        atomic_store(&S.owned[sig], 0);
        *r = REAL(sigaction)(sig, act, NULL);
        if (*r != 0) atomic_store(&S.owned[sig], 1);
    } else if (act) {
        S.view[S.slot[sig]] =
            *act; /* SIG_DFL with its flags and mask: recorded; the tracer's stays */
    }
    if (old && *r == 0) *old = prev;
    return 1;
}
