/* fds.c: the tracer's kept descriptors. See fds.h for the invariants.
 * fds_base: half of RLIMIT_NOFILE, at most 1024, read when first needed: above what almost
 * every program uses, and at or below FD_SETSIZE only when the limit itself is that low. */
#include "fds.h"

#include "real.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <unistd.h>

static struct {
    atomic_int fd1; /* the kept fd + 1; 0: free slot */
    int (*move)(int fd);
} kept[GT_FDS_MAX];

static int fds_base(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 1024;
    return rl.rlim_cur / 2 > 1024 ? 1024 : (int)(rl.rlim_cur / 2);
}

int fds_high_dup(int fd) { return REAL(fcntl)(fd, F_DUPFD_CLOEXEC, (void *)(long)fds_base()); }

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
        if (atomic_compare_exchange_strong(&kept[i].fd1, &free_slot, fd + 1)) {
            kept[i].move = move;
            return fd;
        }
    }
    return fd; /* list full: still usable, only not hidden from the program */
}

static int slot_of(int fd)
{
    if (fd < 0) return -1;
    for (int i = 0; i < GT_FDS_MAX; i++)
        if (atomic_load_explicit(&kept[i].fd1, memory_order_relaxed) == fd + 1) return i;
    return -1;
}

int fds_kept(int fd) { return slot_of(fd) >= 0; }

int fds_owned(int fd)
{
    int i = slot_of(fd);
    return i >= 0 && kept[i].move;
}

void fds_forget(int fd)
{
    int i = slot_of(fd);
    if (i >= 0) atomic_store(&kept[i].fd1, 0);
}

void fds_yield(int fd)
{
    int i = slot_of(fd);
    if (i < 0) return;
    int saved = errno;
    int moved = kept[i].move ? kept[i].move(fd) : -1;
    atomic_store(&kept[i].fd1, moved + 1);
    errno = saved;
}

int fds_close_range(unsigned lo, unsigned hi, int flags, int (*close_fn)(unsigned, unsigned, int))
{
    if (lo > hi || (flags & CLOSE_RANGE_CLOEXEC)) return close_fn(lo, hi, flags); /* ours are */
    unsigned from = lo;
    for (;;) {
        unsigned next = hi; /* the lowest kept fd in [from, hi], or hi + 1 if none */
        int found = 0;
        for (int i = 0; i < GT_FDS_MAX; i++) {
            int k = atomic_load_explicit(&kept[i].fd1, memory_order_relaxed) - 1;
            if (k >= 0 && (unsigned)k >= from && (unsigned)k <= hi && (!found || (unsigned)k < next)) {
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
