/* memlock.c: mlockall without the tracer's memory. See memlock.h for the invariants. */
#include "memlock.h"

#include "arena.h"
#include "log.h"
#include "real.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define USER_NS_INIT_INO 0xEFFFFFFDu /* the inode of the initial user namespace (nsfs) */
#define GATE (1ull << 63)            /* from here: the vsyscall page, none of the process's */
#define OWN_MAX 3                    /* the tracer's image and arena_ranges */

struct own {
    int n;
    struct arena_range r[OWN_MAX]; /* whole pages, sorted, disjoint */
};

typedef void part_fn(uintptr_t lo, uintptr_t hi, void *arg);

/* The tracer's memory: its image (code, data, .bss and .lbss) and its reserved ranges. */
static void own_ranges(struct own *o)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct dl_find_object self;
    o->n = arena_ranges(o->r);
    if (_dl_find_object((void *)memlock_all, &self) == 0)
        o->r[o->n++] =
            (struct arena_range){(uintptr_t)self.dlfo_map_start & ~(page - 1),
                                 ((uintptr_t)self.dlfo_map_end + page - 1) & ~(page - 1)};
    for (int i = 1; i < o->n; i++)
        for (int j = i; j > 0 && o->r[j].lo < o->r[j - 1].lo; j--) {
            struct arena_range t = o->r[j];
            o->r[j] = o->r[j - 1];
            o->r[j - 1] = t;
        }
}

/* Calls fn on each part of [lo, hi) that is not the tracer's. */
static void outside(uintptr_t lo, uintptr_t hi, const struct own *o, part_fn *fn, void *arg)
{
    for (int i = 0; i < o->n && lo < hi; i++) {
        if (o->r[i].hi <= lo || o->r[i].lo >= hi) continue;
        if (o->r[i].lo > lo) fn(lo, o->r[i].lo, arg);
        lo = o->r[i].hi;
    }
    if (lo < hi) fn(lo, hi, arg);
}

/* A line of /proc/self/maps being read: "lo-hi perms ...", in hexadecimal. */
struct line {
    int field; /* 0: lo, 1: hi, 2: the rest */
    uintptr_t v[2];
};

/* Takes one character; 1 when it completes the line's range. */
static int line_take(struct line *l, char c)
{
    if (c == '\n') {
        *l = (struct line){0};
        return 0;
    }
    if (l->field > 1) return 0;
    if (c == (l->field ? ' ' : '-')) return ++l->field == 2;
    l->v[l->field] = l->v[l->field] << 4 | (uintptr_t)(c <= '9' ? c - '0' : c - 'a' + 10);
    return 0;
}

/* Calls fn on the program's part of each mapping; 0, or -1 if /proc/self/maps cannot be read. */
static int each_mapping(const struct own *o, part_fn *fn, void *arg)
{
    int fd = REAL(open)("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct line l = {0};
    char buf[1024]; /* a hook's stack may be small */
    ssize_t n;
    while ((n = REAL(read)(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            if (line_take(&l, buf[i]) && l.v[0] < GATE) outside(l.v[0], l.v[1], o, fn, arg);
    REAL(close)(fd);
    return n < 0 ? -1 : 0;
}

static void count(uintptr_t lo, uintptr_t hi, void *arg)
{
    *(uint64_t *)arg += hi - lo;
}

/* Locks one part as mlockall would (a PROT_NONE one fails to be read in, and stays locked). */
static void lock(uintptr_t lo, uintptr_t hi, void *arg)
{
    mlock2((void *)lo, hi - lo, *(unsigned *)arg);
}

/* capable(CAP_IPC_LOCK) as mlockall checks it: in the effective set, in the initial user
 * namespace. */
static int ipc_lock_capable(void)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
    struct stat ns;
    return REAL(syscall)(SYS_capget, &h, d) == 0 && (d[0].effective >> CAP_IPC_LOCK & 1) &&
           stat("/proc/self/ns/user", &ns) == 0 && ns.st_ino == USER_NS_INIT_INO;
}

/* The kernel's answer to mlockall(MCL_CURRENT) of a process with bytes mapped: 0, EPERM (no
 * RLIMIT_MEMLOCK) or ENOMEM (over it). */
static int refusal(uint64_t bytes)
{
    struct rlimit lim = {RLIM_INFINITY, RLIM_INFINITY};
    getrlimit(RLIMIT_MEMLOCK, &lim);
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    if (lim.rlim_cur == RLIM_INFINITY || (lim.rlim_cur && bytes / page <= lim.rlim_cur / page))
        return 0;
    if (ipc_lock_capable()) return 0;
    return lim.rlim_cur ? ENOMEM : EPERM;
}

/* The kernel's mlockall, the tracer's memory included, with the program's errno. */
static int unfiltered(int flags, int saved)
{
    gt_warn_once(warned, "cannot read /proc/self/maps: mlockall locks the tracer's memory too");
    errno = saved;
    return REAL(mlockall)(flags);
}

int memlock_all(int flags)
{
    if (!(flags & MCL_CURRENT) || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)))
        return REAL(mlockall)(flags); /* nothing mapped now is locked, or the flags are refused */
    int saved = errno;
    struct own o;
    own_ranges(&o);
    uint64_t bytes = 0;
    if (each_mapping(&o, count, &bytes) != 0) return unfiltered(flags, saved);
    int err = refusal(bytes);
    if (err) {
        errno = err;
        return -1;
    }
    /* MCL_FUTURE before the mappings are listed (one made meanwhile is listed, or locked); or
     * an earlier MCL_FUTURE dropped, as mlockall without it drops it */
    if ((flags & MCL_FUTURE ? REAL(mlockall)(flags & ~MCL_CURRENT) : munlockall()) != 0) return -1;
    unsigned how = flags & MCL_ONFAULT ? MLOCK_ONFAULT : 0;
    if (each_mapping(&o, lock, &how) != 0) return unfiltered(flags, saved);
    errno = saved;
    return 0;
}
