/* hang.h: live deadlock detection (GOTRACE_HANG_MS, docs/locks.md section 6), by the rules of
 * `gotrace hangs` (decoder/analysis/hangs.h). On the flusher's rounds (at least every half
 * period) every traced thread is judged. A thread is STUCK when it has waited at least the
 * period, in a call without a timeout (HANG_UNTIMED), on
 *   - a mutex or rwlock held by a thread of the process: its holder is the owner glibc records in
 *     the lock now (__owner, a rwlock's __cur_writer, read through the kernel: walk_peek), not
 *     that of a process-shared lock; the holder at block time (thread.h wait_holder, forgotten
 *     at a release) only when the lock cannot be read;
 *   - a join of a live thread;
 *   - a condvar, semaphore or barrier in the program's static storage (named by its symbol: one
 *     known by its address only may be shared with another process, which could post it).
 * Deadlocks (each thread in one at most):
 *   cycle          stuck threads each waiting on a lock or join held by the next;
 *   holder exited  stuck threads waiting on a lock read to be held by a thread that exited (its
 *                  task is gone or a zombie);
 *   no progress    every thread of the process but the flusher is a traced thread, stuck and
 *                  asleep in the kernel (/proc: nothing untraced runs, no waiter was just
 *                  woken), and the program has no handler for a signal that may come from
 *                  outside (one may post a semaphore): the stuck threads in no other deadlock.
 * Across processes: a thread that has read a pipe, FIFO or Unix socket (thread.h read_fd) for
 * the period is in a deadlock when its process cannot move otherwise (every other thread stuck,
 * no signal handler of the program's) and every process holding the pipe's write end (the
 * socket's peer) can only move once the reader's process does (hangproc.h, through /proc): the
 * reader's own process; its parent, every thread of it waiting for the reader's process to end.
 * Reported once per read: "gotrace: deadlock: ... reading pipe:[INO], whose write end only ...
 * holds", and a log "gotrace.deadlock" that ends in the threads it rests on, "[reader TID;
 * waiting TID...]" (for `gotrace hangs`). A read without a verdict is looked at again after a
 * gap that doubles, up to 8 periods.
 * A stuck thread whose holders lead into a deadlock (main joining a thread of a cycle) is listed
 * behind it. Nothing else is a deadlock: a chain of waits that ends in a thread running,
 * runnable, asleep, in a system call or in a timed wait can still move, and is not reported.
 * Each deadlock is reported once, when a thread of it (not behind it) has a wait not reported
 * yet: "gotrace: deadlock: ..." lines on stderr (threads, objects, holders, stacks), the first
 * as a log event "gotrace.deadlock" in the trace. A thread that exited holding a lock that a
 * thread waits on is reported once per lock, within half a period of its exit (or of the first
 * wait on the lock after it), whatever the wait: "gotrace: held at exit: ...", a log event
 * "gotrace.held_at_exit". With lock tracking on (lockorder.h), every lock a thread still held
 * when it ended is reported too, once, with where it was taken, waited on or not. The caller
 * then ends the generation so that the events are written.
 * Nothing else changes: the program is not stopped.
 * Invariants: runs on the flusher thread only, under the output lock (symbolization is the
 * flusher's); reads thread records without changing them but hang_seen, and the program's
 * memory only through the kernel; a wait is reported at most once. */
#ifndef GOTRACE_HANG_H
#define GOTRACE_HANG_H
#include <stdint.h>

/* What a wait on an object is to the check (thread.h wait_kind): its kind, | HANG_UNTIMED when
 * the call has no timeout. Any other wait (a futex word, OpenMP's) is HANG_OTHER: never stuck. */
enum {
    HANG_OTHER,
    HANG_MUTEX,
    HANG_RWLOCK,
    HANG_JOIN,
    HANG_OWNERLESS, /* condvar, semaphore, barrier */
    HANG_KIND = 7,
    HANG_UNTIMED = 8
};

/* Whether the check is on (GOTRACE_HANG_MS > 0): only then do waits keep their view of the
 * wait (thread.h wait_*). */
extern int hang__on;
static inline int hang_on(void)
{
    return hang__on;
}
/* ms 0: off. log writes text into the trace as a log event with key (as the tracer's
 * goroutine); catches tells whether the program has a handler of its own for a signal that may
 * come from outside (it may post a semaphore: then there is no "no progress"). Before any thread
 * waits (the tracer's set-up). */
void hang_init(uint32_t ms, void (*log)(const char *key, const char *text), int (*catches)(void));
/* The flusher's wait, at most ms, shortened to the check's half period when it is on. */
uint32_t hang_wait_ms(uint32_t ms);
/* One check; 1 when it reported (then end the generation). */
int hang_round(void);
#endif
