/* syscalls.c: interposed system calls that may block, traced as GoSyscallBegin (with the
 * caller's stack) ... GoSyscallEnd: reads and writes, socket calls, opens and closes, syncs,
 * file locks (flock, fcntl F_SETLKW); a read of a pipe, FIFO or Unix socket that would wait is
 * a block instead, and a write to one wakes or logs its reader (PIPE_READ, PIPE_WRITE:
 * pipes.c); a read or write that took long enough to have waited names a pipe, FIFO or Unix
 * socket (tr_fd_waited). Waits for children (wait, waitpid, wait3,
 * wait4, waitid) are blocks "wait: child PID" that a gotrace.ended log ends (docs/blocking.md
 * "Across processes"). Futex calls made through syscall() are sync waits and wakes (futex.c).
 * Invariants: each hook returns exactly what the real function returns, with the same errno;
 * variadic arguments are forwarded as the real function reads them (open's mode only when the
 * flags need one, fcntl's argument as a pointer-sized word, syscall's six words); a call that
 * cannot block (WNOHANG, LOCK_NB, MSG_DONTWAIT, fcntl other than the waiting lock commands,
 * syscall() other than a futex call) passes straight through. What the tracer opens goes to
 * a high descriptor number, and the tracer's kept descriptors look closed to the program
 * (fds.h), through syscall(SYS_close / SYS_close_range / SYS_dup2 / SYS_dup3) as well; a
 * syscall(SYS_rt_sigaction) that reads the tracer's handler reads the program's view instead
 * (sigown.h). */
#include "fds.h"
#include "futex.h"
#include "hooks.h"
#include "real.h"
#include "sigown.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- reads and writes ---- */

/* One iovec, for the nonblocking try of a read (RWF_NOWAIT: pipes and sockets honour it). */
#define TRY_READ(fd, buf, n) preadv2((fd), &(struct iovec){(buf), (n)}, 1, -1, RWF_NOWAIT)

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
    if (__builtin_expect(sigfd_is(fd), 0)) return sigfd_read(fd, buf, n); /* sigwaits.c */
    return PIPE_READ(1, fd, "read", TRY_READ(fd, buf, n), REAL(read)(fd, buf, n));
}

/* Fortified builds' read (-D_FORTIFY_SOURCE, the buffer's size cap known): a read larger than
 * its buffer is glibc's own failure, anything else read's hook. */
EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t cap)
{
    if (n > cap) return REAL(__read_chk)(fd, buf, n, cap);
    if (__builtin_expect(sigfd_is(fd), 0)) return sigfd_read(fd, buf, n);
    return PIPE_READ(1, fd, "read", TRY_READ(fd, buf, n), REAL(read)(fd, buf, n));
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    return PIPE_WRITE(1, fd, REAL(write)(fd, buf, n));
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
    return PIPE_READ(1, fd, "readv", preadv2(fd, iov, n, -1, RWF_NOWAIT), REAL(readv)(fd, iov, n));
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
    return PIPE_WRITE(1, fd, REAL(writev)(fd, iov, n));
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    return SYSCALL(REAL(pread)(fd, buf, n, off));
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    return SYSCALL(REAL(pread64)(fd, buf, n, off));
}

EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t cap)
{
    return SYSCALL_IF(n <= cap, REAL(__pread_chk)(fd, buf, n, off, cap));
}

EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t cap)
{
    return SYSCALL_IF(n <= cap, REAL(__pread64_chk)(fd, buf, n, off, cap));
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    return SYSCALL(REAL(pwrite)(fd, buf, n, off));
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    return SYSCALL(REAL(pwrite64)(fd, buf, n, off));
}

/* ---- sockets ---- */

#define MAY_BLOCK(flags) (!((flags)&MSG_DONTWAIT))
/* A receive that may be a pipe wait (PIPE_READ): not MSG_WAITALL, whose try would return part. */
#define MAY_TRY(flags) (!((flags) & (MSG_DONTWAIT | MSG_WAITALL)))
#define RECV_HOOK(fd, flags, what, call_with)                                                      \
    return MAY_TRY(flags)                                                                          \
               ? PIPE_READ(1, fd, what, call_with((flags) | MSG_DONTWAIT), call_with(flags))       \
               : SYSCALL_READ_FD_IF(MAY_BLOCK(flags), fd, call_with(flags))

EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
#define RECV_CALL(f) REAL(recv)(fd, buf, n, f)
    RECV_HOOK(fd, flags, "recv", RECV_CALL);
#undef RECV_CALL
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
                        socklen_t *len)
{
#define RECVFROM_CALL(f) REAL(recvfrom)(fd, buf, n, f, from, len)
    RECV_HOOK(fd, flags, "recvfrom", RECVFROM_CALL);
#undef RECVFROM_CALL
}

/* Fortified builds' receives: larger than the buffer, glibc's own failure. */
EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t cap, int flags)
{
    if (n > cap) return REAL(__recv_chk)(fd, buf, n, cap, flags);
#define RECV_CALL(f) REAL(recv)(fd, buf, n, f)
    RECV_HOOK(fd, flags, "recv", RECV_CALL);
#undef RECV_CALL
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t cap, int flags,
                              struct sockaddr *from, socklen_t *len)
{
    if (n > cap) return REAL(__recvfrom_chk)(fd, buf, n, cap, flags, from, len);
#define RECVFROM_CALL(f) REAL(recvfrom)(fd, buf, n, f, from, len)
    RECV_HOOK(fd, flags, "recvfrom", RECVFROM_CALL);
#undef RECVFROM_CALL
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
#define RECVMSG_CALL(f) REAL(recvmsg)(fd, msg, f)
    RECV_HOOK(fd, flags, "recvmsg", RECVMSG_CALL);
#undef RECVMSG_CALL
}

EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    return PIPE_WRITE(MAY_BLOCK(flags), fd, REAL(send)(fd, buf, n, flags));
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to,
                      socklen_t len)
{
    return PIPE_WRITE(MAY_BLOCK(flags), fd, REAL(sendto)(fd, buf, n, flags, to, len));
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    return PIPE_WRITE(MAY_BLOCK(flags), fd, REAL(sendmsg)(fd, msg, flags));
}

/* An accepted connection of a Unix socket the table knows is one too. */
#define ACCEPTED(lfd, r, flags)                                                                    \
    ((r) < 0 ? (void)0                                                                             \
     : (pipes_kind(lfd) & PK_SOCK)                                                                 \
         ? pipes_note((r), PK_SOCK | ((flags)&SOCK_NONBLOCK ? PK_NONBLOCK : 0))                    \
         : pipes_forget(r))

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
    int r = SYSCALL(REAL(accept)(fd, addr, len));
    ACCEPTED(fd, r, 0);
    return r;
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    int r = SYSCALL(REAL(accept4)(fd, addr, len, flags));
    ACCEPTED(fd, r, flags);
    return r;
}

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
    return SYSCALL(REAL(connect)(fd, addr, len));
}

/* ---- files ---- */

/* The mode argument of open(at), read only when the flags say there is one. */
#define OPEN_MODE(flags, last)                                                                     \
    __extension__({                                                                                \
        mode_t mode_ = 0;                                                                          \
        if (__OPEN_NEEDS_MODE(flags)) {                                                            \
            va_list ap_;                                                                           \
            va_start(ap_, last);                                                                   \
            mode_ = va_arg(ap_, mode_t);                                                           \
            va_end(ap_);                                                                           \
        }                                                                                          \
        mode_;                                                                                     \
    })

/* A descriptor opened for the tracer moves out of the program's range; one the program opened
 * is noted if it is a FIFO (pipes.h: an fstat). */
#define OPENED(call, flags)                                                                        \
    __extension__({                                                                                \
        int fd_ = SYSCALL(call);                                                                   \
        if (fd_ >= 0 && !tr_inside()) pipes_opened(fd_, flags);                                    \
        fd_ >= 0 && tr_inside() ? fds_high(fd_) : fd_;                                             \
    })

EXPORT int open(const char *path, int flags, ...)
{
    mode_t mode = OPEN_MODE(flags, flags);
    return OPENED(REAL(open)(path, flags, mode), flags);
}

EXPORT int open64(const char *path, int flags, ...)
{
    mode_t mode = OPEN_MODE(flags, flags);
    return OPENED(REAL(open64)(path, flags, mode), flags);
}

EXPORT int openat(int dir, const char *path, int flags, ...)
{
    mode_t mode = OPEN_MODE(flags, flags);
    return OPENED(REAL(openat)(dir, path, flags, mode), flags);
}

EXPORT int openat64(int dir, const char *path, int flags, ...)
{
    mode_t mode = OPEN_MODE(flags, flags);
    return OPENED(REAL(openat64)(dir, path, flags, mode), flags);
}

EXPORT int close(int fd)
{
    if (!fds_close_allowed(fd, tr_inside())) {
        errno = EBADF; /* not open, as far as the program (or libunwind's stale pipe) knows */
        return -1;
    }
    sigfd_forget(fd);
    pipes_forget(fd);
    return SYSCALL(REAL(close)(fd));
}

EXPORT int fsync(int fd)
{
    return SYSCALL(REAL(fsync)(fd));
}

EXPORT int fdatasync(int fd)
{
    return SYSCALL(REAL(fdatasync)(fd));
}

EXPORT int flock(int fd, int op)
{
    return SYSCALL_IF(!(op & LOCK_NB), REAL(flock)(fd, op));
}

/* fcntl's third argument is an int or a pointer: glibc reads it as a pointer-sized word. */
#define FCNTL_WAITS(cmd) (cmd == F_SETLKW || cmd == F_OFD_SETLKW)
#define FCNTL_HOOK(real, fd, cmd)                                                                  \
    va_list ap;                                                                                    \
    va_start(ap, cmd);                                                                             \
    void *arg = va_arg(ap, void *);                                                                \
    va_end(ap);                                                                                    \
    int r = SYSCALL_IF(FCNTL_WAITS(cmd), real(fd, cmd, arg));                                      \
    if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) pipes_dup(fd, r); /* pipes.h */      \
    if (r == 0 && cmd == F_SETFL) pipes_nonblock(fd, (int)(intptr_t)arg &O_NONBLOCK);              \
    return r

EXPORT int fcntl(int fd, int cmd, ...)
{
    FCNTL_HOOK(REAL(fcntl), fd, cmd);
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
    FCNTL_HOOK(REAL(fcntl64), fd, cmd);
}

/* ---- children: waits for a child are blocks (docs/blocking.md "Across processes") ---- */

/* A child reaped with status st that a signal ended may have left a live file. */
static void reaped(pid_t pid, const int *st)
{
    if (pid > 0 && WIFSIGNALED(*st)) tr_child_reaped(pid);
}

static inline int may_wait(int options)
{
    return !(options & WNOHANG);
}

/* The reason of a wait for the children that pid selects (waitpid's convention), in buf. */
static const char *child_reason(char *buf, size_t cap, long pid)
{
    if (pid == -1) return "wait: any child";
    if (pid == 0) return "wait: any child of its group";
    if (pid > 0)
        snprintf(buf, cap, "wait: child %ld", pid);
    else
        snprintf(buf, cap, "wait: any child of group %ld", -pid);
    return buf;
}

/* After a wait that blocked and reaped (or saw stop or continue) child pid with status st: the
 * gotrace.ended log "child PID exited, status N" and kin, with the waiting call's stack. */
GOTRACE_API_FN void child_ended(struct gt_thread *self, pid_t pid, int st)
{
    char text[96], sig[24];
    int saved = errno;
    if (WIFEXITED(st))
        snprintf(text, sizeof text, "child %d exited, status %d", pid, WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(text, sizeof text, "child %d killed by %s", pid, sig_text(sig, WTERMSIG(st)));
    else if (WIFSTOPPED(st))
        snprintf(text, sizeof text, "child %d stopped by %s", pid, sig_text(sig, WSTOPSIG(st)));
    else
        snprintf(text, sizeof text, "child %d continued", pid);
    tr_log(self, "gotrace.ended", text);
    errno = saved;
}

/* Body of a hook that waits for children (call(options) makes the real call, its status in
 * *st, never NULL). WNOHANG: just the call. Else the call is tried with WNOHANG first (a child
 * already done: no event, as an uncontended lock), and only if none is ready yet it is a block
 * ("wait: child PID", sel the pid argument) ended by the real call, followed by the
 * gotrace.ended log naming the child. Results, errno and the status are the real call's (the
 * try returns 0 and touches neither errno nor the status when no child is ready). */
#define REAP(options, sel, st, call)                                                               \
    struct gt_thread *self_ = may_wait(options) ? tr_current() : NULL;                             \
    pid_t r_ = call(self_ ? (options) | WNOHANG : (options));                                      \
    if (self_ && r_ == 0) {                                                                        \
        char why_[48];                                                                             \
        int traced_ = tr_block_text(self_, GT_R_CHILD, child_reason(why_, sizeof why_, sel));      \
        r_ = call(options);                                                                        \
        if (traced_) {                                                                             \
            tr_unblock(self_);                                                                     \
            if (r_ > 0) child_ended(self_, r_, *(st));                                             \
        }                                                                                          \
    }                                                                                              \
    reaped(r_, st);                                                                                \
    return r_

EXPORT pid_t wait(int *status)
{
    int own, *st = status ? status : &own;
#define WAIT_CALL(o) REAL(wait4)(-1, st, o, NULL)
    REAP(0, -1, st, WAIT_CALL);
#undef WAIT_CALL
}

EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
    int own, *st = status ? status : &own;
#define WAITPID_CALL(o) REAL(waitpid)(pid, st, o)
    REAP(options, pid, st, WAITPID_CALL);
#undef WAITPID_CALL
}

EXPORT pid_t wait3(int *status, int options, struct rusage *usage)
{
    int own, *st = status ? status : &own;
#define WAIT3_CALL(o) REAL(wait3)(st, o, usage)
    REAP(options, -1, st, WAIT3_CALL);
#undef WAIT3_CALL
}

EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage)
{
    int own, *st = status ? status : &own;
#define WAIT4_CALL(o) REAL(wait4)(pid, st, o, usage)
    REAP(options, pid, st, WAIT4_CALL);
#undef WAIT4_CALL
}

/* waitid's selection as waitpid's pid argument (P_PIDFD: any child, its pid unknown here). */
static long waitid_sel(idtype_t type, id_t id)
{
    return type == P_PID ? (long)id : type == P_PGID ? (id ? -(long)id : 0) : -1;
}

/* The status waitid's info gives (si_code CLD_*, si_status), as wait's status word. */
static int waitid_status(const siginfo_t *info)
{
    switch (info->si_code) {
    case CLD_EXITED:
        return (info->si_status & 0xff) << 8;
    case CLD_KILLED:
    case CLD_DUMPED:
        return info->si_status & 0x7f;
    case CLD_STOPPED:
    case CLD_TRAPPED:
        return (info->si_status & 0xff) << 8 | 0x7f;
    default:
        return 0xffff; /* continued */
    }
}

/* waitid: the same shape, the child and its status read from info (the try with WNOHANG
 * returns 0 with si_pid 0 when no child is ready). */
EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
    siginfo_t own, *in = info ? info : &own;
    struct gt_thread *self = may_wait(options) ? tr_current() : NULL;
    int r = REAL(waitid)(type, id, in, self ? options | WNOHANG : options);
    if (self && r == 0 && in->si_pid == 0) {
        char why[48];
        int traced =
            tr_block_text(self, GT_R_CHILD, child_reason(why, sizeof why, waitid_sel(type, id)));
        r = REAL(waitid)(type, id, in, options);
        if (traced) {
            tr_unblock(self);
            if (r == 0 && in->si_pid > 0) child_ended(self, in->si_pid, waitid_status(in));
        }
    }
    if (r == 0 && !(options & WNOWAIT) && (in->si_code == CLD_KILLED || in->si_code == CLD_DUMPED))
        tr_child_reaped(in->si_pid);
    return r;
}

/* ---- syscall(): futex calls followed (futex.c); descriptor calls kept off the tracer's ---- */

static int raw_close_range(unsigned lo, unsigned hi, int flags)
{
    return (int)REAL(syscall)(SYS_close_range, lo, hi, flags);
}

/* The descriptor calls of fds.h made as raw system calls: the same rules as their functions.
 * int arguments arrive in long words whose upper half is undefined: cast before use. 1 if
 * handled (result in *r), 0 to forward. */
static int fd_syscall(long nr, const long a[6], long *r)
{
    switch (nr) {
    case SYS_close:
        if (fds_close_allowed((int)a[0], tr_inside())) {
            pipes_forget((int)a[0]);
            return 0;
        }
        break;
    case SYS_dup2:
    case SYS_dup3:
        if (fds_dup_allowed((int)a[0], (int)a[1])) return 0;
        break;
    case SYS_close_range:
        *r = fds_close_range((unsigned)a[0], (unsigned)a[1], (int)a[2], raw_close_range);
        return 1;
    default:
        return 0;
    }
    errno = EBADF;
    *r = -1;
    return 1;
}

EXPORT long syscall(long nr, ...)
{
    va_list ap;
    long a[6], r;
    va_start(ap, nr);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (fd_syscall(nr, a, &r) || futex_call(nr, a, &r)) return r;
    if (nr == SYS_exit_group) _exit((int)a[0]); /* the hook: the last generation first */
    r = REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (nr == SYS_rt_sigaction && r == 0 && a[2]) /* the tracer's handler is never shown */
        sigown_seen_kernel((int)a[0], (void *)a[2]);
    return r;
}
