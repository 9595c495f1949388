/* hooks.h: the shapes shared by the hooks of calls that wait (hooks/sync.c, hooks/sleep.c,
 * hooks/syscalls.c). Each shape is a macro (GNU statement expression) that expands inside
 * the hook: the hook stays the leaf frame of every stack the tracer captures (an inline
 * function would show as a frame of its own) and never tail-calls the API (stack.h).
 * Invariants: a shape's value is exactly the value of the real call it wraps, and errno is what
 * that call left (the tracer API preserves errno); with the thread untraced, inside the tracer
 * or not Running, only the real call happens. */
#ifndef GOTRACE_HOOKS_H
#define GOTRACE_HOOKS_H
#include "lifecycle.h"
#include "pipes.h"
#include "tracer.h"
#include "waitq.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Every interposed function (and the public annotation functions) is exported with this. */
#define EXPORT __attribute__((visibility("default")))

/* call, made by traced thread self as a wait: block (tr_block or tr_block_on: GoBlock with the
 * hook's stack), then enter (once blocked), the call, leave, back to Running. */
#define WAIT_WITH(self, block, enter, leave, call)                                                 \
    __extension__({                                                                                \
        int traced_ = (block);                                                                     \
        if (traced_) enter;                                                                        \
        __typeof__(call) r_ = (call);                                                              \
        if (traced_) {                                                                             \
            leave;                                                                                 \
            tr_unblock(self);                                                                      \
        }                                                                                          \
        r_;                                                                                        \
    })

/* The same, a wait on object key held by thread holder (a TID, 0 unknown), queued on key by
 * add (waitq.h) meanwhile so that a releaser can wake it. WAIT_ON: a lock's or futex word's
 * wait, numbered for the wakes by adds; WAIT_AS: a wait that only a signal, post, broadcast
 * or barrier's completion ends (waitq_wake, waitq_wake_if), with no holder. */
#define WAIT_QUEUED(self, key, reason, holder, add, call)                                          \
    WAIT_WITH(self, tr_block_on((self), (reason), (key), (holder)), add((key), (self)),            \
              waitq_remove(self), call)
#define WAIT_ON(self, key, reason, holder, call)                                                   \
    WAIT_QUEUED(self, key, reason, holder, waitq_add, call)
#define WAIT_AS(self, key, reason, call)                                                           \
    WAIT_QUEUED(self, key, reason, 0, waitq_add_unnumbered, call)

/* call as a wait that only the waiting thread can end (sleeps, readiness waits), when it may
 * wait at all (may_wait); otherwise just call. */
#define SELF_WAIT_IF(may_wait, reason, call)                                                       \
    __extension__({                                                                                \
        struct gt_thread *self_ = (may_wait) ? tr_current() : NULL;                                \
        self_ ? WAIT_WITH(self_, tr_block(self_, (reason)), (void)0, (void)0, (call)) : (call);    \
    })

/* call as a blocking system call (GoSyscallBegin with the hook's stack ... GoSyscallEnd) when
 * it may block at all (may_block); otherwise just call. */
#define SYSCALL_IF(may_block, call)                                                                \
    __extension__({                                                                                \
        struct gt_thread *self_ = (may_block) ? tr_current() : NULL;                               \
        int traced_ = self_ && tr_syscall_begin(self_);                                            \
        __typeof__(call) r_ = (call);                                                              \
        if (traced_) tr_syscall_end(self_);                                                        \
        r_;                                                                                        \
    })
#define SYSCALL(call) SYSCALL_IF(1, call)

/* A read or write of fd, as SYSCALL_IF; when it took GT_FD_WAITED_NS or more (it most likely
 * waited for the other end: a call that finds its data or room returns in a few us), fd is
 * named if it is a pipe, FIFO or Unix socket (tr_fd_waited: paid only then). */
#define GT_FD_WAITED_NS 50000
#define SYSCALL_FD_IF(may_block, fd, call)                                                         \
    __extension__({                                                                                \
        struct gt_thread *self_ = (may_block) ? tr_current() : NULL;                               \
        int traced_ = self_ && tr_syscall_begin(self_);                                            \
        __typeof__(call) r_ = (call);                                                              \
        if (traced_ && tr_syscall_end(self_) >= GT_FD_WAITED_NS) tr_fd_waited(self_, (fd));        \
        r_;                                                                                        \
    })
#define SYSCALL_FD(fd, call) SYSCALL_FD_IF(1, fd, call)
/* The same for a call that reads fd: the thread record notes fd while it runs
 * (tr_syscall_reads), for the hang check (GOTRACE_HANG_MS). */
#define SYSCALL_READ_FD_IF(may_block, fd, call)                                                    \
    __extension__({                                                                                \
        struct gt_thread *self_ = (may_block) ? tr_current() : NULL;                               \
        int traced_ = self_ && tr_syscall_begin(self_);                                            \
        if (traced_) tr_syscall_reads(self_, (fd));                                                \
        __typeof__(call) r_ = (call);                                                              \
        if (traced_ && tr_syscall_end(self_) >= GT_FD_WAITED_NS) tr_fd_waited(self_, (fd));        \
        r_;                                                                                        \
    })

/* ---- pipes, FIFOs and Unix sockets (pipes.c; util/pipes.h) ---- */

struct pipe_wait {
    uint64_t key; /* the writer's key (0: unknown, not queued) */
    int shared;   /* counted in the shared wait page */
};
enum { PIPE_DONE, PIPE_BLOCK, PIPE_CALL };
/* Whether reads of a descriptor of this kind are looked at with a poll (a FIFO, or RWF_NOWAIT
 * refused) instead of tried without waiting. */
int pipe_polls(unsigned kind);
/* Whether a read of fd would wait: blocking, still the table's, and (poll_first) nothing to
 * read now (a zero-timeout poll). errno kept. */
int pipe_would_wait(int fd, int poll_first);
/* After the nonblocking try of a read of fd failed (errno: its error; saved: errno before it):
 * PIPE_BLOCK (it would wait: errno back to saved; looked at only if the table says fd is
 * nonblocking), PIPE_DONE (the try's result is the call's), PIPE_CALL (make the real call: the
 * kernel refused the try, and nothing waits). */
int pipe_try_failed(int fd, int saved);
/* Whether a poll of fd for input that found nothing is fd's wait (PIPE_POLL): fd still the
 * table's, and not a listening socket (a connection ends its poll, not a write). errno kept. */
int pipe_poll_waits(int fd);
/* A read of fd named what ("read", "recv"; "poll", "select" for a wait of it) that will wait: the
 * block "pipe: WHAT OBJECT" (or "socket: ..."), queued for a writer thread and counted in the
 * shared page; 1 if traced. */
int pipe_block(struct gt_thread *self, int fd, const char *what, struct pipe_wait *pw);
/* After the real call: again, it failed with EAGAIN (fd was nonblocking after all). */
void pipe_unblock(struct gt_thread *self, int fd, int again, struct pipe_wait *pw);
/* Before a write to fd: a reader thread of this process waiting on it is woken (with the
 * hook's stack); else when another process's reader waits (the shared page), the
 * gotrace.write log naming the object ("pipe:[INO]"), with the hook's stack. */
void pipe_before_write(int fd);

/* A read-side call on fd (may_block: its flags allow a wait). On a descriptor the table knows
 * as a pipe's or FIFO's read end or a Unix socket, try (the same call without waiting) is made
 * first, as a system call (or a poll, pipe_polls); when it would have waited, the real call is
 * a block (pipe_block). Anything else: SYSCALL_FD_IF, as ever. */
#define PIPE_READ(may_block, fd, what, try, call)                                                  \
    __extension__({                                                                                \
        unsigned pk_ = (may_block) ? pipes_kind(fd) : 0;                                           \
        struct gt_thread *ps_ = (pk_ & PK_READ) ? tr_current() : NULL;                             \
        __typeof__(call) r_ = 0;                                                                   \
        int how_ = PIPE_CALL, saved_ = errno;                                                      \
        if (!ps_) {                                                                                \
            r_ = SYSCALL_READ_FD_IF(may_block, fd, call);                                          \
            how_ = PIPE_DONE;                                                                      \
        } else if (pipe_polls(pk_)) {                                                              \
            how_ = pipe_would_wait(fd, 1) ? PIPE_BLOCK : PIPE_CALL;                                \
        } else {                                                                                   \
            r_ = SYSCALL_FD(fd, try);                                                              \
            how_ = r_ < 0 ? pipe_try_failed(fd, saved_) : PIPE_DONE;                               \
        }                                                                                          \
        if (how_ == PIPE_CALL) r_ = SYSCALL_READ_FD_IF(1, fd, call);                               \
        if (how_ == PIPE_BLOCK) {                                                                  \
            struct pipe_wait pw_;                                                                  \
            int traced_ = pipe_block(ps_, fd, what, &pw_);                                         \
            r_ = (call);                                                                           \
            if (traced_) pipe_unblock(ps_, fd, r_ < 0 && errno == EAGAIN, &pw_);                   \
        }                                                                                          \
        r_;                                                                                        \
    })

/* A readiness wait (may_wait: its timeout is not zero) whose one descriptor, fd, is watched for
 * input and known to the table as a pipe's or FIFO's read end or a Unix socket (else fd is -1):
 * try (the same call with a zero timeout, leaving the call's arguments as they were when it
 * finds nothing) is made first, and is the call when it finds the descriptor ready (or fails);
 * when it finds nothing, the real call is the block "pipe: WHAT OBJECT" ("poll", "select"; or
 * "socket: ...") a writer ends, as a read's (pipe_block). Any other readiness
 * wait, a descriptor no longer the table's or a listening socket: the block "network"
 * (SELF_WAIT_IF), as ever. */
#define PIPE_POLL(may_wait, fd, what, try, call)                                                   \
    __extension__({                                                                                \
        int pf_ = (may_wait) ? (fd) : -1;                                                          \
        struct gt_thread *pp_ = pf_ >= 0 ? tr_current() : NULL;                                    \
        __typeof__(call) r_ = pp_ ? (try) : 0;                                                     \
        if (pp_ && r_ == 0 && pipe_poll_waits(pf_)) {                                              \
            struct pipe_wait pw_;                                                                  \
            int traced_ = pipe_block(pp_, pf_, (what), &pw_);                                      \
            r_ = (call);                                                                           \
            if (traced_) pipe_unblock(pp_, pf_, 0, &pw_);                                          \
        } else if (!pp_ || r_ == 0) {                                                              \
            r_ = SELF_WAIT_IF(may_wait, GT_R_NETWORK, call);                                       \
        }                                                                                          \
        r_;                                                                                        \
    })

/* A write-side call on fd: wakes or logs the end of a reader's wait (pipe_before_write) when
 * the table knows fd as a write end or a Unix socket; the call itself as SYSCALL_FD_IF. */
#define PIPE_WRITE(may_block, fd, call)                                                            \
    __extension__({                                                                                \
        if (__builtin_expect(pipes_kind(fd) & PK_WRITE, 0)) pipe_before_write(fd);                 \
        SYSCALL_FD_IF(may_block, fd, call);                                                        \
    })

/* A releaser self that knows it frees all n threads queued on key (n == INT_MAX: however many
 * there are) wakes them with its own stack; nothing when the queue holds another number. The
 * bucket's count (lock-free) decides: fewer than n queued, nothing to do; exactly n, the usual
 * case, the stack is captured and one locked look checks and wakes; more: nothing when all of
 * them wait on key (the bucket's sole key, also lock-free), else the key's waiters are counted
 * first, so that no stack is captured for nothing. A macro (not an inline function, which
 * symbolization would show as a frame) so the hook is the leaf. */
#define WAKE_IF(self, key, n)                                                                      \
    do {                                                                                           \
        int in_bucket_ = waitq_bucket_count(key);                                                  \
        if ((n) < 1 || in_bucket_ < ((n) == INT_MAX ? 1 : (n))) break;                             \
        if ((n) != INT_MAX && in_bucket_ > (n) &&                                                  \
            (waitq_bucket_only(key) || waitq_count(key) != (n)))                                   \
            break;                                                                                 \
        uint64_t stk_ = tr_stack();                                                                \
        waitq_wake_if((key), (self), stk_, (n));                                                   \
    } while (0)

/* A lock's releaser that frees it, around the real release. RELEASE_BEGIN, before it: whether
 * the lock may have a sole waiter to wake (lock-free hint: exactly one thread queued in key's
 * bucket; with more, several wait on key or other keys share the bucket, and waiters unblock
 * themselves), the bucket's adds, and the releaser's stack, captured while the waiter cannot
 * resume yet (a cold capture takes microseconds). RELEASE_END, after it: the wake itself
 * (bucket lock, state move, event), outside the critical section, of the waiter queued before
 * the release (waitq_wake_released). Macros so that the hook is the leaf frame. */
#define RELEASE_BEGIN(key, adds, stk)                                                              \
    __extension__({                                                                                \
        int want_ = waitq_bucket_count(key) == 1;                                                  \
        (adds) = waitq_adds(key);                                                                  \
        if (want_) (stk) = tr_stack();                                                             \
        want_;                                                                                     \
    })
#define RELEASE_END(self, key, adds, stk)                                                          \
    do {                                                                                           \
        if (waitq_has_waiters(key)) waitq_wake_released((key), (self), (stk), (adds));             \
    } while (0)

/* Timeouts that may make a call wait: not zero (and well formed, else the call fails at once). */
static inline int ts_waits(const struct timespec *ts)
{
    return ts && ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000L &&
           (ts->tv_sec | ts->tv_nsec) != 0;
}

/* Descriptors made by signalfd (sigwaits.c): whether fd is one (one bit test); fd closed; a
 * read of one, a signal wait when nothing is there to read. */
int sigfd_is(int fd);
void sigfd_forget(int fd);
ssize_t sigfd_read(int fd, void *buf, size_t n);

/* Children (docs/blocking.md "Across processes"): the parent's log of a child it made, key
 * gotrace.fork or gotrace.spawn, "pid PID", with the creating call's stack (process.c; nothing
 * when the thread is untraced); the gotrace.ended log of a wait of traced thread self that
 * blocked and saw child pid end (or stop, or continue) with status st (syscalls.c). */
void made_child(const char *key, pid_t pid);
void child_ended(struct gt_thread *self, pid_t pid, int st);

/* Signal sig's name ("SIGCHLD", "signal 40" for those glibc has no name for) in buf. */
static inline const char *sig_text(char buf[24], int sig)
{
    const char *n = sigabbrev_np(sig);
    if (n)
        snprintf(buf, 24, "SIG%s", n);
    else
        snprintf(buf, 24, "signal %d", sig);
    return buf;
}
#endif
