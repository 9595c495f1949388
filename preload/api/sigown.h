/* sigown.h: the program's signal calls (hooks/signals.c) as they reach what the tracer owns:
 * SIGPROF, CPU sampling's while it runs (cpuprof.h), the fatal signals and the flight
 * recorder's signal while the program leaves them at SIG_DFL (fatal.h), and the alternate
 * signal stack, on which no stack is captured (stack.h).
 * Invariants: a call this module does not handle is left to the caller, untouched; one it
 * handles gives the result the program would see untraced; nothing here writes an event. */
#ifndef GOTRACE_SIGOWN_H
#define GOTRACE_SIGOWN_H
#include "stack.h"

#include <signal.h>

/* sigaction(sig, act, old) by the program: 1 if handled here (result in *r), 0 to forward. */
int sigown_sigaction(int sig, const struct sigaction *act, struct sigaction *old, int *r);
/* Whether sigown_sigaction handles the program's setting of sig to handler (signal(), which
 * is then made a sigaction). */
int sigown_handles(int sig, void (*handler)(int));
/* The calling thread's handlers run on the alternate stack ss from now on (sigaltstack
 * succeeded): no capture there. Inline, so that it runs in the hook's own code: a sanitizer's
 * runtime calls sigaltstack before it is set up, and TSan leaves the hooks uninstrumented
 * (test/test.mk, TSAN_SKIP). */
static inline void sigown_altstack(const stack_t *ss)
{
    stack_set_altstack(ss);
}
#endif
