/* syscalls.c: interposed system calls that may block, traced as GoSyscallBegin (with the
 * caller's stack) ... GoSyscallEnd: reads and writes, socket calls, opens and closes, syncs,
 * waits for children, file locks (flock, fcntl F_SETLKW). Futex calls made through syscall()
 * are sync waits and wakes (futex.c).
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
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- reads and writes ---- */

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
    return SYSCALL(REAL(read)(fd, buf, n));
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    return SYSCALL(REAL(write)(fd, buf, n));
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
    return SYSCALL(REAL(readv)(fd, iov, n));
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
    return SYSCALL(REAL(writev)(fd, iov, n));
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    return SYSCALL(REAL(pread)(fd, buf, n, off));
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    return SYSCALL(REAL(pread64)(fd, buf, n, off));
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

EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    return SYSCALL_IF(MAY_BLOCK(flags), REAL(recv)(fd, buf, n, flags));
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
                        socklen_t *len)
{
    return SYSCALL_IF(MAY_BLOCK(flags), REAL(recvfrom)(fd, buf, n, flags, from, len));
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
    return SYSCALL_IF(MAY_BLOCK(flags), REAL(recvmsg)(fd, msg, flags));
}

EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    return SYSCALL_IF(MAY_BLOCK(flags), REAL(send)(fd, buf, n, flags));
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *to,
                      socklen_t len)
{
    return SYSCALL_IF(MAY_BLOCK(flags), REAL(sendto)(fd, buf, n, flags, to, len));
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    return SYSCALL_IF(MAY_BLOCK(flags), REAL(sendmsg)(fd, msg, flags));
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
    return SYSCALL(REAL(accept)(fd, addr, len));
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
    return SYSCALL(REAL(accept4)(fd, addr, len, flags));
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

/* A descriptor opened for the tracer moves out of the program's range. */
#define OPENED(call)                                                                               \
    __extension__({                                                                                \
        int fd_ = SYSCALL(call);                                                                   \
        fd_ >= 0 && tr_inside() ? fds_high(fd_) : fd_;                                             \
    })

EXPORT int open(const char *path, int flags, ...)
{
    mode_t mode = OPEN_MODE(flags, flags);
    return OPENED(REAL(open)(path, flags, mode));
}

EXPORT int open64(const char *path, int flags, ...)
{
    mode_t mode = OPEN_MODE(flags, flags);
    return OPENED(REAL(open64)(path, flags, mode));
}

EXPORT int openat(int dir, const char *path, int flags, ...)
{
    mode_t mode = OPEN_MODE(flags, flags);
    return OPENED(REAL(openat)(dir, path, flags, mode));
}

EXPORT int openat64(int dir, const char *path, int flags, ...)
{
    mode_t mode = OPEN_MODE(flags, flags);
    return OPENED(REAL(openat64)(dir, path, flags, mode));
}

EXPORT int close(int fd)
{
    if (!fds_close_allowed(fd, tr_inside())) {
        errno = EBADF; /* not open, as far as the program (or libunwind's stale pipe) knows */
        return -1;
    }
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
    return SYSCALL_IF(FCNTL_WAITS(cmd), real(fd, cmd, arg))

EXPORT int fcntl(int fd, int cmd, ...)
{
    FCNTL_HOOK(REAL(fcntl), fd, cmd);
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
    FCNTL_HOOK(REAL(fcntl64), fd, cmd);
}

/* ---- children ---- */

/* A child reaped with status st (if known) that a signal ended may have left a live file. */
static void reaped(pid_t pid, const int *st)
{
    if (pid > 0 && (!st || WIFSIGNALED(*st))) tr_child_reaped(pid);
}

static inline int may_wait(int options)
{
    return !(options & WNOHANG);
}

/* Body of a hook that reaps a child and reports its status: a system call unless WNOHANG. */
#define REAP(options, status, call)                                                                \
    pid_t reaped_ = SYSCALL_IF(may_wait(options), call);                                           \
    reaped(reaped_, status);                                                                       \
    return reaped_

EXPORT pid_t wait(int *status)
{
    REAP(0, status, REAL(wait)(status));
}

EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
    REAP(options, status, REAL(waitpid)(pid, status, options));
}

EXPORT pid_t wait3(int *status, int options, struct rusage *usage)
{
    REAP(options, status, REAL(wait3)(status, options, usage));
}

EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage)
{
    REAP(options, status, REAL(wait4)(pid, status, options, usage));
}

EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
    int r = SYSCALL_IF(may_wait(options), REAL(waitid)(type, id, info, options));
    if (r == 0 && info && !(options & WNOWAIT) &&
        (info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED))
        tr_child_reaped(info->si_pid);
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
        if (fds_close_allowed((int)a[0], tr_inside())) return 0;
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
