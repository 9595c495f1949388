/* sigwaits.c: signals between processes. The calls that wait for a signal (sigsuspend, pause,
 * sigwait, sigwaitinfo, sigtimedwait, and a read of a signalfd that has nothing to read) are blocks
 * with the reason "signal: CALL" (docs/blocking.md "Across processes"), not running time: a
 * server's master asleep in sigsuspend is shown waiting. The calls that return the signal (the
 * sigwait family, a signalfd read) end their wait with a gotrace.ended log naming it and, when the
 * kernel says who sent it (si_code of a kill, sigqueue or tgkill, or SIGCHLD's child), the sender's
 * pid: "SIGUSR1 from pid 1234". A signal sent to another process (kill, sigqueue) is a gotrace.kill
 * log with the sender's stack, "SIGUSR1 to pid 1234" (killpg too: glibc's calls its kill inside):
 * what a merger blames a sigsuspend or pause on, whose signal the tracer cannot see. Invariants:
 * each hook returns what the real call returns, with its errno and its siginfo; the signal mask,
 * dispositions and pending signals are only touched by the real calls; the sigwait family tries
 * first (sigtimedwait with a zero timeout: a pending signal is taken without a block or an event,
 * as untraced) and only then blocks; a signal handler that runs inside sigsuspend or pause runs
 * while the thread is Waiting, so its hooked calls emit nothing (docs/blocking.md "Interleavings");
 * kill and sigqueue take the sender's record and the log's time before the real call, and log after
 * it, only if it succeeded (the tracer's own kills, lifecycle.c, call the real kill). */
#include "hooks.h"
#include "real.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* The gotrace.ended log of a wait that took signal info->si_signo: its name and, when the kernel
 * filled si_pid for it (sent by a process: SI_USER, SI_QUEUE, SI_TKILL and the other user
 * codes, which are <= 0; SIGCHLD: the child), the sender. */
GOTRACE_API_FN static void signal_ended(struct gt_thread *self, const siginfo_t *info)
{
    char text[96], sig[24];
    int saved = errno;
    sig_text(sig, info->si_signo);
    if (info->si_code <= 0 || info->si_signo == SIGCHLD)
        snprintf(text, sizeof text, "%s from pid %d, uid %u", sig, (int)info->si_pid,
                 (unsigned)info->si_uid);
    else
        snprintf(text, sizeof text, "%s", sig);
    tr_log(self, "gotrace.ended", text);
    errno = saved;
}

/* call (sigsuspend, pause) as a block of reason text: they always wait for a handler to run. */
#define SIGNAL_WAIT(text, call)                                                                    \
    __extension__({                                                                                \
        struct gt_thread *self_ = tr_current();                                                    \
        int traced_ = self_ && tr_block_text(self_, GT_R_SIGNAL, (text));                          \
        int r_ = (call);                                                                           \
        if (traced_) tr_unblock(self_);                                                            \
        r_;                                                                                        \
    })

EXPORT int sigsuspend(const sigset_t *mask)
{
    return SIGNAL_WAIT("signal: sigsuspend", REAL(sigsuspend)(mask));
}

EXPORT int pause(void)
{
    return SIGNAL_WAIT("signal: pause", REAL(pause)());
}

/* The sigwait family's shape: taken = the real sigtimedwait(set, info, zero) (a signal already
 * pending is taken there, no event); when none was (EAGAIN), a block of reason text, then call
 * (its result in taken), then the log of the signal it took. errno is the real call's. */
#define TRY_THEN_WAIT(self, set, info, text, taken, call)                                          \
    do {                                                                                           \
        static const struct timespec zero_;                                                        \
        int saved_ = errno;                                                                        \
        (taken) = REAL(sigtimedwait)((set), (info), &zero_);                                       \
        if ((taken) >= 0 || errno != EAGAIN) break;                                                \
        errno = saved_;                                                                            \
        int traced_ = tr_block_text((self), GT_R_SIGNAL, (text));                                  \
        (taken) = (call);                                                                          \
        if (traced_) {                                                                             \
            tr_unblock(self);                                                                      \
            if ((taken) > 0) signal_ended((self), (info));                                         \
        }                                                                                          \
    } while (0)

/* glibc's sigwait is sigtimedwait without a timeout, again after EINTR, returning the error
 * number instead of setting errno: the same here, through the real sigtimedwait. */
EXPORT int sigwait(const sigset_t *set, int *sig)
{
    struct gt_thread *self = tr_current();
    if (!self) return REAL(sigwait)(set, sig);
    siginfo_t si;
    int r;
    TRY_THEN_WAIT(self, set, &si, "signal: sigwait", r, ({
                      int w_;
                      do
                          w_ = REAL(sigtimedwait)(set, &si, NULL);
                      while (w_ < 0 && errno == EINTR);
                      w_;
                  }));
    while (r < 0 && errno == EINTR) /* the try itself was interrupted */
        r = REAL(sigtimedwait)(set, &si, NULL);
    if (r < 0) return errno;
    *sig = r;
    return 0;
}

EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
    struct gt_thread *self = tr_current();
    if (!self) return REAL(sigwaitinfo)(set, info);
    siginfo_t own, *in = info ? info : &own;
    int r;
    TRY_THEN_WAIT(self, set, in, "signal: sigwaitinfo", r, REAL(sigwaitinfo)(set, in));
    return r;
}

EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
    struct gt_thread *self = ts && !ts_waits(ts) ? NULL : tr_current(); /* zero: no wait */
    if (!self) return REAL(sigtimedwait)(set, info, ts);
    siginfo_t own, *in = info ? info : &own;
    int r;
    TRY_THEN_WAIT(self, set, in, "signal: sigtimedwait", r, REAL(sigtimedwait)(set, in, ts));
    return r;
}

/* ---- reads of a signalfd ---- */

/* The descriptors below SIGFD_MAX that signalfd made (set by the signalfd hook, cleared by
 * close, checked again before a read blocks: a descriptor dup'd or opened over a number whose
 * bit stayed set is not taken for one). One bit test on each read. */
#define SIGFD_MAX 1024
static _Atomic uint64_t sigfds[SIGFD_MAX / 64];

int sigfd_is(int fd)
{
    return fd >= 0 && fd < SIGFD_MAX &&
           (atomic_load_explicit(&sigfds[fd / 64], memory_order_relaxed) >> (fd % 64) & 1);
}

void sigfd_forget(int fd)
{
    if (sigfd_is(fd)) atomic_fetch_and(&sigfds[fd / 64], ~(1ull << (fd % 64)));
}

EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
    int r = REAL(signalfd)(fd, mask, flags);
    if (r >= 0 && r < SIGFD_MAX) atomic_fetch_or(&sigfds[r / 64], 1ull << (r % 64));
    return r;
}

/* Whether a read of fd would wait: nothing to read now (a zero-timeout poll) and fd blocking;
 * and fd still a signalfd (its /proc link), else its bit is dropped. Only before a read that
 * may block: a poll, an fcntl and a readlink. */
static int sigfd_would_wait(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char path[40], link[32];
    int saved = errno, wait = 0;
    if (REAL(poll)(&p, 1, 0) == 0 && !(REAL(fcntl)(fd, F_GETFL) & O_NONBLOCK)) {
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, link, sizeof link - 1);
        wait = n > 0 && (link[n] = 0, !strcmp(link, "anon_inode:[signalfd]"));
        if (!wait) sigfd_forget(fd);
    }
    errno = saved;
    return wait;
}

/* A read of signalfd fd that waits: a block "signal: signalfd", ended by the log of the first
 * signal read (its sender where the kernel says, as for sigwaitinfo). */
ssize_t sigfd_read(int fd, void *buf, size_t n)
{
    struct gt_thread *self = tr_current();
    if (!self || !sigfd_would_wait(fd)) return REAL(read)(fd, buf, n);
    int traced = tr_block_text(self, GT_R_SIGNAL, "signal: signalfd");
    ssize_t r = REAL(read)(fd, buf, n);
    if (traced) {
        tr_unblock(self);
        if (r >= (ssize_t)sizeof(struct signalfd_siginfo)) {
            const struct signalfd_siginfo *ss = buf;
            siginfo_t si = {.si_signo = (int)ss->ssi_signo, .si_code = ss->ssi_code};
            si.si_pid = (pid_t)ss->ssi_pid;
            si.si_uid = ss->ssi_uid;
            signal_ended(self, &si);
        }
    }
    return r;
}

/* ---- signals sent ---- */

/* Whether a signal sig sent to pid (kill's convention) is logged: not signal 0 (a probe), not
 * to this process itself (a signal of its own). */
static int logs_kill(pid_t pid, int sig)
{
    return sig > 0 && pid != getpid();
}

/* After signal sig was sent to pid (kill's convention) by traced thread self in a call begun at
 * ts (tr_clock): the gotrace.kill log, timed at ts (before the receiver could wake: a merged
 * trace links its wait to the sender). */
GOTRACE_API_FN static void sent(struct gt_thread *self, const char *how, pid_t pid, int sig,
                                uint64_t ts)
{
    int saved = errno;
    char text[96], name[24];
    sig_text(name, sig);
    if (pid > 0)
        snprintf(text, sizeof text, "%s to pid %d by %s", name, (int)pid, how);
    else if (pid == 0)
        snprintf(text, sizeof text, "%s to its process group by %s", name, how);
    else if (pid == -1)
        snprintf(text, sizeof text, "%s to every process by %s", name, how);
    else
        snprintf(text, sizeof text, "%s to process group %d by %s", name, (int)-pid, how);
    tr_log_at(self, "gotrace.kill", text, ts);
    errno = saved;
}

/* The sender's record is taken before the call: a forked child whose first traced call this is
 * takes up its thread there (its first events), so the log's time, read next, comes before the
 * signal can wake the receiver. */
EXPORT int kill(pid_t pid, int sig)
{
    struct gt_thread *self = logs_kill(pid, sig) ? tr_current() : NULL;
    uint64_t ts = self ? tr_clock() : 0;
    int r = REAL(kill)(pid, sig);
    if (self && r == 0) sent(self, "kill", pid, sig, ts);
    return r;
}

/* glibc's killpg is kill(-pgrp) inside itself, which the kill hook does not see. */
EXPORT int killpg(pid_t pgrp, int sig)
{
    struct gt_thread *self = pgrp >= 0 && logs_kill(-pgrp, sig) ? tr_current() : NULL;
    uint64_t ts = self ? tr_clock() : 0;
    int r = REAL(killpg)(pgrp, sig);
    if (self && r == 0) sent(self, "killpg", -pgrp, sig, ts);
    return r;
}

EXPORT int sigqueue(pid_t pid, int sig, const union sigval value)
{
    struct gt_thread *self = logs_kill(pid, sig) ? tr_current() : NULL;
    uint64_t ts = self ? tr_clock() : 0;
    int r = REAL(sigqueue)(pid, sig, value);
    if (self && r == 0) sent(self, "sigqueue", pid, sig, ts);
    return r;
}
