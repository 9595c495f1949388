/* sleep.c: interposed sleeps (reason "sleep") and readiness waits (reason "network", the
 * word Go's I/O profile keys on): poll, ppoll, select, pselect, epoll_wait, epoll_pwait. A poll,
 * ppoll, select or pselect of one pipe or Unix socket for input is instead a wait a writer
 * ends, as a read of it is (hooks.h PIPE_POLL; docs/blocking.md "Pipes and sockets").
 * Invariants: each hook returns exactly what the real function returns, with the same errno;
 * only the sleeping thread knows when its wait ends, so it unblocks itself when the call
 * returns; a call that cannot wait (zero or malformed duration, zero timeout) emits nothing. */
#include "hooks.h"
#include "real.h"

#include <unistd.h>

/* A select timeout that may wait: none (forever) or not zero. */
static int tv_waits(const struct timeval *tv)
{
    return !tv || tv->tv_sec || tv->tv_usec;
}
/* A ppoll/pselect timeout that may wait: none (forever) or not zero. */
static int tmo_waits(const struct timespec *ts)
{
    return !ts || ts->tv_sec || ts->tv_nsec;
}

/* ---- sleeps ---- */

EXPORT unsigned sleep(unsigned seconds)
{
    return SELF_WAIT_IF(seconds != 0, GT_R_SLEEP, REAL(sleep)(seconds));
}

EXPORT int usleep(useconds_t usec)
{
    return SELF_WAIT_IF(usec != 0, GT_R_SLEEP, REAL(usleep)(usec));
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
    return SELF_WAIT_IF(ts_waits(req), GT_R_SLEEP, REAL(nanosleep)(req, rem));
}

/* An absolute time may lie in the past; it is a (short) wait all the same. */
EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                           struct timespec *rem)
{
    return SELF_WAIT_IF((flags & TIMER_ABSTIME) || ts_waits(req), GT_R_SLEEP,
                        REAL(clock_nanosleep)(clk, flags, req, rem));
}

/* ---- readiness waits ---- */

/* The one descriptor a poll of fds (n of them) watches, when it watches it for input only and
 * the table knows it as a pipe's or FIFO's read end or a Unix socket; else -1. (Not const:
 * glibc declares poll's fds write-only, and GCC takes a const pointer for a read of it.) */
static int poll_pipe(struct pollfd *fds, nfds_t n)
{
    if (n != 1 || !fds) return -1;
    short in = POLLIN | POLLRDNORM, out = POLLOUT | POLLWRNORM | POLLWRBAND;
    if (!(fds->events & in) || (fds->events & out)) return -1;
    return pipes_kind(fds->fd) & PK_READ ? fds->fd : -1;
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    return PIPE_POLL(timeout != 0, poll_pipe(fds, n), "poll", REAL(poll)(fds, n, 0),
                     REAL(poll)(fds, n, timeout));
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask)
{
    static const struct timespec zero;
    return PIPE_POLL(tmo_waits(tmo), poll_pipe(fds, n), "poll", REAL(ppoll)(fds, n, &zero, mask),
                     REAL(ppoll)(fds, n, tmo, mask));
}

/* Whether set s (NULL: none) holds no descriptor below n, or (one) exactly one: its number. */
static int set_bits(const fd_set *s, int n, int one)
{
    int fd = -1;
    for (int i = 0; s && i * __NFDBITS < n; i++) {
        __fd_mask b = __FDS_BITS(s)[i];
        if (n - i * __NFDBITS < __NFDBITS) b &= ((__fd_mask)1 << (n - i * __NFDBITS)) - 1;
        if (b && (!one || fd >= 0 || (b & (b - 1)))) return -2;
        if (b) fd = i * __NFDBITS + __builtin_ctzl((unsigned long)b);
    }
    return one ? fd : fd == -1 ? 0 : -2;
}

/* The one descriptor a select of n watches, when it watches it for input only (one of r, none
 * of w and e) and the table knows it as a pipe's or FIFO's read end or a Unix socket; else -1. */
static int select_pipe(int n, const fd_set *r, const fd_set *w, const fd_set *e)
{
    if (n <= 0 || n > FD_SETSIZE) return -1;
    int fd = set_bits(r, n, 1);
    if (fd < 0 || set_bits(w, n, 0) || set_bits(e, n, 0)) return -1;
    return pipes_kind(fd) & PK_READ ? fd : -1;
}

/* A select's or pselect's try's result r (a zero timeout): when nothing was ready, the read set
 * the kernel cleared holds fd again, as the call found it (its other sets held nothing). */
static int select_tried(int r, fd_set *rs, int fd)
{
    if (r == 0) FD_SET(fd, rs);
    return r;
}

/* A select that finds its descriptor ready at once leaves *tv as given (the real call would
 * subtract the microsecond or less it took). */
EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
    int may = tv_waits(tv), fd = may ? select_pipe(n, r, w, e) : -1;
    struct timeval zero = {0, 0};
    return PIPE_POLL(may, fd, "select", select_tried(REAL(select)(n, r, w, e, &zero), r, fd),
                     REAL(select)(n, r, w, e, tv));
}

EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
                   const sigset_t *mask)
{
    int may = tmo_waits(ts), fd = may ? select_pipe(n, r, w, e) : -1;
    static const struct timespec zero;
    return PIPE_POLL(may, fd, "select", select_tried(REAL(pselect)(n, r, w, e, &zero, mask), r, fd),
                     REAL(pselect)(n, r, w, e, ts, mask));
}

EXPORT int epoll_wait(int ep, struct epoll_event *ev, int max, int timeout)
{
    return SELF_WAIT_IF(timeout != 0, GT_R_NETWORK, REAL(epoll_wait)(ep, ev, max, timeout));
}

EXPORT int epoll_pwait(int ep, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
    return SELF_WAIT_IF(timeout != 0, GT_R_NETWORK, REAL(epoll_pwait)(ep, ev, max, timeout, mask));
}
