/* tracer.h: the semantic tracer API that hooks call (Go's traceruntime). It hides the encoding,
 * the generations and the status bookkeeping: hooks say what a thread does (created, started,
 * blocked, woken, in a syscall, exited) and the tracer turns that into Go trace events. The
 * calling thread's record comes from tr_current() (lifecycle.h); hooks use it only through the
 * functions here, never its fields.
 *
 * Pattern for a hook of a call that may wait:
 *     struct gt_thread *self = tr_current();
 *     if (!self || try_without_waiting()) return real(...);   // fast path emits nothing
 *     int traced = tr_block(self, GT_R_MUTEX);                // GoBlock with this call's stack
 *     if (traced) waitq_add(key, self);                       // so a releaser can find us
 *     r = real(...);
 *     if (traced) { waitq_remove(self); tr_unblock(self); }  // back to Running
 * and of a call that releases waiters:  stk = tr_stack(); waitq_wake(key, self, stk, n).
 *
 * Invariants: every function runs between one acquire and one release (tracer.c): errno is
 * preserved and the thread is inside the tracer meanwhile (its hooks, called by the unwinder or
 * a signal handler, emit nothing); none allocates with malloc or takes a lock on the event path
 * (a buffer filling takes the pool lock); calls made while the thread is inside the tracer, not
 * Running (a signal handler interrupting a wait or a syscall), or untraced return without
 * emitting; tr_block/tr_syscall_begin return 0 then, and the caller must skip the matching
 * tr_unblock/tr_syscall_end bookkeeping. A function of a hook's own between the program and the
 * API whose frame must not show in stacks carries GOTRACE_API_FN (stack.h, included here). */
#ifndef GOTRACE_TRACER_H
#define GOTRACE_TRACER_H
#include "stack.h"
#include "thread.h"

#include <stddef.h>
#include <stdint.h>

enum gt_reason {
    GT_R_JOIN,
    GT_R_MUTEX,
    GT_R_RWLOCK_READ,
    GT_R_RWLOCK_WRITE,
    GT_R_CONDVAR,
    GT_R_SEMAPHORE,
    GT_R_BARRIER,
    GT_R_SLEEP,       /* sleeps (docs/blocking.md) */
    GT_R_NETWORK,     /* readiness waits: exactly "network", the word Go's I/O profile keys on */
    GT_R_FUTEX,       /* futex waits made through syscall() (hooks/futex.c) */
    GT_R_OMP_BARRIER, /* OpenMP (GCC's libgomp, hooks/omp.c) */
    GT_R_OMP_CRITICAL,
    GT_R_OMP_LOCK,
    GT_R_CHILD,  /* waits for a child process (hooks/syscalls.c): "wait: child PID" and kin */
    GT_R_SIGNAL, /* waits for a signal (hooks/sigwaits.c): "signal: sigsuspend" and kin */
    GT_R_PIPE,   /* reads of a pipe or FIFO (hooks/pipes.c): "pipe: read pipe:[INO]" */
    GT_R_SOCKET, /* receives on a Unix socket: "socket: recv socket:[INO] unix" */
    GT_R_COUNT,
    /* Or'ed into the reason of a wait on an object (tr_block_on, waitq_barrier): the call has no
     * timeout (pthread_mutex_lock, pthread_rwlock_rdlock/wrlock, pthread_cond_wait, sem_wait,
     * pthread_join, pthread_barrier_wait), so only another thread ends it: the only waits the
     * hang check may judge stuck (flush/hang.h). */
    GT_R_UNTIMED = 0x100,
    /* Or'ed into the reason of a wait on a key of the tracer's own (OpenMP's unnamed critical
     * section): the wait keeps its plain reason (no object's name) and key only matches its
     * releases (tr_released). */
    GT_R_UNNAMED = 0x200
};
void tr_reasons_init(void);
/* The string id of reason r's generic text ("sync: mutex"), once tr_reasons_init ran. */
uint64_t tr_reason_id(enum gt_reason r);

/* The calling thread's record, whatever its state (NULL if it has none). */
static inline struct gt_thread *tr_self(void)
{
    return gt_self;
}
/* Whether the calling thread works for the tracer (the flusher, set-up, a stack capture):
 * what it opens is the tracer's (fds.h). */
static inline int tr_inside(void)
{
    struct gt_thread *t = gt_self;
    return gt_internal || (t && t->depth);
}
/* A thread the tracer did not see being created registers itself (named by entry if given,
 * else by its stack); NULL if it cannot (then it runs untraced). lifecycle.c's tr_current. */
struct gt_thread *tr_adopt(void *entry);

/* Threads. tr_create_prepare runs in the creator before the real pthread_create: it writes the
 * GoCreate (the child's stack names start) and returns the child's state for tr_thread_start,
 * or NULL (then create the thread untraced; it registers itself when first seen); then exactly
 * one of tr_create_done / tr_create_failed. */
struct gt_thread *tr_create_prepare(struct gt_thread *self, void *(*start)(void *), void *arg);
/* After the real pthread_create, in the creator: the child's handle is known from here (a name
 * given to it before it runs finds it), and its record may be reaped once it has exited. */
void tr_create_done(struct gt_thread *child, pthread_t handle);
void tr_create_failed(struct gt_thread *child);
/* First thing in the new thread; returns the start routine and sets *arg (the trampoline's). */
void *(*tr_thread_start(struct gt_thread *t, void **arg))(void *);
/* Last things a thread does, in two steps so that the hooks wake its joiners (the waiters on
 * its pthread_t, waitq) in between. tr_exit_begin: 0 if t's exit is not traced (inside the
 * tracer, exited, never started); else t is back to Running, inside the tracer for good,
 * *stk is its exit stack and *handle its pthread_t: captured, or (returned: called by the
 * trampoline after the start routine returned, where every capture would end empty) the
 * routine's one-frame stack, without a walk. tr_exit_end: GoDestroy, ProcStop. */
int tr_exit_begin(struct gt_thread *t, int returned, uint64_t *stk, pthread_t *handle);
void tr_exit_end(struct gt_thread *t);
/* The main thread, from the main trampoline: registers it with a creation named by main_fn. */
void tr_main_start(void *main_fn);
/* The kernel TID of the thread (what glibc records as a lock's owner). */
static inline int tr_tid(struct gt_thread *t)
{
    return (int)atomic_load_explicit(&t->tid, memory_order_relaxed);
}

/* Waiting. */
int tr_block(struct gt_thread *self, enum gt_reason reason);
/* tr_block with the reason text (interned: a text of its own per child or call, docs/blocking.md
 * "Across processes"), reason's generic one if text cannot be interned. */
int tr_block_text(struct gt_thread *self, enum gt_reason reason, const char *text);
/* tr_block for a wait on object key (a lock, condvar, semaphore, barrier, or a joined
 * thread's pthread_t) that thread holder (a TID, 0 unknown) held at block time: the wait gets
 * the object's own reason ("sync: mutex ledger_lock", syncobj.h) and a holder record; reason
 * may carry GT_R_UNTIMED. */
int tr_block_on(struct gt_thread *self, enum gt_reason reason, void *key, int64_t holder);
void tr_unblock(struct gt_thread *self);
/* self, Running, released key at ts (gt_now) with threads queued on it: a release record
 * with stack stk; tr_released: at the time of the call. */
void tr_released_at(struct gt_thread *self, void *key, uint64_t stk, uint64_t ts);
void tr_released(struct gt_thread *self, void *key, uint64_t stk);
/* pthread_*_init(obj) called from pc: names obj after it (syncobj.h). */
void tr_note_init(const void *obj, uintptr_t pc);
/* On a thread of the tracer (the flusher), outside any record: text as a UserLog with key
 * (e.g. "gotrace.deadlock") of a goroutine of the tracer's own that lives for that event only. */
void tr_tracer_log(const char *key, const char *text);
/* The TID of traced thread th (a join's holder); minus its goroutine id when it has not
 * started yet; 0 if not traced. */
int64_t tr_thread_tid(pthread_t th);
uint64_t tr_stack(void); /* the caller's stack id, for tr_wake */
/* Waiter t becomes Runnable, woken by self with stack stk; 0 if t was not waiting any more.
 * Call it only while t is registered in the wait queue the caller holds locked. */
int tr_wake(struct gt_thread *self, struct gt_thread *t, uint64_t stk);

/* Blocking system calls. */
int tr_syscall_begin(struct gt_thread *self);
/* Returns how long the system call took (ns from its begin to its end events; 0 if unknown). */
uint64_t tr_syscall_end(struct gt_thread *self);
/* After a tr_syscall_begin that returned 1, for a call that reads fd (read, readv, recv...),
 * or after the block of a pipe read that waits (hooks.h PIPE_READ): notes fd in the thread
 * record (one plain store; a block's start too with the hang check on), for the hang check's
 * pipe cycles (flush/hang.h); tr_syscall_end, or fd -1 (the block's end), clears it. */
void tr_syscall_reads(struct gt_thread *self, int fd);
/* After a read or write on fd (a system call) that took long enough to have waited: when fd is
 * a pipe, FIFO or Unix socket, a gotrace.fd log naming it ("pipe:[12345]", docs/blocking.md
 * "Across processes"): one fstat, made only then. */
void tr_fd_waited(struct gt_thread *self, int fd);

/* Annotations (hooks/annotations.c): one user event (UserTaskBegin/End, UserLog) with args
 * followed by the caller's stack; bit i of strs marks args[i] as a string id. 1 if written, 0 if
 * the thread is not Running (nothing written). */
int tr_user_event(struct gt_thread *self, uint8_t type, int n, const uint64_t *args, unsigned strs);
/* User regions: the begin or end of region name (a string id: tr_string) of task, a user event
 * written only as self's stack of open regions allows (regions.h), so that a wrong end from the
 * program never reaches the file: a begin past GT_REGION_MAX open regions (and then its end), or
 * an end that is not the innermost open region's (text: its name, for the warning), is left
 * out, with one warning a process for each of the two. */
void tr_region_begin(struct gt_thread *self, uint64_t task, uint64_t name);
/* A UserLog of the tracer's own (key "gotrace.fork", "gotrace.ended", ...: docs/blocking.md "Across
 * processes") with text and the caller's stack; 1 if written. For process events and the end of
 * waits that blocked, never on the path of a call that does not wait. */
int tr_log(struct gt_thread *self, const char *key, const char *text);
/* The same at time ts (tr_clock's, taken before the call the log is about: a kill's log is
 * timed before the signal could wake its receiver, so a merged trace orders them). */
int tr_log_at(struct gt_thread *self, const char *key, const char *text, uint64_t ts);
/* The tracer's clock now (the events' time base). */
uint64_t tr_clock(void);
/* A post (kind: "semaphore") at ts (tr_clock) on obj in a shared mapping that processes wait
 * on (glibc's waiter count said so): a gotrace.post log naming it as its waits' reasons do
 * ("semaphore shared FILE+0xOFF [MAJ:MIN INODE]"), by which a merged trace links the waiter in
 * another process (docs/processes.md). One read of /proc/self/maps, paid only then. */
void tr_post_shared(struct gt_thread *self, const char *kind, const void *obj, uint64_t ts);
void tr_region_end(struct gt_thread *self, uint64_t task, uint64_t name, const char *text);
/* The string id of s (at most max bytes; 0 for NULL or ""), interned by self as the tracer. */
uint64_t tr_string(struct gt_thread *self, const char *s, size_t max);
/* Thread names: th is named name (its first max bytes). The named thread writes it as a GoLabel
 * on its G once per generation, when it next returns to Running, annotates, or exits; at once
 * when self names itself. Nothing if th is not a traced thread. */
void tr_set_name(struct gt_thread *self, pthread_t th, const char *name, size_t max);
#endif
