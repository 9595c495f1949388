/* profile.c: interposed sigaction and signal, for SIGPROF only, so that CPU sampling
 * (cpuprof.h) never takes SIGPROF from a program that uses it: a program installing its own
 * SIGPROF handler gets it, and sampling stops.
 * Invariants: every other signal, and SIGPROF whenever the tracer does not own it, is forwarded
 * untouched to the real function (same result, same errno); signal(SIGPROF, h) behaves as
 * glibc's (BSD semantics: SA_RESTART, the signal blocked in its handler). sigset, sysv_signal
 * and bsd_signal are not interposed (docs/annotations.md). */
#include "cpuprof.h"
#include "hooks.h"
#include "real.h"

#include <signal.h>

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    int r;
    if (sig == SIGPROF && cpuprof_sigaction(act, old, &r)) return r;
    return REAL(sigaction)(sig, act, old);
}

EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
    if (sig != SIGPROF) return REAL(signal)(sig, handler);
    struct sigaction sa = {.sa_handler = handler, .sa_flags = SA_RESTART}, old;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, sig);
    return sigaction(sig, &sa, &old) == 0 ? old.sa_handler : SIG_ERR;
}
