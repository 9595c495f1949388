/* tracer.h: the semantic tracer API that hooks call. It hides the encoding, the generations and
 * the status bookkeeping: hooks say what a thread does (created, started, blocked, woken,
 * in a syscall, exited) and the tracer turns that into Go trace events.
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
 * Invariants: every function preserves errno; none allocates with malloc or takes a lock on the
 * event path (a buffer filling takes the pool lock); calls made while the thread is inside the
 * tracer, not Running (a signal handler interrupting a wait or a syscall), or untraced return
 * without emitting; tr_block/tr_syscall_begin return 0 then, and the caller must skip the
 * matching tr_unblock/tr_syscall_end bookkeeping. */
#ifndef GOTRACE_TRACER_H
#define GOTRACE_TRACER_H
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
    GT_R_SLEEP,   /* sleeps (docs/blocking.md) */
    GT_R_NETWORK, /* readiness waits: exactly "network", the word Go's I/O profile keys on */
    GT_R_COUNT
};

extern __thread struct gt_thread *gt_self __attribute__((tls_model("initial-exec")));
extern __thread int gt_internal __attribute__((tls_model("initial-exec")));
extern atomic_int gt_on;        /* 1 while tracing */
extern _Atomic uint64_t gt_gen; /* the generation being written */
extern atomic_int gt_live;      /* traced threads alive */
void tr_reasons_init(void);

struct gt_thread *tr_current_slow(void);
/* The calling thread's state if it may emit now, registering a thread first seen; else NULL. */
static inline __attribute__((always_inline)) struct gt_thread *tr_current(void)
{
    struct gt_thread *t = gt_self;
    if (__builtin_expect(t && !t->depth && atomic_load_explicit(&gt_on, memory_order_relaxed) &&
                             !atomic_load_explicit(&t->exited, memory_order_relaxed),
                         1))
        return t;
    return tr_current_slow();
}

/* Threads. tr_create_prepare runs in the creator before the real pthread_create: it writes the
 * GoCreate (the child's stack names start) and returns the child's state for tr_thread_start,
 * or NULL (then create the thread untraced; it registers itself when first seen); then exactly
 * one of tr_create_done / tr_create_failed. */
struct gt_thread *tr_create_prepare(struct gt_thread *self, void *(*start)(void *), void *arg);
/* After the real pthread_create, in the creator: the child's handle is known from here (a name
 * given to it before it runs finds it), and its record may be reaped once it has exited. */
void tr_create_done(struct gt_thread *child, pthread_t handle);
void tr_create_failed(struct gt_thread *child);
void tr_thread_start(struct gt_thread *t); /* first thing in the new thread */
/* Last thing a thread does: back to Running if it was waiting, wakes its joiners (waiters on
 * its pthread_t), GoDestroy, ProcStop. */
void tr_thread_exit(struct gt_thread *t);
/* The main thread, from the main trampoline: registers it with a creation named by main_fn. */
void tr_main_start(void *main_fn);

/* Waiting. */
int tr_block(struct gt_thread *self, enum gt_reason reason);
void tr_unblock(struct gt_thread *self);
uint64_t tr_stack(void); /* the caller's stack id, for tr_wake */
/* Waiter t becomes Runnable, woken by self with stack stk; 0 if t was not waiting any more.
 * Call it only while t is registered in the wait queue the caller holds locked. */
int tr_wake(struct gt_thread *self, struct gt_thread *t, uint64_t stk);

/* Blocking system calls. */
int tr_syscall_begin(struct gt_thread *self);
void tr_syscall_end(struct gt_thread *self);

/* Annotations (annotations.c): one user event (UserTaskBegin/End, UserRegionBegin/End, UserLog)
 * with args followed by the caller's stack; bit i of strs marks args[i] as a string id. 1 if
 * written, 0 if the thread is not Running (nothing written). */
int tr_user_event(struct gt_thread *self, uint8_t type, int n, const uint64_t *args, unsigned strs);
/* Thread names: a named thread writes its name (t->name_str) as a GoLabel on its G once per
 * generation, when it next returns to Running, annotates, or exits; tr_label does it now. */
void tr_label(struct gt_thread *self);

/* Lifecycle (lifecycle.c): set-up on first use, flush before exec, final flush at exit. */
void tracer_init(void);
void tracer_flush_now(void); /* write the complete generations now */
/* Around the unloading of a library (dlclose): before, the generation in progress is written
 * while its code is still mapped, so its stacks are symbolized from it; after, the unwind rules,
 * stack memos and symbols kept by address are dropped (other code may be mapped there). */
void tracer_before_unload(void);
void tracer_after_unload(void);
/* Before exec: writes the complete generations and formats the environment entry that tells
 * the new image it continues this process (GT_EXEC_ENV=<pid>.<image>); 0 if not tracing. */
#define GT_EXEC_ENV "GOTRACE_EXEC_OF"
int tracer_before_exec(char *marker, size_t size);
void tracer_shutdown(void);
/* 0 in a child made without fork handlers (vfork, _Fork, clone): it must not touch the
 * tracer's state, which is its parent's. */
int tracer_in_own_process(void);
#endif
