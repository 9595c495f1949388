/* sigown.h: the program's signal calls (hooks/signals.c, and raw rt_sigaction system calls made
 * through syscall(): hooks/syscalls.c) as they reach what the tracer owns: SIGPROF, CPU
 * sampling's while it runs (cpuprof.h), the fatal signals and the flight recorder's signal
 * while the program leaves them at SIG_DFL (fatal.h), and the alternate signal stack, on which
 * no stack is captured (stack.h).
 * Invariants: the kernel's disposition is the truth: a signal is the tracer's while its handler
 * is installed, whatever the program did through calls no hook sees; the tracer's handler is
 * never reported to the program, but the disposition the program would see untraced; a call
 * this module does not handle is left to the caller, untouched; one it handles gives the result
 * the program would see untraced; nothing here writes an event. */
#ifndef GOTRACE_SIGOWN_H
#define GOTRACE_SIGOWN_H
#include "stack.h"

#include <signal.h>

/* sigaction(sig, act, old) by the program: 1 if handled here (result in *r), 0 to forward. */
int sigown_sigaction(int sig, const struct sigaction *act, struct sigaction *old, int *r);
/* Whether the program's setting of sig to handler by signal() or its kin must be made a
 * sigaction, through sigown_sigaction, with the flags and mask of glibc's function: SIGPROF
 * while sampling, SIG_DFL for a signal the tracer takes back, and any setting of one of these
 * signals when an interposer's sigaction (a sanitizer's) is in front of libc's: the calls the
 * tracer makes for the program go through it, so all of them must. Any other is made by the
 * real function, whose result goes through sigown_seen. */
int sigown_handles(int sig, sighandler_t handler);
/* The handler the program sees where the kernel reported handler for sig (the tracer's is
 * replaced by the program's view). Leaves errno alone. */
sighandler_t sigown_seen(int sig, sighandler_t handler);
/* The same for the previous action old (the kernel's struct, fatal.h) that a raw rt_sigaction
 * system call of the program read for sig. */
void sigown_seen_kernel(int sig, void *old);
/* Whether the program has a handler of its own (not the tracer's) for a signal that may come
 * while none of its threads runs: any but those its running code raises itself (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT). Another process, a timer or a child's end may send
 * it, and its handler may wake a waiting thread (sem_post is async-signal-safe): the hang check's
 * "no progress" (flush/hang.h). A system call per signal. */
int sigown_program_catches(void);
/* The calling thread's handlers run on the alternate stack ss from now on (sigaltstack
 * succeeded): no capture there. Inline, so that it runs in the hook's own code: a sanitizer's
 * runtime calls sigaltstack before it is set up, and TSan leaves the hooks uninstrumented
 * (test/test.mk, TSAN_SKIP). */
static inline void sigown_altstack(const stack_t *ss)
{
    stack_set_altstack(ss);
}
#endif
