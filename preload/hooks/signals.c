/* signals.c: every way a program sets or reads a signal's handler through libc (sigaction,
 * __sigaction, signal, bsd_signal, ssignal, sysv_signal, __sysv_signal, sigset), for the
 * signals the tracer may own: SIGPROF, so that CPU sampling (cpuprof.h) never takes SIGPROF
 * from a program that uses it (a program installing its own SIGPROF handler gets it, and
 * sampling stops), and the fatal signals whose default action the tracer precedes with a last
 * write (fatal.h): the program sees their disposition as untraced, and a handler it installs
 * replaces the tracer's until it sets SIG_DFL again. Strict C builds (-std=c99 and the like)
 * call __sysv_signal for signal().
 * Invariants: the kernel's disposition is the truth (sigown.h); a setting sigown_handles takes
 * is made a sigaction with the flags and mask glibc's function gives it (signal, bsd_signal and
 * ssignal: the BSD semantics, SA_RESTART and the signal blocked in its handler; sysv_signal:
 * one-shot, SA_RESETHAND | SA_NODEFER; sigset: no flag, and the signal unblocked, SIG_HOLD
 * returned if it was blocked; sigset's SIG_HOLD: the signal blocked, SIG_HOLD returned if it
 * was, else its handler); any other call is the real function's, its result and errno
 * unchanged but for the tracer's handler, reported as the program's view. sigignore and
 * siginterrupt report no handler: not interposed. Also sigaltstack, untouched: the stack module
 * learns where captures must not walk. The owners are reached through sigown.h. */
#include "hooks.h"
#include "real.h"
#include "sigown.h"

#include <errno.h>
#include <signal.h>

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    int r;
    return sigown_sigaction(sig, act, old, &r) ? r : REAL(sigaction)(sig, act, old);
}

/* libc's other name of sigaction. */
EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return sigaction(sig, act, old);
}

/* The alternate signal stack the calling thread's handlers run on: no capture there (sigown.h). */
EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
    int r = REAL(sigaltstack)(ss, old);
    if (r == 0 && ss) sigown_altstack(ss);
    return r;
}

/* handler set for sig as a sigaction with flags, sig blocked in it if masked; the previous
 * handler in *old. */
static int set_as(int sig, sighandler_t handler, int flags, int masked, sighandler_t *old)
{
    struct sigaction sa = {.sa_handler = handler, .sa_flags = flags}, prev;
    sigemptyset(&sa.sa_mask);
    if (masked) sigaddset(&sa.sa_mask, sig);
    int r = sigaction(sig, &sa, &prev);
    *old = prev.sa_handler;
    return r;
}

/* signal() and its kin as a sigaction (sig is valid: sigown_handles took it). */
static sighandler_t signal_as(int sig, sighandler_t handler, int flags, int masked)
{
    sighandler_t old;
    if (handler == SIG_ERR) {
        errno = EINVAL;
        return SIG_ERR;
    }
    return set_as(sig, handler, flags, masked, &old) == 0 ? old : SIG_ERR;
}

#define BSD_FLAGS SA_RESTART
#define SYSV_FLAGS (SA_RESETHAND | SA_NODEFER | SA_INTERRUPT)

/* One of glibc's signal() forms: as the tracer sets it (sigaction with the form's flags) when
 * it must act on sig, else the real function, whose old handler is the program's view. */
#define SIGNAL_FORM(name, flags, masked)                                                           \
    EXPORT sighandler_t name(int sig, sighandler_t handler)                                        \
    {                                                                                              \
        if (sigown_handles(sig, handler)) return signal_as(sig, handler, flags, masked);           \
        return sigown_seen(sig, REAL(name)(sig, handler));                                         \
    }

SIGNAL_FORM(signal, BSD_FLAGS, 1)
SIGNAL_FORM(bsd_signal, BSD_FLAGS, 1)
SIGNAL_FORM(ssignal, BSD_FLAGS, 1)
SIGNAL_FORM(sysv_signal, SYSV_FLAGS, 0)
SIGNAL_FORM(__sysv_signal, SYSV_FLAGS, 0)

/* sigset(sig, disp) as a sigaction, disp not SIG_HOLD: then sig is unblocked. */
static sighandler_t sigset_as(int sig, sighandler_t disp)
{
    sigset_t set, was;
    sighandler_t old;
    sigemptyset(&set);
    sigaddset(&set, sig);
    if (set_as(sig, disp, 0, 0, &old) != 0 || sigprocmask(SIG_UNBLOCK, &set, &was) != 0)
        return SIG_ERR;
    return sigismember(&was, sig) ? SIG_HOLD : old;
}

/* sigset(sig, SIG_HOLD): sig blocked; SIG_HOLD if it was, else its handler. */
static sighandler_t hold_as(int sig)
{
    sigset_t set, was;
    struct sigaction old;
    sigemptyset(&set);
    sigaddset(&set, sig);
    if (sigprocmask(SIG_BLOCK, &set, &was) != 0) return SIG_ERR;
    if (sigismember(&was, sig)) return SIG_HOLD;
    return sigaction(sig, NULL, &old) == 0 ? old.sa_handler : SIG_ERR;
}

EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
    if (!sigown_handles(sig, disp)) return sigown_seen(sig, REAL(sigset)(sig, disp));
    return disp == SIG_HOLD ? hold_as(sig) : sigset_as(sig, disp);
}
