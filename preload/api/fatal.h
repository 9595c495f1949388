/* fatal.h: the signals the tracer takes while the program leaves them at SIG_DFL: the flight
 * recorder's trigger (GOTRACE_FLIGHT_SIGNAL, flight mode only), and the fatal signals (every
 * signal whose default action ends the process, but SIGPROF, SIGTRAP, SIGSYS and the real-time
 * ones: fatal.c) whose disposition is the default. The tracer catches them: the first one
 * writes the generation in progress (asked of the flusher thread, waiting at most FATAL_WAIT_MS)
 * while the program's other threads stop at their next hook (tr_current), then the signal takes
 * its default action: the same exit status, core dump and status seen by the parent as untraced.
 * Invariants: the kernel's disposition is the truth: the tracer holds a signal exactly while its
 * handler is the one installed, and no state says otherwise; it installs its handler only where
 * the disposition is SIG_DFL: at its start, and when the program sets SIG_DFL through an
 * interposed call (sigaction, signal and its kin: the disposition as the kernel keeps it is then
 * the program's view); whatever else replaces it (the program's handler or SIG_IGN, through any
 * call, a raw system call included) stays until the program sets SIG_DFL again; the program
 * never sees the tracer's handler, but its view: SIG_DFL with the flags and mask it set; the
 * handler is async-signal-safe and touches no state in a child that shares its parent's memory
 * (vfork); a fault raised again by returning (SIGSEGV, SIGBUS, SIGILL, SIGFPE from the kernel)
 * or a signal sent again to the thread (every other case) ends the process with the default
 * action, whether or not the write finished. */
#ifndef GOTRACE_FATAL_H
#define GOTRACE_FATAL_H
#include <signal.h>
#include <stdint.h>

#define FATAL_WAIT_MS 5000

/* The kernel's own sigaction (x86-64), as rt_sigaction reads and writes it. */
struct kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

/* At the tracer's start: catches the fatal signals whose disposition is SIG_DFL, and
 * flight_signal (0: none) for the flight recorder's dumps (flusher.h) if its disposition is
 * SIG_DFL too. alone: the process has a single thread (half the system calls). */
void fatal_init(int flight_signal, int alone);
/* In a forked child (the handlers are inherited): the child is the process to write for. */
void fatal_fork_child(void);
/* Around the tracer's part of a fork (its prepare to its parent handler), in which the forking
 * thread holds the tracer's locks and glibc holds malloc's: a fatal signal sent to this thread
 * meanwhile is handled once the fork is over (fatal_fork_end raises it again), not there, where
 * its last write would wait for those locks until its bound (5 s); faults are handled at once.
 * fatal_fork_orphaned, in the child right after the fork: 1 when the parent is dying of a fatal
 * signal sent before the child existed (untraced, the child would not exist: it must end). */
void fatal_fork_begin(void);
void fatal_fork_end(void);
int fatal_fork_deferred(void); /* a fatal signal came since fatal_fork_begin */
int fatal_fork_orphaned(void);
/* sigaction(sig, act, old) by the program: 1 if handled here (result in *r), 0 to forward. */
int fatal_sigaction(int sig, const struct sigaction *act, struct sigaction *old, int *r);
/* Whether sig is one the tracer takes (a fatal signal, the flight trigger), once started. */
int fatal_takes(int sig);
/* Whether the program's setting of sig to handler gives sig back to the tracer (handler is
 * SIG_DFL for a signal it takes, in its process): fatal_sigaction must make it (a handler's
 * `signal(sig, SIG_DFL); raise(sig)` then dies with the last write). */
int fatal_retakes(int sig, void (*handler)(int));
/* Whether handler, as the kernel reported it for sig, is the tracer's: then *view is the
 * disposition the program sees in its place. */
int fatal_view(int sig, void (*handler)(int), struct sigaction *view);
/* A fatal signal is being handled: a thread that reaches a hook waits there for the end. */
int fatal_dying(void);
void fatal_park(void) __attribute__((noreturn));
#endif
