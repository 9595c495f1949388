/* real.h: the real (next in link order) versions of every function the tracer interposes,
 * resolved once (the condvar functions by their current symbol version, GT_COND_VERSION).
 * Invariants: real_init() is idempotent and safe to call from any hook before the constructor
 * has run (dlsym may allocate; we never interpose malloc); after it returns
 * every pointer is non-NULL or the tracer has disabled itself with one message; the two the
 * lock fast paths call unchecked (trylock, unlock) are never NULL: stubs that resolve first
 * stand in until then. Add a function
 * by adding one line to GT_REAL_FUNCS (name, return type, parameter list, symbol version or 0).
 */
#ifndef GOTRACE_REAL_H
#define GOTRACE_REAL_H
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

/* glibc exports two versions of the condvar functions; the current ones on x86_64. */
#define GT_COND_VERSION "GLIBC_2.3.2"

#define GT_REAL_FUNCS(X)                                                                           \
    X(pthread_create, int, (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *), 0)    \
    X(pthread_join, int, (pthread_t, void **), 0)                                                  \
    X(pthread_tryjoin_np, int, (pthread_t, void **), 0)                                            \
    X(pthread_timedjoin_np, int, (pthread_t, void **, const struct timespec *), 0)                 \
    X(pthread_clockjoin_np, int, (pthread_t, void **, clockid_t, const struct timespec *), 0)      \
    X(pthread_mutex_lock, int, (pthread_mutex_t *), 0)                                             \
    X(pthread_mutex_trylock, int, (pthread_mutex_t *), 0)                                          \
    X(pthread_mutex_timedlock, int, (pthread_mutex_t *, const struct timespec *), 0)               \
    X(pthread_mutex_clocklock, int, (pthread_mutex_t *, clockid_t, const struct timespec *), 0)    \
    X(pthread_mutex_unlock, int, (pthread_mutex_t *), 0)                                           \
    X(pthread_rwlock_rdlock, int, (pthread_rwlock_t *), 0)                                         \
    X(pthread_rwlock_wrlock, int, (pthread_rwlock_t *), 0)                                         \
    X(pthread_rwlock_tryrdlock, int, (pthread_rwlock_t *), 0)                                      \
    X(pthread_rwlock_trywrlock, int, (pthread_rwlock_t *), 0)                                      \
    X(pthread_rwlock_timedrdlock, int, (pthread_rwlock_t *, const struct timespec *), 0)           \
    X(pthread_rwlock_timedwrlock, int, (pthread_rwlock_t *, const struct timespec *), 0)           \
    X(pthread_rwlock_clockrdlock, int, (pthread_rwlock_t *, clockid_t, const struct timespec *),   \
      0)                                                                                           \
    X(pthread_rwlock_clockwrlock, int, (pthread_rwlock_t *, clockid_t, const struct timespec *),   \
      0)                                                                                           \
    X(pthread_rwlock_unlock, int, (pthread_rwlock_t *), 0)                                         \
    X(pthread_cond_wait, int, (pthread_cond_t *, pthread_mutex_t *), GT_COND_VERSION)              \
    X(pthread_cond_timedwait, int, (pthread_cond_t *, pthread_mutex_t *, const struct timespec *), \
      GT_COND_VERSION)                                                                             \
    X(pthread_cond_clockwait, int,                                                                 \
      (pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *), 0)                \
    X(pthread_cond_signal, int, (pthread_cond_t *), GT_COND_VERSION)                               \
    X(pthread_cond_broadcast, int, (pthread_cond_t *), GT_COND_VERSION)                            \
    X(sem_wait, int, (sem_t *), 0)                                                                 \
    X(sem_trywait, int, (sem_t *), 0)                                                              \
    X(sem_timedwait, int, (sem_t *, const struct timespec *), 0)                                   \
    X(sem_clockwait, int, (sem_t *, clockid_t, const struct timespec *), 0)                        \
    X(sem_post, int, (sem_t *), 0)                                                                 \
    X(pthread_barrier_wait, int, (pthread_barrier_t *), 0)                                         \
    X(pthread_mutex_init, int, (pthread_mutex_t *, const pthread_mutexattr_t *), 0)                \
    X(pthread_rwlock_init, int, (pthread_rwlock_t *, const pthread_rwlockattr_t *), 0)             \
    X(pthread_cond_init, int, (pthread_cond_t *, const pthread_condattr_t *), GT_COND_VERSION)     \
    X(sem_init, int, (sem_t *, int, unsigned), 0)                                                  \
    X(pthread_barrier_init, int, (pthread_barrier_t *, const pthread_barrierattr_t *, unsigned),   \
      0)                                                                                           \
    X(sleep, unsigned, (unsigned), 0)                                                              \
    X(usleep, int, (useconds_t), 0)                                                                \
    X(nanosleep, int, (const struct timespec *, struct timespec *), 0)                             \
    X(clock_nanosleep, int, (clockid_t, int, const struct timespec *, struct timespec *), 0)       \
    X(poll, int, (struct pollfd *, nfds_t, int), 0)                                                \
    X(ppoll, int, (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *), 0)         \
    X(select, int, (int, fd_set *, fd_set *, fd_set *, struct timeval *), 0)                       \
    X(pselect, int,                                                                                \
      (int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *), 0)           \
    X(epoll_wait, int, (int, struct epoll_event *, int, int), 0)                                   \
    X(epoll_pwait, int, (int, struct epoll_event *, int, int, const sigset_t *), 0)                \
    X(read, ssize_t, (int, void *, size_t), 0)                                                     \
    X(write, ssize_t, (int, const void *, size_t), 0)                                              \
    X(__read_chk, ssize_t, (int, void *, size_t, size_t), 0)                                       \
    X(__pread_chk, ssize_t, (int, void *, size_t, off_t, size_t), 0)                               \
    X(__pread64_chk, ssize_t, (int, void *, size_t, off64_t, size_t), 0)                           \
    X(__recv_chk, ssize_t, (int, void *, size_t, size_t, int), 0)                                  \
    X(__recvfrom_chk, ssize_t, (int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *), \
      0)                                                                                           \
    X(readv, ssize_t, (int, const struct iovec *, int), 0)                                         \
    X(writev, ssize_t, (int, const struct iovec *, int), 0)                                        \
    X(pread, ssize_t, (int, void *, size_t, off_t), 0)                                             \
    X(pread64, ssize_t, (int, void *, size_t, off64_t), 0)                                         \
    X(pwrite, ssize_t, (int, const void *, size_t, off_t), 0)                                      \
    X(pwrite64, ssize_t, (int, const void *, size_t, off64_t), 0)                                  \
    X(recv, ssize_t, (int, void *, size_t, int), 0)                                                \
    X(recvfrom, ssize_t, (int, void *, size_t, int, struct sockaddr *, socklen_t *), 0)            \
    X(recvmsg, ssize_t, (int, struct msghdr *, int), 0)                                            \
    X(send, ssize_t, (int, const void *, size_t, int), 0)                                          \
    X(sendto, ssize_t, (int, const void *, size_t, int, const struct sockaddr *, socklen_t), 0)    \
    X(sendmsg, ssize_t, (int, const struct msghdr *, int), 0)                                      \
    X(accept, int, (int, struct sockaddr *, socklen_t *), 0)                                       \
    X(accept4, int, (int, struct sockaddr *, socklen_t *, int), 0)                                 \
    X(connect, int, (int, const struct sockaddr *, socklen_t), 0)                                  \
    X(open, int, (const char *, int, ...), 0)                                                      \
    X(open64, int, (const char *, int, ...), 0)                                                    \
    X(openat, int, (int, const char *, int, ...), 0)                                               \
    X(openat64, int, (int, const char *, int, ...), 0)                                             \
    X(close, int, (int), 0)                                                                        \
    X(fsync, int, (int), 0)                                                                        \
    X(fdatasync, int, (int), 0)                                                                    \
    X(wait, pid_t, (int *), 0)                                                                     \
    X(waitpid, pid_t, (pid_t, int *, int), 0)                                                      \
    X(waitid, int, (idtype_t, id_t, siginfo_t *, int), 0)                                          \
    X(wait3, pid_t, (int *, int, struct rusage *), 0)                                              \
    X(wait4, pid_t, (pid_t, int *, int, struct rusage *), 0)                                       \
    X(__uflow, int, (FILE *), 0)                                                                   \
    X(__underflow, int, (FILE *), 0)                                                               \
    X(fgetc, int, (FILE *), 0)                                                                     \
    X(getc, int, (FILE *), 0)                                                                      \
    X(_IO_getc, int, (FILE *), 0)                                                                  \
    X(fgetc_unlocked, int, (FILE *), 0)                                                            \
    X(getc_unlocked, int, (FILE *), 0)                                                             \
    X(getchar, int, (void), 0)                                                                     \
    X(getchar_unlocked, int, (void), 0)                                                            \
    X(fread, size_t, (void *, size_t, size_t, FILE *), 0)                                          \
    X(fread_unlocked, size_t, (void *, size_t, size_t, FILE *), 0)                                 \
    X(__fread_chk, size_t, (void *, size_t, size_t, size_t, FILE *), 0)                            \
    X(__fread_unlocked_chk, size_t, (void *, size_t, size_t, size_t, FILE *), 0)                   \
    X(fgets, char *, (char *, int, FILE *), 0)                                                     \
    X(fgets_unlocked, char *, (char *, int, FILE *), 0)                                            \
    X(__fgets_chk, char *, (char *, size_t, int, FILE *), 0)                                       \
    X(__fgets_unlocked_chk, char *, (char *, size_t, int, FILE *), 0)                              \
    X(getdelim, ssize_t, (char **, size_t *, int, FILE *), 0)                                      \
    X(__getdelim, ssize_t, (char **, size_t *, int, FILE *), 0)                                    \
    X(getline, ssize_t, (char **, size_t *, FILE *), 0)                                            \
    X(__overflow, int, (FILE *, int), 0)                                                           \
    X(fputc, int, (int, FILE *), 0)                                                                \
    X(putc, int, (int, FILE *), 0)                                                                 \
    X(_IO_putc, int, (int, FILE *), 0)                                                             \
    X(fputc_unlocked, int, (int, FILE *), 0)                                                       \
    X(putc_unlocked, int, (int, FILE *), 0)                                                        \
    X(putchar, int, (int), 0)                                                                      \
    X(putchar_unlocked, int, (int), 0)                                                             \
    X(fwrite, size_t, (const void *, size_t, size_t, FILE *), 0)                                   \
    X(fwrite_unlocked, size_t, (const void *, size_t, size_t, FILE *), 0)                          \
    X(fputs, int, (const char *, FILE *), 0)                                                       \
    X(fputs_unlocked, int, (const char *, FILE *), 0)                                              \
    X(puts, int, (const char *), 0)                                                                \
    X(fflush, int, (FILE *), 0)                                                                    \
    X(fflush_unlocked, int, (FILE *), 0)                                                           \
    X(fclose, int, (FILE *), 0)                                                                    \
    X(flock, int, (int, int), 0)                                                                   \
    X(fcntl, int, (int, int, ...), 0)                                                              \
    X(fcntl64, int, (int, int, ...), 0)                                                            \
    X(syscall, long, (long, ...), 0)                                                               \
    X(execve, int, (const char *, char *const[], char *const[]), 0)                                \
    X(execv, int, (const char *, char *const[]), 0)                                                \
    X(execvp, int, (const char *, char *const[]), 0)                                               \
    X(execvpe, int, (const char *, char *const[], char *const[]), 0)                               \
    X(fexecve, int, (int, char *const[], char *const[]), 0)                                        \
    X(_exit, void, (int), 0)                                                                       \
    X(fork, pid_t, (void), 0)                                                                      \
    X(vfork, pid_t, (void), 0)                                                                     \
    X(posix_spawn, int,                                                                            \
      (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,       \
       char *const[], char *const[]),                                                              \
      0)                                                                                           \
    X(posix_spawnp, int,                                                                           \
      (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,       \
       char *const[], char *const[]),                                                              \
      0)                                                                                           \
    X(system, int, (const char *), 0)                                                              \
    X(popen, FILE *, (const char *, const char *), 0)                                              \
    X(pclose, int, (FILE *), 0)                                                                    \
    X(sigsuspend, int, (const sigset_t *), 0)                                                      \
    X(kill, int, (pid_t, int), 0)                                                                  \
    X(killpg, int, (pid_t, int), 0)                                                                \
    X(sigqueue, int, (pid_t, int, const union sigval), 0)                                          \
    X(pause, int, (void), 0)                                                                       \
    X(sigwait, int, (const sigset_t *, int *), 0)                                                  \
    X(sigwaitinfo, int, (const sigset_t *, siginfo_t *), 0)                                        \
    X(signalfd, int, (int, const sigset_t *, int), 0)                                              \
    X(sigtimedwait, int, (const sigset_t *, siginfo_t *, const struct timespec *), 0)              \
    X(_Exit, void, (int), 0)                                                                       \
    X(close_range, int, (unsigned, unsigned, int), 0)                                              \
    X(closefrom, void, (int), 0)                                                                   \
    X(dup2, int, (int, int), 0)                                                                    \
    X(dup3, int, (int, int, int), 0)                                                               \
    X(pipe2, int, (int[2], int), 0)                                                                \
    X(pipe, int, (int[2]), 0)                                                                      \
    X(dup, int, (int), 0)                                                                          \
    X(socket, int, (int, int, int), 0)                                                             \
    X(socketpair, int, (int, int, int, int[2]), 0)                                                 \
    X(abort, void, (void), 0)                                                                      \
    X(__assert_fail, void, (const char *, const char *, unsigned, const char *), 0)                \
    X(pthread_setname_np, int, (pthread_t, const char *), 0)                                       \
    X(prctl, int, (int, ...), 0)                                                                   \
    X(sigaction, int, (int, const struct sigaction *, struct sigaction *), 0)                      \
    X(signal, sighandler_t, (int, sighandler_t), 0)                                                \
    X(bsd_signal, sighandler_t, (int, sighandler_t), 0)                                            \
    X(ssignal, sighandler_t, (int, sighandler_t), 0)                                               \
    X(sysv_signal, sighandler_t, (int, sighandler_t), 0)                                           \
    X(__sysv_signal, sighandler_t, (int, sighandler_t), 0)                                         \
    X(sigset, sighandler_t, (int, sighandler_t), 0)                                                \
    X(sigaltstack, int, (const stack_t *, stack_t *), 0)                                           \
    X(mlockall, int, (int), 0)                                                                     \
    X(dlclose, int, (void *), 0)                                                                   \
    X(setuid, int, (uid_t), 0)                                                                     \
    X(seteuid, int, (uid_t), 0)                                                                    \
    X(setreuid, int, (uid_t, uid_t), 0)                                                            \
    X(setresuid, int, (uid_t, uid_t, uid_t), 0)                                                    \
    X(setfsuid, int, (uid_t), 0)

struct gt_real {
#define GT_REAL_FIELD(name, ret, params, ver) ret(*name) params;
    GT_REAL_FUNCS(GT_REAL_FIELD)
#undef GT_REAL_FIELD
    int (*libc_start_main)(int (*)(int, char **, char **), int, char **, void (*)(void),
                           void (*)(void), void (*)(void), void *);
};

extern struct gt_real gt_real;
void real_init(void);
/* Whether fn is libc's own code (not a sanitizer's or another interposer's in front of it). */
int real_in_libc(void *fn);
#define REAL(name) (gt_real.name ? gt_real.name : (real_init(), gt_real.name))
#endif
