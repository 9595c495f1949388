/* process.c: interposed process-level functions. Descriptors: close_range, closefrom,
 * dup2 and dup3 leave the tracer's kept descriptors alone (fds.h; close is hooked in
 * hooks/syscalls.c), and pipe2 called for the tracer (libunwind's validation pipe) puts the
 * pipe at high numbers. Ends: abort and __assert_fail write the complete generations first
 * (a flush, not the final write: a SIGABRT handler may longjmp and the program go on); a child
 * that fork returns while the process is dying of a fatal signal is killed (lifecycle.h
 * tr_forked). mlockall locks the program's memory, not the tracer's (util/memlock.h). setuid
 * and kin, before a change of effective user, have the tracer's files made ready for the new
 * user (lifecycle.h tr_before_user_change).
 * Invariants: to the program a kept descriptor does not exist (dup2/dup3 from it fail with
 * EBADF, onto it succeed after it moved away, a range close skips it); each hook otherwise
 * returns what the real function returns, with its errno. Nothing here changes a signal
 * disposition, mask or resource limit. */
#include "fds.h"
#include "hooks.h"
#include "memlock.h"
#include "pipes.h"
#include "real.h"
#include "stack.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <unistd.h>

EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
    int r = fds_close_range(lo, hi, flags, REAL(close_range));
    if (r == 0 && !(flags & CLOSE_RANGE_CLOEXEC)) pipes_forget_range(lo, hi); /* pipes.h */
    return r;
}

/* glibc's closefrom closes with close_range and falls back to /proc/self/fd on kernels
 * without it (< 5.9); the fallback cannot skip ours and is used only then. */
EXPORT void closefrom(int lo)
{
    int saved = errno;
    if (fds_close_range(lo < 0 ? 0 : (unsigned)lo, ~0U, 0, REAL(close_range)) != 0 &&
        errno == ENOSYS)
        REAL(closefrom)(lo);
    pipes_forget_range(lo < 0 ? 0 : (unsigned)lo, ~0U);
    errno = saved;
}

#define DUP_HOOK(from, to, call)                                                                   \
    if (!fds_dup_allowed(from, to)) {                                                              \
        errno = EBADF;                                                                             \
        return -1;                                                                                 \
    }                                                                                              \
    int r_ = call;                                                                                 \
    if (r_ >= 0) pipes_dup(from, to); /* pipes.h */                                                \
    return r_

EXPORT int dup2(int from, int to)
{
    DUP_HOOK(from, to, REAL(dup2)(from, to));
}

EXPORT int dup3(int from, int to, int flags)
{
    DUP_HOOK(from, to, REAL(dup3)(from, to, flags));
}

EXPORT int pipe2(int fds[2], int flags)
{
    int r = REAL(pipe2)(fds, flags);
    if (r == 0 && tr_inside()) {
        fds[0] = fds_keep(fds[0], NULL);
        fds[1] = fds_keep(fds[1], NULL);
    } else if (r == 0) {
        unsigned nb = flags & O_NONBLOCK ? PK_NONBLOCK : 0;
        pipes_note(fds[0], PK_READ | nb); /* pipes.h */
        pipes_note(fds[1], PK_WRITE | nb);
    }
    return r;
}

/* Privileges: a process that changes its effective user (a server dropping root) opens its
 * trace file if it had not (a forked worker) and gives its live file to the new user first
 * (lifecycle.h tr_before_user_change), so that the file is written and its clean end can still
 * remove the live file from the sticky /dev/shm. Group and capability changes need nothing:
 * the live file's owner is what decides, and it stays the process's user. */
EXPORT int setuid(uid_t uid)
{
    tr_before_user_change(uid);
    return REAL(setuid)(uid);
}

EXPORT int seteuid(uid_t euid)
{
    tr_before_user_change(euid);
    return REAL(seteuid)(euid);
}

EXPORT int setreuid(uid_t ruid, uid_t euid)
{
    tr_before_user_change(euid);
    return REAL(setreuid)(ruid, euid);
}

EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
    tr_before_user_change(euid);
    return REAL(setresuid)(ruid, euid, suid);
}

EXPORT int setfsuid(uid_t fsuid)
{
    tr_before_user_change(fsuid);
    return REAL(setfsuid)(fsuid);
}

/* The parent's record of a child it made: a gotrace.fork or gotrace.spawn log "pid PID" with
 * the creating call's stack (docs/blocking.md "Across processes"), the link a merger follows to the
 * child's trace. */
GOTRACE_API_FN void made_child(const char *key, pid_t pid)
{
    struct gt_thread *self = tr_current();
    char text[32];
    if (!self) return;
    int saved = errno;
    snprintf(text, sizeof text, "pid %d", pid);
    tr_log(self, key, text);
    errno = saved;
}

EXPORT pid_t fork(void)
{
    pid_t pid = REAL(fork)();
    if (pid > 0) {
        tr_forked(pid); /* touches no errno */
        made_child("gotrace.fork", pid);
    }
    return pid;
}

/* posix_spawn(p): the child's pid is known to the caller only through *pid, which may be NULL. */
#define SPAWN_HOOK(real, pid, path, fa, at, argv, envp)                                            \
    pid_t child_;                                                                                  \
    int r_ = real(&child_, path, fa, at, argv, envp);                                              \
    if (r_ == 0) {                                                                                 \
        made_child("gotrace.spawn", child_);                                                       \
        if (pid) *pid = child_;                                                                    \
    }                                                                                              \
    return r_

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
    SPAWN_HOOK(REAL(posix_spawn), pid, path, fa, at, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
    SPAWN_HOOK(REAL(posix_spawnp), pid, file, fa, at, argv, envp);
}

EXPORT void abort(void)
{
    tr_flush_dying();
    REAL(abort)();
    __builtin_unreachable();
}

EXPORT void __assert_fail(const char *expr, const char *file, unsigned line, const char *fn)
{
    tr_flush_dying();
    REAL(__assert_fail)(expr, file, line, fn);
    __builtin_unreachable();
}

/* The tracer is set up first: its memory exists before an MCL_FUTURE applies. */
EXPORT int mlockall(int flags)
{
    tr_init();
    return memlock_all(flags);
}
