/* sleep.c: interposed sleeps (reason "sleep") and readiness waits (reason "network", the
 * word Go's I/O profile keys on): poll, ppoll, select, pselect, epoll_wait, epoll_pwait.
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

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    return SELF_WAIT_IF(timeout != 0, GT_R_NETWORK, REAL(poll)(fds, n, timeout));
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask)
{
    return SELF_WAIT_IF(tmo_waits(tmo), GT_R_NETWORK, REAL(ppoll)(fds, n, tmo, mask));
}

EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
    return SELF_WAIT_IF(tv_waits(tv), GT_R_NETWORK, REAL(select)(n, r, w, e, tv));
}

EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
                   const sigset_t *mask)
{
    return SELF_WAIT_IF(tmo_waits(ts), GT_R_NETWORK, REAL(pselect)(n, r, w, e, ts, mask));
}

EXPORT int epoll_wait(int ep, struct epoll_event *ev, int max, int timeout)
{
    return SELF_WAIT_IF(timeout != 0, GT_R_NETWORK, REAL(epoll_wait)(ep, ev, max, timeout));
}

EXPORT int epoll_pwait(int ep, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
    return SELF_WAIT_IF(timeout != 0, GT_R_NETWORK, REAL(epoll_pwait)(ep, ev, max, timeout, mask));
}
