/* cpuprof.h: CPU profile samples (GOTRACE_CPU_HZ): a per-thread CPU-time timer sends SIGPROF to
 * its thread; the handler records the interrupted stack into the thread's sample ring of the
 * current generation's parity; the flusher writes the closed generation's samples as Go's CPU
 * sample batch (StackSample events in Go's reader).
 * Invariants: the handler is async-signal-safe (no malloc, no lock; it skips a sample when the
 * thread is inside the tracer) and brackets its write like a tracer section (t->seq odd), so
 * the flusher reads a ring only when no handler can write it; the tracer owns the SIGPROF
 * disposition only while sampling: a program that has or installs a SIGPROF handler of its own
 * gets it (sampling stops for good, every timer deleted first, one "gotrace:" line), and while
 * the tracer owns it, the program sees and may set SIG_DFL/SIG_IGN as if it were its own
 * (recorded, not installed: the tracer's handler stays); the kernel's disposition is the truth:
 * a program's call that finds another than the tracer's handler there (set by a call no hook
 * sees) stops sampling the same way and is made as it is. */
#ifndef GOTRACE_CPUPROF_H
#define GOTRACE_CPUPROF_H
#include "thread.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* At tracer init: installs the handler when hz > 0 and the program has none. */
void cpuprof_init(uint32_t hz);
int cpuprof_enabled(void); /* sampling was set up (so the flusher writes sample batches) */
/* On thread t itself, once it runs / before its last events: starts / stops its timer. */
void cpuprof_thread_start(struct gt_thread *t);
void cpuprof_thread_exit(struct gt_thread *t);
/* Flusher, generation gen closed: passes every sample of gen of the given threads to fn as
 * {ts, m, p, g, stack} and empties their rings; frees the rings of threads whose last
 * generation this is. */
typedef void (*cpuprof_visit_fn)(void *ctx, const uint64_t rec[5]);
void cpuprof_drain(uint64_t gen, struct gt_thread *const *threads, size_t n, cpuprof_visit_fn fn,
                   void *ctx);
/* In a forked child: the parent's timers do not exist here; every ring is free again (the
 * child's threads start their own timers when adopted). */
void cpuprof_fork_child(void);
/* sigaction(SIGPROF, act, old) by the program: 1 if handled here (result in *r), 0 to forward. */
int cpuprof_sigaction(const struct sigaction *act, struct sigaction *old, int *r);
/* Whether sampling is on: cpuprof_sigaction handles the program's calls. */
int cpuprof_sampling(void);
/* Whether handler, as the kernel reported it for SIGPROF, is the tracer's: then *view is the
 * disposition the program sees in its place (read without the lock: the program's own
 * concurrent setting of SIGPROF could tear it). */
int cpuprof_view(void (*handler)(int), struct sigaction *view);
#endif
