/* pipes.h: the program's pipes, FIFOs and Unix sockets, and who waits on them across the
 * process tree (docs/blocking.md "Pipes and sockets"). Two parts, one owner:
 * - the descriptor table: for each descriptor below PIPES_FD_MAX the tracer saw made (pipe,
 *   pipe2, socketpair, socket, accept, open of a FIFO, the dup family) or found open at its
 *   start (/proc/self/fd), what it is: a pipe's or FIFO's read or write end, a Unix socket, with
 *   the object's key (its inode; a FIFO's device too). Read with one load on every read and
 *   write, so that ordinary files cost nothing more; cleared by close, close_range, dup2 over it.
 * - the shared wait page, under `gotrace record`: a page of a file every process of the tree
 *   maps (GOTRACE_WAITS), where a reader that blocks on a pipe or socket counts itself in a slot
 *   of the object's key while it waits, so that a writer in another process knows its write
 *   ends a wait (its tracer then logs it). Without the variable nothing is shared.
 * Invariants: no lock, no allocation; a table entry is one word (kind | key), stale when the
 * program closed the number behind the hooks' back (glibc's internal close), so the hooks check
 * it (pipes_still) before acting on a wait; a slot is one word (key | count), changed by CAS
 * only, so a count never goes below zero and a slot is free again when its count is. */
#ifndef GOTRACE_PIPES_H
#define GOTRACE_PIPES_H
#include <stdatomic.h>
#include <stdint.h>

#define PIPES_FD_MAX 1024
enum {
    PK_READ = 1,  /* reads from it may wait for another's write */
    PK_WRITE = 2, /* writes to it may end another's read */
    PK_SOCK = 4,  /* a Unix socket (else a pipe or FIFO) */
    PK_FIFO = 8,  /* a FIFO (opened by path) */
    /* O_NONBLOCK as far as the hooks saw it set (at creation, fcntl F_SETFL) or a read found it:
     * when set, a read's EAGAIN is checked (fcntl) before it may be a wait; when clear, a read
     * that would wait is a block without a look (the real call decides what it returns). */
    PK_NONBLOCK = 16,
    PK_KIND = 31,
    PK_SHIFT = 5 /* the key above these bits */
};
/* Keys are below 2^40 (a slot word keeps 24 bits for its count): a pipe's inode, a socket's
 * with this bit, a FIFO's hash of device and inode with the next one. */
#define PIPES_SOCK_TAG (1ull << 38)
/* The table: per descriptor, key << PK_SHIFT | kind (0: not a pipe or socket, or not known). */
extern _Atomic uint64_t pipes_fds[PIPES_FD_MAX];

/* What fd is (PK_* bits; 0 for an ordinary file or a number the table does not know). */
static inline unsigned pipes_kind(int fd)
{
    if ((unsigned)fd >= PIPES_FD_MAX) return 0;
    return (unsigned)(atomic_load_explicit(&pipes_fds[fd], memory_order_relaxed) & PK_KIND);
}
/* fd's key: a pipe's inode, a FIFO's inode mixed with its device, a socket's own inode (each
 * tagged: PIPES_SOCK_TAG). */
static inline uint64_t pipes_key(int fd)
{
    return atomic_load_explicit(&pipes_fds[fd], memory_order_relaxed) >> PK_SHIFT;
}

/* Turns learning on (GOTRACE_PIPES; at the tracer's start, before pipes_scan): off, the table
 * stays empty, so every read and write is what it was without it (a system call) and opens
 * cost no fstat. */
void pipes_enable(int on);

/* Learning: fd was just made by a call of that kind (pipe ends: PK_READ or PK_WRITE; a socket
 * made by socket or accept: PK_SOCK, noted only if it is AF_UNIX; | PK_NONBLOCK if made so);
 * one fstat (and for a socket one getsockopt); anything else is forgotten. pipes_opened: fd
 * opened by path with flags, noted if it is a FIFO, else forgotten (a new file's number). */
void pipes_note(int fd, unsigned kind);
void pipes_opened(int fd, int flags);
/* socketpair(AF_UNIX) made a and b (nonblocking or not): each the other's peer. */
void pipes_note_pair(int a, int b, int nonblock);
/* fd's O_NONBLOCK is now on (fcntl F_SETFL, or a read's EAGAIN after a block) or off. */
void pipes_nonblock(int fd, int on);
void pipes_forget(int fd);
void pipes_forget_range(unsigned lo, unsigned hi);
/* to is now a copy of from (dup, dup2, dup3, fcntl F_DUPFD*). */
void pipes_dup(int from, int to);
/* At the tracer's start: the descriptors inherited (a shell's pipeline), from /proc/self/fd. */
void pipes_scan(void);
/* Whether fd is still what the table says (its inode): 0 forgets it. One fstat. */
int pipes_still(int fd);
/* The inode of socket fd's peer, whose writes end fd's reads (a socketpair's other end, or the
 * kernel's answer over sock_diag, asked once and kept); 0 when unknown. */
uint64_t pipes_peer(int fd);
/* The inode of the peer of Unix socket ino, asked of the kernel (sock_diag, UNIX_DIAG_PEER);
 * 0 if it has no answer (no peer, or no unix_diag). Raw system calls: no hook sees them. */
uint64_t pipes_diag_peer(uint64_t ino);
/* The object's text, as waits and logs name it: "pipe:[INO]", "fifo:PATH [MAJ:MIN INO]",
 * "socket:[INO] unix" (ino: the socket's own, or for a writer its peer's, given). */
void pipes_text(int fd, uint64_t sock_ino, char *text, unsigned cap);
#define PIPES_TEXT_MAX 200

/* The shared page: mapped from path (GOTRACE_WAITS) at the tracer's start; a forked child
 * keeps its parent's mapping. */
void pipes_share(const char *path);
/* A reader starts or stops waiting on key (its writer's), its own socket inode sock_ino (0
 * for a pipe); nothing without the page or when every slot of key's probe is taken. */
int pipes_wait_begin(uint64_t key, uint64_t sock_ino);
void pipes_wait_end(uint64_t key);
/* Whether a process of the tree waits on key now (a few loads of the page); *sock_ino: the
 * inode the waiting socket reader named. */
int pipes_waited(uint64_t key, uint64_t *sock_ino);
#endif
