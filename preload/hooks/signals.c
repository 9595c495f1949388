/* signals.c: interposed sigaction and signal, for the signals the tracer may own: SIGPROF, so
 * that CPU sampling (cpuprof.h) never takes SIGPROF from a program that uses it (a program
 * installing its own SIGPROF handler gets it, and sampling stops), and the fatal signals whose
 * default action the tracer precedes with a last write (fatal.h): the program sees their
 * disposition as untraced, and a handler it installs replaces the tracer's until it sets
 * SIG_DFL again.
 * Invariants: every other signal, and these whenever the tracer does not own them, is forwarded
 * untouched to the real function (same result, same errno); signal(sig, h) for them behaves as
 * glibc's (BSD semantics: SA_RESTART, the signal blocked in its handler). sigset, sysv_signal
 * and bsd_signal are not interposed (docs/annotations.md). Also sigaltstack, untouched: the
 * stack module learns where captures must not walk. The owners are reached through sigown.h. */
#include "hooks.h"
#include "real.h"
#include "sigown.h"

#include <signal.h>

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    int r;
    return sigown_sigaction(sig, act, old, &r) ? r : REAL(sigaction)(sig, act, old);
}

/* The alternate signal stack the calling thread's handlers run on: no capture there (sigown.h). */
EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
    int r = REAL(sigaltstack)(ss, old);
    if (r == 0 && ss) sigown_altstack(ss);
    return r;
}

EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
    if (!sigown_handles(sig, handler)) return REAL(signal)(sig, handler);
    struct sigaction sa = {.sa_handler = handler, .sa_flags = SA_RESTART}, old;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, sig);
    return sigaction(sig, &sa, &old) == 0 ? old.sa_handler : SIG_ERR;
}
