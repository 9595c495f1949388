/* pipes.c: the descriptor table of the program's pipes, FIFOs and Unix sockets, and the wait
 * page shared by a recorded tree (pipes.h). The table is written by the hooks that make, copy
 * and close descriptors and by the scan at start; the page by blocking readers. */
#include "pipes.h"

#include "real.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

_Atomic uint64_t pipes_fds[PIPES_FD_MAX];
/* Per descriptor: a socket's peer inode (0 unknown, asked once: PEER_NONE when the kernel had
 * no answer), a FIFO's device. */
static _Atomic uint64_t aux[PIPES_FD_MAX];
#define PEER_NONE (~0ull)

/* The key of an object of kind k with stat st: kept apart by kind (pipefs and sockfs number
 * their inodes alike), a FIFO's mixed with its device. */
static uint64_t key_of(const struct stat *st, unsigned k)
{
    uint64_t ino = (uint64_t)st->st_ino;
    if (k & PK_SOCK) return (ino & (PIPES_SOCK_TAG - 1)) | PIPES_SOCK_TAG;
    if (!(k & PK_FIFO)) return ino & (PIPES_SOCK_TAG - 1);
    uint64_t h = ino ^ ((uint64_t)st->st_dev * 0x9e3779b97f4a7c15ull);
    return (h & (PIPES_SOCK_TAG - 1)) | PIPES_SOCK_TAG << 1;
}

static void set(int fd, unsigned kind, uint64_t key, uint64_t a)
{
    if ((unsigned)fd >= PIPES_FD_MAX) return;
    atomic_store_explicit(&aux[fd], a, memory_order_relaxed);
    atomic_store_explicit(&pipes_fds[fd], kind ? key << PK_SHIFT | kind : 0, memory_order_relaxed);
}

static int is_unix(int fd)
{
    int dom = 0;
    socklen_t dl = sizeof dom;
    return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) == 0 && dom == AF_UNIX;
}

/* What fd is by its fstat (and for a socket its domain), given its access mode acc (O_RDONLY,
 * O_WRONLY, O_RDWR): its kind, key in *key and aux in *a; 0 for anything else. */
static unsigned classify_st(int fd, int acc, uint64_t *key, uint64_t *a)
{
    struct stat st;
    if ((unsigned)fd >= PIPES_FD_MAX || fstat(fd, &st) != 0) return 0;
    unsigned rw = acc == O_RDONLY ? PK_READ : acc == O_WRONLY ? PK_WRITE : PK_READ | PK_WRITE;
    *a = 0;
    if (S_ISSOCK(st.st_mode)) {
        *key = key_of(&st, PK_SOCK);
        return is_unix(fd) ? PK_SOCK | PK_READ | PK_WRITE : 0;
    }
    if (!S_ISFIFO(st.st_mode)) return 0;
    char path[40], link[16]; /* a pipe and a FIFO differ by their /proc link only */
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    unsigned k = n >= 5 && !memcmp(link, "pipe:", 5) ? rw : rw | PK_FIFO;
    *key = key_of(&st, k);
    return k;
}

/* classify_st, errno kept. */
static unsigned classify(int fd, int acc, uint64_t *key, uint64_t *a)
{
    int saved = errno;
    unsigned k = classify_st(fd, acc, key, a);
    errno = saved;
    return k;
}

/* Whether the table learns (pipes_enable). */
static int learning;

void pipes_enable(int on)
{
    learning = on;
}

void pipes_note(int fd, unsigned kind)
{
    if (!learning) return;
    uint64_t key, a;
    unsigned k = classify(fd,
                          kind == PK_WRITE  ? O_WRONLY
                          : kind == PK_READ ? O_RDONLY
                                            : O_RDWR,
                          &key, &a);
    if (k && (kind & PK_SOCK) == (k & PK_SOCK))
        set(fd, k | (kind & PK_NONBLOCK), key, a);
    else
        pipes_forget(fd); /* (a new descriptor on a number the table may still hold) */
}

void pipes_opened(int fd, int flags)
{
    if (!learning) return;
    uint64_t key, a;
    unsigned k = flags & (O_DIRECTORY | O_PATH) ? 0 : classify(fd, flags & O_ACCMODE, &key, &a);
    if (k & PK_FIFO)
        set(fd, k | (flags & O_NONBLOCK ? PK_NONBLOCK : 0), key, a);
    else
        pipes_forget(fd);
}

void pipes_note_pair(int a, int b, int nonblock)
{
    if (!learning) return;
    uint64_t ka, kb, x;
    unsigned k = PK_SOCK | PK_READ | PK_WRITE;
    if (classify(a, O_RDWR, &ka, &x) != k || classify(b, O_RDWR, &kb, &x) != k) return;
    k |= nonblock ? PK_NONBLOCK : 0;
    set(a, k, ka, kb & (PIPES_SOCK_TAG - 1));
    set(b, k, kb, ka & (PIPES_SOCK_TAG - 1));
}

void pipes_nonblock(int fd, int on)
{
    if (!pipes_kind(fd)) return;
    if (on)
        atomic_fetch_or_explicit(&pipes_fds[fd], PK_NONBLOCK, memory_order_relaxed);
    else
        atomic_fetch_and_explicit(&pipes_fds[fd], ~(uint64_t)PK_NONBLOCK, memory_order_relaxed);
}

void pipes_forget(int fd)
{
    if (pipes_kind(fd)) set(fd, 0, 0, 0);
}

void pipes_forget_range(unsigned lo, unsigned hi)
{
    for (unsigned fd = lo; fd <= hi && fd < PIPES_FD_MAX; fd++)
        pipes_forget((int)fd);
}

void pipes_dup(int from, int to)
{
    if (from == to || (unsigned)to >= PIPES_FD_MAX) return;
    unsigned k = pipes_kind(from);
    if (!k) {
        pipes_forget(to);
        return;
    }
    atomic_store_explicit(&aux[to], atomic_load_explicit(&aux[from], memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&pipes_fds[to],
                          atomic_load_explicit(&pipes_fds[from], memory_order_relaxed),
                          memory_order_relaxed);
}

/* Notes descriptor fd found open at start, by its access mode. */
static void scan_one(int fd)
{
    uint64_t key, a;
    int fl = REAL(fcntl)(fd, F_GETFL);
    unsigned k = fl < 0 ? 0 : classify(fd, fl & O_ACCMODE, &key, &a);
    if (k) set(fd, k | (fl & O_NONBLOCK ? PK_NONBLOCK : 0), key, a);
}

void pipes_scan(void)
{
    if (!learning) return;
    int dir = (int)REAL(syscall)(SYS_openat, AT_FDCWD, "/proc/self/fd",
                                 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return;
    char buf[2048];
    long n;
    while ((n = REAL(syscall)(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            const struct dirent64 *e = (const void *)(buf + off);
            off += e->d_reclen;
            int fd = 0, digits = 0;
            for (const char *c = e->d_name; *c >= '0' && *c <= '9' && fd < PIPES_FD_MAX; c++)
                fd = fd * 10 + (*c - '0'), digits++;
            if (digits && fd != dir && fd < PIPES_FD_MAX) scan_one(fd);
        }
    }
    REAL(syscall)(SYS_close, dir);
}

int pipes_still(int fd)
{
    struct stat st;
    unsigned k = pipes_kind(fd);
    if (!k) return 0;
    int saved = errno;
    int same = fstat(fd, &st) == 0 && key_of(&st, k) == pipes_key(fd);
    if (!same) pipes_forget(fd);
    errno = saved;
    return same;
}

uint64_t pipes_diag_peer(uint64_t ino)
{
    int s =
        (int)REAL(syscall)(SYS_socket, AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (s < 0) return 0;
    struct {
        struct nlmsghdr h;
        struct unix_diag_req r;
    } req = {.h = {.nlmsg_len = sizeof req,
                   .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                   .nlmsg_flags = NLM_F_REQUEST},
             .r = {.sdiag_family = AF_UNIX,
                   .udiag_states = ~0u,
                   .udiag_ino = (uint32_t)ino,
                   .udiag_show = UDIAG_SHOW_PEER,
                   .udiag_cookie = {~0u, ~0u}}};
    uint64_t peer = 0;
    union {
        struct nlmsghdr h;
        char b[1024];
    } rsp;
    if (REAL(send)(s, &req, sizeof req, 0) == (ssize_t)sizeof req) {
        ssize_t n = REAL(recv)(s, rsp.b, sizeof rsp.b, 0);
        if (n >= (ssize_t)(NLMSG_LENGTH(sizeof(struct unix_diag_msg))) &&
            rsp.h.nlmsg_type == SOCK_DIAG_BY_FAMILY && (ssize_t)rsp.h.nlmsg_len <= n) {
            struct rtattr *at = (void *)((char *)NLMSG_DATA(&rsp.h) + sizeof(struct unix_diag_msg));
            int left = (int)rsp.h.nlmsg_len - (int)NLMSG_LENGTH(sizeof(struct unix_diag_msg));
            for (; RTA_OK(at, left); at = RTA_NEXT(at, left))
                if (at->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(at) >= 4)
                    peer = *(uint32_t *)RTA_DATA(at);
        }
    }
    REAL(syscall)(SYS_close, s);
    return peer;
}

uint64_t pipes_peer(int fd)
{
    if (!(pipes_kind(fd) & PK_SOCK)) return 0;
    uint64_t p = atomic_load_explicit(&aux[fd], memory_order_relaxed);
    if (!p) {
        int saved = errno;
        p = pipes_diag_peer(pipes_key(fd) & (PIPES_SOCK_TAG - 1));
        errno = saved;
        atomic_store_explicit(&aux[fd], p ? p : PEER_NONE, memory_order_relaxed);
    }
    return p == PEER_NONE ? 0 : p;
}

void pipes_text(int fd, uint64_t sock_ino, char *text, unsigned cap)
{
    unsigned k = pipes_kind(fd);
    text[0] = 0;
    if (k & PK_SOCK) {
        snprintf(text, cap, "socket:[%llu] unix", (unsigned long long)sock_ino);
    } else if (k & PK_FIFO) {
        char path[40], link[160];
        struct stat st;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0 || fstat(fd, &st) != 0) return;
        link[n] = 0;
        snprintf(text, cap, "fifo:%s [%02x:%02x %llu]", link, major(st.st_dev), minor(st.st_dev),
                 (unsigned long long)st.st_ino);
    } else if (k) {
        snprintf(text, cap, "pipe:[%llu]", (unsigned long long)pipes_key(fd));
    }
}

/* ---- the shared wait page ---- */

/* A slot: key << 24 | count, and the inode a waiting socket reader named. A key's slots are
 * PROBE consecutive ones from its hash; all are looked at (a freed slot breaks no chain). */
#define SLOTS 128
#define PROBE 8
#define COUNT_MASK ((1ull << 24) - 1)
struct slot {
    _Atomic uint64_t word;
    _Atomic uint64_t sock_ino;
};
static struct slot *page;

void pipes_share(const char *path)
{
    if (!path || !path[0]) return;
    int fd = (int)REAL(syscall)(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    void *m = mmap(NULL, SLOTS * sizeof(struct slot), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    REAL(syscall)(SYS_close, fd);
    if (m != MAP_FAILED) page = m;
}

static unsigned first_slot(uint64_t key)
{
    return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 57) % SLOTS;
}

int pipes_wait_begin(uint64_t key, uint64_t sock_ino)
{
    if (!page || !key) return 0;
    for (unsigned i = 0, s = first_slot(key); i < PROBE; i++, s = (s + 1) % SLOTS) {
        uint64_t w = atomic_load_explicit(&page[s].word, memory_order_relaxed);
        while ((w == 0 || w >> 24 == key) && (w & COUNT_MASK) != COUNT_MASK) {
            uint64_t nw = w == 0 ? key << 24 | 1 : w + 1;
            if (!atomic_compare_exchange_weak(&page[s].word, &w, nw)) continue;
            /* (the same for every reader of key: a connected socket has one peer) */
            atomic_store_explicit(&page[s].sock_ino, sock_ino, memory_order_relaxed);
            return 1;
        }
    }
    return 0;
}

void pipes_wait_end(uint64_t key)
{
    for (unsigned i = 0, s = first_slot(key); page && i < PROBE; i++, s = (s + 1) % SLOTS) {
        uint64_t w = atomic_load_explicit(&page[s].word, memory_order_relaxed);
        while (w >> 24 == key && (w & COUNT_MASK)) {
            uint64_t nw = (w & COUNT_MASK) == 1 ? 0 : w - 1;
            if (atomic_compare_exchange_weak(&page[s].word, &w, nw)) return;
        }
    }
}

int pipes_waited(uint64_t key, uint64_t *sock_ino)
{
    for (unsigned i = 0, s = first_slot(key); page && i < PROBE; i++, s = (s + 1) % SLOTS) {
        uint64_t w = atomic_load_explicit(&page[s].word, memory_order_relaxed);
        if (w >> 24 == key && (w & COUNT_MASK)) {
            *sock_ino = atomic_load_explicit(&page[s].sock_ino, memory_order_relaxed);
            return 1;
        }
    }
    return 0;
}
