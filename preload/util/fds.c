/* fds.c: the tracer's kept descriptors. See fds.h for the invariants.
 * fds_base: half of RLIMIT_NOFILE, at most 1024, read when first needed: above what almost
 * every program uses, and at or below FD_SETSIZE only when the limit itself is that low.
 * A slot is reserved (fd1 = RESERVED) while its fields are written, then published with the
 * descriptor (release); readers acquire fd1 before the fields. Each kept descriptor's device
 * and inode are recorded: when the program acts on a kept number (close, dup2 onto or from it,
 * a range close over it), one fstat tells whether the number still refers to the tracer's
 * file; if not (a system call no hook saw closed or replaced it), the slot is forgotten and
 * the program acts on its own descriptor. */
#include "fds.h"

#include "pages.h"
#include "real.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESERVED (-1)

static struct {
    atomic_int fd1; /* the kept fd + 1; 0: free slot */
    int (*move)(int fd);
    dev_t dev; /* what it refers to (fstat), when known */
    ino_t ino;
    int known;
} kept[GT_FDS_MAX] GT_FORK_WORDS; /* a forked child forgets its parent's output's */

/* Kept once read (a limit the program lowers later makes F_DUPFD fail: fds_high keeps fd). */
static int fds_base(void)
{
    static atomic_int base1; /* the base + 1; 0: not read yet */
    int b1 = atomic_load_explicit(&base1, memory_order_relaxed);
    if (b1) return b1 - 1;
    struct rlimit rl;
    int b = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur / 2 < 1024)
        b = (int)(rl.rlim_cur / 2);
    atomic_store_explicit(&base1, b + 1, memory_order_relaxed);
    return b;
}

int fds_high_dup(int fd)
{
    return REAL(fcntl)(fd, F_DUPFD_CLOEXEC, (void *)(long)fds_base());
}

int fds_high(int fd)
{
    if (fd >= fds_base()) return fd;
    int saved = errno;
    int hi = fds_high_dup(fd);
    if (hi >= 0) REAL(close)(fd);
    errno = saved;
    return hi >= 0 ? hi : fd;
}

int fds_keep(int fd, int (*move)(int fd))
{
    fd = fds_high(fd);
    for (int i = 0; i < GT_FDS_MAX; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&kept[i].fd1, &free_slot, RESERVED)) {
            struct stat st;
            int saved = errno;
            kept[i].known = fstat(fd, &st) == 0;
            errno = saved;
            kept[i].dev = kept[i].known ? st.st_dev : 0;
            kept[i].ino = kept[i].known ? st.st_ino : 0;
            kept[i].move = move;
            atomic_store_explicit(&kept[i].fd1, fd + 1, memory_order_release);
            return fd;
        }
    }
    return fd; /* list full: still usable, only not hidden from the program */
}

static int slot_of(int fd)
{
    if (fd < 0) return -1;
    for (int i = 0; i < GT_FDS_MAX; i++)
        if (atomic_load_explicit(&kept[i].fd1, memory_order_acquire) == fd + 1) return i;
    return -1;
}

/* Slot i (keeping fd) still refers to the tracer's file; if not, it is forgotten. */
static int held(int i, int fd)
{
    if (!kept[i].known) return 1;
    struct stat st;
    int saved = errno;
    int same = fstat(fd, &st) == 0 && st.st_dev == kept[i].dev && st.st_ino == kept[i].ino;
    errno = saved;
    int fd1 = fd + 1;
    if (!same) atomic_compare_exchange_strong(&kept[i].fd1, &fd1, 0);
    return same;
}

/* The slot of fd if fd is kept and still the tracer's, else -1. */
static int held_slot(int fd)
{
    int i = slot_of(fd);
    return i >= 0 && held(i, fd) ? i : -1;
}

int fds_is_kept(int fd)
{
    return slot_of(fd) >= 0;
}

void fds_forget(int fd)
{
    int i = slot_of(fd);
    if (i >= 0) atomic_store(&kept[i].fd1, 0);
}

/* The program is about to make fd refer to something else (dup2/dup3 onto it): a kept fd is
 * moved away (move) or forgotten first. */
static void yield(int fd)
{
    int i = held_slot(fd);
    if (i < 0) return;
    int saved = errno;
    int moved = kept[i].move ? kept[i].move(fd) : -1;
    atomic_store(&kept[i].fd1, moved + 1);
    errno = saved;
}

int fds_close_allowed(int fd, int by_tracer)
{
    int i = slot_of(fd);
    if (i < 0) return 1;
    if (!by_tracer || kept[i].move) return held(i, fd) ? 0 : 1; /* ours: not open to the program */
    fds_forget(fd);
    return 1;
}

int fds_dup_allowed(int from, int to)
{
    if (held_slot(from) >= 0) return 0;
    if (from != to) yield(to);
    return 1;
}

int fds_close_range(unsigned lo, unsigned hi, int flags, int (*close_fn)(unsigned, unsigned, int))
{
    if (lo > hi || (flags & CLOSE_RANGE_CLOEXEC)) return close_fn(lo, hi, flags); /* ours are */
    for (int i = 0; i < GT_FDS_MAX; i++) { /* forget the numbers that are not ours any more */
        int k = atomic_load_explicit(&kept[i].fd1, memory_order_acquire) - 1;
        if (k >= 0 && (unsigned)k >= lo && (unsigned)k <= hi) held(i, k);
    }
    unsigned from = lo;
    for (;;) {
        unsigned next = hi; /* the lowest kept fd in [from, hi], or hi + 1 if none */
        int found = 0;
        for (int i = 0; i < GT_FDS_MAX; i++) {
            int k = atomic_load_explicit(&kept[i].fd1, memory_order_relaxed) - 1;
            if (k >= 0 && (unsigned)k >= from && (unsigned)k <= hi &&
                (!found || (unsigned)k < next)) {
                next = (unsigned)k;
                found = 1;
            }
        }
        if (!found) return close_fn(from, hi, flags);
        if (next > from && close_fn(from, next - 1, flags) != 0) return -1;
        if (next == hi) return 0;
        from = next + 1;
    }
}
