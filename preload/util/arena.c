/* arena.c: the live file and the blocks carved from it. See arena.h for the invariants. */
#include "arena.h"

#include "clock.h"
#include "log.h"
#include "pages.h"
#include "real.h"
#include "selfcost.h"
#include "spinlock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static struct {
    gt_spinlock lock;
    uint8_t *base;    /* the reserved range; NULL without a live file */
    uint8_t *span;    /* the same range once mapped, for good (arena_ranges) */
    uint64_t used[2]; /* bump offsets of the tables and buffers regions */
    char path[128];
} A GT_FORK_WORDS = {.used = {GT_LIVE_HEAD_BYTES, GT_LIVE_TABLES}};

/* The pages of the tables region backed, a bit each, set once backed: what a forked child
 * copies of them (arena_fork_settle), without reading its parent's file for it. */
#define TABLE_PAGES (GT_LIVE_TABLES / GT_PAGE)
static _Atomic uint64_t tables_backed[TABLE_PAGES / 64] GT_BIG;

#define RESERVE_SIZE (1ull << 30) /* arena_map's range: address space only, until carved */

static struct {
    _Atomic(uint8_t *) base; /* NULL: not reserved */
    _Atomic uint64_t used;   /* bump offset */
} R;

static const uint64_t region_end[2] = {GT_LIVE_TABLES, GT_LIVE_SIZE};

struct gt_live_head *arena_head(void)
{
    return (struct gt_live_head *)A.base;
}

int arena_holds(const void *p)
{
    return A.base && (const uint8_t *)p >= A.base && (const uint8_t *)p < A.base + GT_LIVE_SIZE;
}

int arena_allocated(const void *p)
{
    if (!arena_holds(p)) return 0;
    uint64_t off = (uint64_t)((const uint8_t *)p - A.base);
    return off < A.used[off >= GT_LIVE_TABLES];
}

/* Now, CLOCK_BOOTTIME: a head's began_ns (gt_live.h). */
static uint64_t boot_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_BOOTTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* This process's start time in clock ticks (gt_live.h), 0 if unknown: read from /proc (35 us
 * here) only to tell whether an existing file is our own image's. */
static uint64_t start_ticks(void)
{
    char buf[1024];
    int fd = REAL(open)("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = REAL(read)(fd, buf, sizeof buf - 1);
    REAL(close)(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    return gt_live_start_ticks(buf);
}

/* What an existing file at path is to us: 1 ours to replace (our own image's, before an exec:
 * same pid, begun since this process started), 0 someone else's (keep it). */
static int replaceable(const char *path)
{
    struct gt_live_head h;
    int fd = REAL(open)(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = REAL(pread)(fd, &h, sizeof h, 0);
    REAL(close)(fd);
    uint64_t ticks = n == (ssize_t)sizeof h && h.pid == (int64_t)getpid() ? start_ticks() : 0;
    uint64_t tick = gt_live_tick_ns();
    return ticks && tick && memcmp(h.magic, GT_LIVE_MAGIC, 8) == 0 &&
           h.version == GT_LIVE_VERSION && gt_live_same_process(ticks, tick, h.began_ns);
}

#define NAMES 8 /* names a process tries: gotrace.<pid>.live, then .<pid>-<k>. */

static void name_file(char *path, size_t size, pid_t pid, int k)
{
    if (k)
        snprintf(path, size, "%s/%s%ld-%d%s", GT_LIVE_DIR, GT_LIVE_PREFIX, (long)pid, k,
                 GT_LIVE_SUFFIX);
    else
        snprintf(path, size, "%s/%s%ld%s", GT_LIVE_DIR, GT_LIVE_PREFIX, (long)pid, GT_LIVE_SUFFIX);
}

/* Creates this process's file (gotrace.<pid>.live, or .<pid>-<k>. when a dead process with our
 * pid left one to recover); its descriptor, or -1. */
static int create_file(void)
{
    for (int k = 0; k < NAMES; k++) {
        name_file(A.path, sizeof A.path, getpid(), k);
        int fd = REAL(open)(A.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST && replaceable(A.path) && unlink(A.path) == 0)
            fd = REAL(open)(A.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (ftruncate(fd, (off_t)GT_LIVE_SIZE) == 0) return fd;
            REAL(close)(fd);
            unlink(A.path);
            return -1;
        }
        if (errno != EEXIST) return -1;
    }
    return -1;
}

/* [p, p + size) of the range is backed: its pages of the tables region are marked. */
static void mark_backed(const uint8_t *p, size_t size)
{
    uint64_t first = (uint64_t)(p - A.base) / GT_PAGE;
    uint64_t end = ((uint64_t)(p - A.base) + size + GT_PAGE - 1) / GT_PAGE;
    for (uint64_t pg = first; pg < end && pg < TABLE_PAGES; pg++)
        atomic_fetch_or_explicit(&tables_backed[pg / 64], 1ull << (pg % 64), memory_order_relaxed);
}

static int back(uint8_t *p, size_t size)
{
    uint64_t t0 = selfcost_begin();
    int r = madvise(p, size, MADV_POPULATE_WRITE);
    selfcost_end(SC_BACK, t0, size / GT_PAGE);
    if (r == 0 && A.base) mark_backed(p, size);
    return r;
}

/* Maps fd over the whole range (at base if given); the range, or NULL. */
static uint8_t *map_file(int fd, uint8_t *at)
{
    void *m =
        mmap(at, GT_LIVE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0);
    return m == MAP_FAILED ? NULL : m;
}

static void head_init(struct gt_live_head *h, uint64_t began)
{
    memcpy(h->magic, GT_LIVE_MAGIC, 8);
    h->version = GT_LIVE_VERSION;
    h->head_bytes = (uint32_t)sizeof *h;
    h->base = (uint64_t)(uintptr_t)A.base;
    h->size = GT_LIVE_SIZE;
    h->pid = getpid();
    h->ppid = getppid();
    /* the name `gotrace recover` gives the trace's process (GT_EXP_PROC): the tracer's own
     * process batch's (flush/encode.c), argv[0]'s last part; a forked child's is its parent's */
    const char *name = program_invocation_short_name ? program_invocation_short_name : "";
    snprintf(h->name, sizeof h->name, "%s", name);
    h->began_ns = began;
    h->ticks_per_sec = GT_TICKS_PER_SEC;
    h->state = GT_LIVE_RUNNING;
}

/* Whether the address space is limited (RLIMIT_AS): a range reserved would come out of the
 * program's. */
static int as_limited(void)
{
    struct rlimit as;
    return getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY;
}

int arena_init(void)
{
    if (as_limited()) {
        gt_debug("no live file: the address space is limited (RLIMIT_AS), and its range is "
                 "the program's");
        return -1;
    }
    uint64_t began = boot_ns();
    int fd = create_file();
    if (fd < 0) {
        gt_debug("no live file in %s (%s): a killed run cannot be recovered", GT_LIVE_DIR,
                 strerror(errno));
        return -1;
    }
    uint8_t *m = map_file(fd, NULL);
    REAL(close)(fd); /* the mapping keeps the file */
    size_t head = (sizeof(struct gt_live_head) + GT_PAGE - 1) & ~(GT_PAGE - 1);
    if (!m || back(m, head) != 0) {
        gt_debug("cannot map the live file %s: a killed run cannot be recovered", A.path);
        if (m) munmap(m, GT_LIVE_SIZE);
        unlink(A.path);
        return -1;
    }
    A.base = A.span = m;
    mark_backed(m, head);
    head_init(arena_head(), began);
    gt_debug("live file %s", A.path);
    return 0;
}

static void *anon(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void arena_reserve(void)
{
    if (as_limited()) return;
    void *m = mmap(NULL, RESERVE_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) atomic_store_explicit(&R.base, m, memory_order_release);
}

/* A piece made accessible keeps the lock flags of the range (none), whatever mlockall
 * (MCL_FUTURE) asked for the mappings made since; a private writable piece is charged to the
 * commit limit as mmap's would be. */
void *arena_map(size_t size)
{
    size = (size + GT_PAGE - 1) & ~(GT_PAGE - 1);
    uint8_t *base = atomic_load_explicit(&R.base, memory_order_acquire);
    uint64_t off = base ? atomic_fetch_add(&R.used, size) : RESERVE_SIZE;
    if (off + size <= RESERVE_SIZE && mprotect(base + off, size, PROT_READ | PROT_WRITE) == 0)
        return base + off;
    return anon(size);
}

int arena_ranges(struct arena_range out[2])
{
    int n = 0;
    uint8_t *base = atomic_load_explicit(&R.base, memory_order_acquire);
    if (A.span)
        out[n++] = (struct arena_range){(uintptr_t)A.span, (uintptr_t)A.span + GT_LIVE_SIZE};
    if (base) out[n++] = (struct arena_range){(uintptr_t)base, (uintptr_t)base + RESERVE_SIZE};
    return n;
}

void *arena_alloc(enum arena_region region, size_t size, size_t ready)
{
    size = (size + GT_PAGE - 1) & ~(GT_PAGE - 1);
    ready = ready < size ? (ready + GT_PAGE - 1) & ~(GT_PAGE - 1) : size;
    uint8_t *p = NULL;
    spin_lock(&A.lock);
    if (A.base && A.used[region] + size <= region_end[region]) {
        p = A.base + A.used[region];
        if (!ready || back(p, ready) == 0) /* (a populate of 0 bytes is a system call still) */
            A.used[region] += size;
        else
            p = NULL;
    }
    spin_unlock(&A.lock);
    if (p) return p;
    if (A.base) {
        arena_head()->lost = 1;
        gt_warn_once(full,
                     "%s is full: what the tracer keeps from now on cannot be recovered "
                     "if the program is killed",
                     GT_LIVE_DIR);
    }
    return arena_map(size);
}

int arena_back(void *p, size_t size)
{
    if (!arena_holds(p)) return 0; /* private memory is backed on demand */
    uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(GT_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + size + GT_PAGE - 1) & ~(uintptr_t)(GT_PAGE - 1);
    return back((uint8_t *)lo, hi - lo);
}

void arena_complete(void)
{
    if (!A.base) return;
    arena_head()->state = GT_LIVE_COMPLETE;
    arena_unlink();
}

void arena_unlink(void)
{
    if (!A.base || !A.path[0]) return;
    unlink(A.path);
    A.path[0] = 0; /* nothing of ours has that name any more */
}

void arena_give_to(uid_t uid)
{
    if (!A.base || !A.path[0] || uid == (uid_t)-1 || uid == geteuid()) return;
    int saved = errno;
    if (chown(A.path, uid, (gid_t)-1) != 0)
        gt_debug("cannot give the live file %s to user %ld (%s): it stays when the process "
                 "ends",
                 A.path, (long)uid, strerror(errno));
    errno = saved;
}

/* Whether the file at path is the one a process pid that traced nothing left: its head names
 * pid, it did not end cleanly, and no process has that pid now (a reaped child's is free). 1
 * yes, 0 no, -1 no such file. */
static int left_empty(const char *path, pid_t pid)
{
    /* The head's fixed fields and its mless[2] and registry (adjacent: gt_live.h), not all of
     * it (4 KiB): a hook's stack may be small. */
    uint8_t pre[offsetof(struct gt_live_head, out_path)];
    uint64_t words[3];
    int fd = REAL(open)(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? -1 : 0;
    int ok = REAL(pread)(fd, pre, sizeof pre, 0) == (ssize_t)sizeof pre &&
             REAL(pread)(fd, words, sizeof words, offsetof(struct gt_live_head, mless)) ==
                 (ssize_t)sizeof words;
    REAL(close)(fd);
    int64_t owner;
    uint32_t state;
    memcpy(&owner, pre + offsetof(struct gt_live_head, pid), sizeof owner);
    memcpy(&state, pre + offsetof(struct gt_live_head, state), sizeof state);
    return ok && memcmp(pre, GT_LIVE_MAGIC, 8) == 0 && owner == (int64_t)pid &&
           state == GT_LIVE_RUNNING && gt_live_traced_nothing(words[0], words[1], words[2]) &&
           kill(pid, 0) != 0 && errno == ESRCH;
}

void arena_forget_child(pid_t pid)
{
    char path[sizeof A.path];
    for (int k = 0; k < NAMES; k++) {
        name_file(path, sizeof path, pid, k);
        int empty = left_empty(path, pid);
        if (empty > 0) unlink(path);
        if (empty) return; /* removed, or no name after a missing one */
    }
}

/* A parent thread may have held the lock, allocating: its block is then the child's, pages and
 * all, or not, and its pages are not copied; either is consistent (the allocator's caller was a
 * parent thread). The parent's file must be neither written nor removed here. */
void arena_fork_child(void)
{
    spin_unlock(&A.lock);
    A.path[0] = 0;
}

void arena_detach(void)
{
    A.base = NULL;
}

/* Writes [from, to) of the range, as this process sees it, into fd at the same offsets. */
static int copy_range(int fd, uint64_t from, uint64_t to)
{
    while (from < to) {
        ssize_t n = REAL(pwrite)(fd, A.base + from, to - from, (off_t)from);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        from += (uint64_t)n;
    }
    return 0;
}

static int page_backed(uint64_t pg)
{
    return (atomic_load_explicit(&tables_backed[pg / 64], memory_order_relaxed) >> (pg % 64)) & 1;
}

/* The next run [*lo, *hi) of backed pages of the tables, from page *lo on and below page end;
 * 0 when there is none. The rest of a table's reserved range was never backed: it is neither
 * copied nor read (a read would back it in the parent's file). */
static int next_backed(uint64_t *lo, uint64_t *hi, uint64_t end)
{
    uint64_t pg = *lo;
    while (pg < end && !page_backed(pg))
        pg = atomic_load_explicit(&tables_backed[pg / 64], memory_order_relaxed)
                 ? pg + 1
                 : (pg / 64 + 1) * 64; /* a word with no page backed */
    if (pg >= end) return 0;
    *lo = pg;
    for (*hi = pg + 1; *hi < end && page_backed(*hi);)
        ++*hi;
    return 1;
}

/* The tables' backed pages below keep into fd, at their offsets. */
static int copy_tables(int fd, uint64_t keep)
{
    for (uint64_t lo = 0, hi; next_backed(&lo, &hi, keep / GT_PAGE); lo = hi)
        if (copy_range(fd, lo * GT_PAGE, hi * GT_PAGE) != 0) return -1;
    return 0;
}

/* Copies the tables' backed pages below keep from `from` to `to`, both laid out as the range. */
static void move_tables(uint8_t *to, const uint8_t *from, uint64_t keep)
{
    for (uint64_t lo = 0, hi; next_backed(&lo, &hi, keep / GT_PAGE); lo = hi)
        memcpy(to + lo * GT_PAGE, from + lo * GT_PAGE, (hi - lo) * GT_PAGE);
}

void arena_fork_settle(void)
{
    if (!A.base) return;
    uint64_t began = boot_ns();
    int fd = create_file();
    uint64_t keep = A.used[ARENA_TABLES];
    A.used[ARENA_BUFFERS] = GT_LIVE_TABLES;
    if (fd >= 0 && copy_tables(fd, keep) == 0 && map_file(fd, A.base)) {
        REAL(close)(fd);
        head_init(arena_head(), began);
        return;
    }
    /* No file of its own: the parent's must not be written; the child's state moves to
     * private copies of the same pages (MAP_PRIVATE of the parent's file would still show the
     * parent's later stores), so tracing goes on unrecoverable. */
    if (fd >= 0) {
        REAL(close)(fd);
        unlink(A.path);
    }
    A.path[0] = 0;
    uint8_t *copy = anon(keep);
    if (copy) move_tables(copy, A.base, keep);
    void *m = mmap(A.base, GT_LIVE_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    if (m != MAP_FAILED && copy) move_tables(A.base, copy, keep);
    if (copy) munmap(copy, keep);
    A.base = NULL; /* every later block is anonymous; the range stays the child's */
}
