/* sigown.c: the program's signal calls, routed to their owner. See sigown.h. */
#include "sigown.h"

#include "cpuprof.h"
#include "fatal.h"
#include "real.h"

#include <stdatomic.h>
#include <string.h>

int sigown_sigaction(int sig, const struct sigaction *act, struct sigaction *old, int *r)
{
    return (sig == SIGPROF && cpuprof_sigaction(act, old, r)) || fatal_sigaction(sig, act, old, r);
}

/* Whether an interposer's sigaction (a sanitizer's) is in front of libc's: it may install
 * handlers of its own (TSan's wrapper), which libc's own signal functions would then read and
 * report. Found once. */
static int interposed(void)
{
    static atomic_int known = -1; /* not looked at yet */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        v = !real_in_libc((void *)REAL(sigaction));
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return v;
}

int sigown_handles(int sig, sighandler_t handler)
{
    if (sig == SIGPROF && cpuprof_sampling()) return 1;
    if (fatal_retakes(sig, handler)) return 1;
    return interposed() && (sig == SIGPROF ? cpuprof_enabled() : fatal_takes(sig));
}

/* Whether handler, reported by the kernel for sig, is the tracer's: *view is then the program's. */
static int view_of(int sig, sighandler_t handler, struct sigaction *view)
{
    return (sig == SIGPROF && cpuprof_view(handler, view)) || fatal_view(sig, handler, view);
}

sighandler_t sigown_seen(int sig, sighandler_t handler)
{
    struct sigaction view;
    return view_of(sig, handler, &view) ? view.sa_handler : handler;
}

/* Whether sig is raised by the running code of the thread it stops (a fault, abort). */
static int raised_by_code(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP ||
           sig == SIGSYS || sig == SIGABRT;
}

int sigown_program_catches(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction cur;
        if (raised_by_code(sig) || REAL(sigaction)(sig, NULL, &cur) != 0) continue;
        sighandler_t h = sigown_seen(sig, cur.sa_handler);
        if (h != SIG_DFL && h != SIG_IGN) return 1;
    }
    return 0;
}

void sigown_seen_kernel(int sig, void *old)
{
    struct kernel_sigaction *k = old;
    struct sigaction view;
    if (!view_of(sig, k->handler, &view)) return;
    k->handler = view.sa_handler;
    k->flags = (unsigned long)view.sa_flags;
    k->restorer = view.sa_restorer;
    memcpy(&k->mask, &view.sa_mask, sizeof k->mask);
}
