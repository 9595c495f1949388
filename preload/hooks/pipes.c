/* pipes.c: pipes, FIFOs and Unix sockets as waits (docs/blocking.md "Pipes and sockets"). The
 * calls that make descriptors (pipe, socketpair, socket, dup; pipe2, dup2, dup3, accept, open
 * and close in process.c and syscalls.c) keep util/pipes.h's table; the read and write hooks
 * (syscalls.c, through PIPE_READ and PIPE_WRITE in hooks.h) call the helpers here when the
 * table knows the descriptor: a read that would wait is a block "pipe: read pipe:[INO]" that a
 * writer thread of the process wakes (a wait queue on the object's key), and that a writer in
 * another process of a recorded tree names by a gotrace.write log (the shared page says a
 * reader waits), written before the write: a write to a pipe or socket whose reader waits
 * does not fail but for a fault, and so the log comes before the wake-up, in the writer's
 * events (its write's syscall events follow) and in time.
 * Invariants: each hook returns what the real call returns, with its errno; a read that finds
 * data or end of file is made once (the nonblocking try is the read); a descriptor the program
 * set O_NONBLOCK gets the try's EAGAIN, as the real read would give; the helpers keep errno. */
#include "hooks.h"
#include "pipes.h"
#include "real.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

/* The kernel refused RWF_NOWAIT on a pipe (before Linux 5.x): every read is looked at with a
 * zero-timeout poll first. */
static atomic_int nowait_off;

int pipe_polls(unsigned kind)
{
    return (kind & PK_FIFO) || atomic_load_explicit(&nowait_off, memory_order_relaxed);
}

/* The wait queue key of the object a read of fd waits on: the key of the descriptor whose
 * writes end it (a socket's peer), with the top bit set (never an address); 0 unknown. */
static uint64_t writer_key(int fd, unsigned kind)
{
    if (!(kind & PK_SOCK)) return pipes_key(fd);
    uint64_t peer = pipes_peer(fd);
    return peer ? peer | PIPES_SOCK_TAG : 0;
}
#define WQ_KEY(k) ((void *)(uintptr_t)((k) | 1ull << 63))

int pipe_would_wait(int fd, int poll_first)
{
    int saved = errno, wait = 1;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll_first) wait = REAL(poll)(&p, 1, 0) == 0;
    if (wait) wait = !(REAL(fcntl)(fd, F_GETFL) & O_NONBLOCK) && pipes_still(fd);
    errno = saved;
    return wait;
}

int pipe_poll_waits(int fd)
{
    if (!pipes_still(fd)) return 0;
    if (!(pipes_kind(fd) & PK_SOCK)) return 1;
    int saved = errno, on = 0;
    socklen_t len = sizeof on;
    int listening = getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on;
    errno = saved;
    return !listening;
}

int pipe_try_failed(int fd, int saved)
{
    if (errno == EAGAIN) {
        /* made or set nonblocking: checked (and the bit dropped if it was cleared unseen) */
        if (pipes_kind(fd) & PK_NONBLOCK) {
            int fl = REAL(fcntl)(fd, F_GETFL);
            errno = EAGAIN;
            if (fl < 0 || (fl & O_NONBLOCK)) return PIPE_DONE;
            pipes_nonblock(fd, 0);
        }
        errno = saved;
        /* a number the table lost track of (now an uncached file, say): the real read */
        return pipes_still(fd) ? PIPE_BLOCK : PIPE_CALL;
    }
    if (errno != EOPNOTSUPP && errno != EINVAL) return PIPE_DONE;
    atomic_store_explicit(&nowait_off, 1, memory_order_relaxed); /* an older kernel */
    errno = saved;
    return pipe_would_wait(fd, 1) ? PIPE_BLOCK : PIPE_CALL;
}

GOTRACE_API_FN int pipe_block(struct gt_thread *self, int fd, const char *what,
                              struct pipe_wait *pw)
{
    int saved = errno;
    unsigned kind = pipes_kind(fd);
    char obj[PIPES_TEXT_MAX], reason[PIPES_TEXT_MAX + 32];
    pw->key = writer_key(fd, kind);
    pw->shared = 0;
    pipes_text(fd, pipes_key(fd) & (PIPES_SOCK_TAG - 1), obj, sizeof obj);
    snprintf(reason, sizeof reason, "%s: %s %s", kind & PK_SOCK ? "socket" : "pipe", what, obj);
    int traced = tr_block_text(self, kind & PK_SOCK ? GT_R_SOCKET : GT_R_PIPE, reason);
    if (traced) tr_syscall_reads(self, fd); /* the hang check's view (hang.h) */
    if (traced && pw->key) {
        waitq_add_unnumbered(WQ_KEY(pw->key), self);
        pw->shared = pipes_wait_begin(pw->key, pipes_key(fd) & (PIPES_SOCK_TAG - 1));
    }
    errno = saved;
    return traced;
}

GOTRACE_API_FN void pipe_unblock(struct gt_thread *self, int fd, int again, struct pipe_wait *pw)
{
    if (again) pipes_nonblock(fd, 1); /* nonblocking after all (ioctl FIONBIO, a shared flag) */
    if (pw->shared) pipes_wait_end(pw->key);
    if (pw->key) waitq_remove(self);
    tr_syscall_reads(self, -1);
    tr_unblock(self);
}

GOTRACE_API_FN void pipe_before_write(int fd)
{
    struct gt_thread *self = tr_current();
    if (!self) return;
    uint64_t key = pipes_key(fd), sock_ino = 0;
    void *wk = WQ_KEY(key);
    if (waitq_queued(wk) && waitq_wake(wk, self, tr_stack(), 1) > 0) return;
    if (!pipes_waited(key, &sock_ino) || !pipes_still(fd)) return;
    int saved = errno;
    char obj[PIPES_TEXT_MAX];
    pipes_text(fd, sock_ino, obj, sizeof obj);
    if (obj[0] && (sock_ino || !(pipes_kind(fd) & PK_SOCK))) tr_log(self, "gotrace.write", obj);
    errno = saved;
}

/* ---- descriptors made ---- */

EXPORT int pipe(int fds[2])
{
    int r = REAL(pipe)(fds);
    if (r == 0 && !tr_inside()) {
        pipes_note(fds[0], PK_READ);
        pipes_note(fds[1], PK_WRITE);
    }
    return r;
}

EXPORT int socketpair(int domain, int type, int proto, int sv[2])
{
    int r = REAL(socketpair)(domain, type, proto, sv);
    if (r == 0 && domain == AF_UNIX && !tr_inside()) {
        pipes_note_pair(sv[0], sv[1], type & SOCK_NONBLOCK);
    } else if (r == 0) {
        pipes_forget(sv[0]);
        pipes_forget(sv[1]);
    }
    return r;
}

EXPORT int socket(int domain, int type, int proto)
{
    int r = REAL(socket)(domain, type, proto);
    if (r >= 0 && domain == AF_UNIX && !tr_inside())
        pipes_note(r, PK_SOCK | (type & SOCK_NONBLOCK ? PK_NONBLOCK : 0));
    else if (r >= 0)
        pipes_forget(r);
    return r;
}

EXPORT int dup(int fd)
{
    int r = REAL(dup)(fd);
    if (r >= 0) pipes_dup(fd, r);
    return r;
}
