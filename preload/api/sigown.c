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
