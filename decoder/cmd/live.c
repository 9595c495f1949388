/* live.c: the live files of traced processes. See live.h for the invariants.
 * The file is the dead process's memory: the tracer mapped it shared at one address range and
 * stored pointers into it as they were in the process (common/gt_live.h). Its contents are
 * not trusted: SIGKILL can land between any two stores, a torn record can hold any value, and a
 * file on /dev/shm can be anyone's. So every pointer is translated to a file offset and
 * bounds-checked before it is read (gd_live_at), every read returns a value or nothing, and
 * what the values mean (lengths, lists, marks) is checked by the reader that uses them
 * (cmd_recover.c), and at last by the decoder's validation of the result. */
#include "live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The whole file is mapped, read-only and private: nothing done here can change it (with
 * --keep it stays as the process left it), and MAP_NORESERVE because the file is a
 * sparse 1 GiB reservation (GT_LIVE_SIZE) of which the process used little: unwritten pages
 * read as zeros without being allocated. The head is checked (magic, version, its size, the
 * size it says was reserved) before any other field is believed: a file of another gotrace
 * version has other offsets. */
int gd_live_open(struct gd_live *l, const char *path, char *why, size_t cap)
{
    memset(l, 0, sizeof *l);
    snprintf(l->path, sizeof l->path, "%s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, cap, "%s", strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size < GT_LIVE_HEAD_BYTES) {
        snprintf(why, cap, "too short to be a live file");
        close(fd);
        return -1;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_NORESERVE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        snprintf(why, cap, "cannot map it: %s", strerror(errno));
        return -1;
    }
    l->map = m;
    l->size = (uint64_t)st.st_size;
    l->h = m;
    if (memcmp(l->h->magic, GT_LIVE_MAGIC, 8) != 0 || l->h->version != GT_LIVE_VERSION ||
        l->h->head_bytes != sizeof *l->h || l->h->size > l->size) {
        snprintf(why, cap, "not a live file of this version of gotrace");
        gd_live_close(l);
        return -1;
    }
    return 0;
}

void gd_live_close(struct gd_live *l)
{
    if (l->map) munmap((void *)l->map, l->size);
    l->map = NULL;
    l->h = NULL;
}

/* The checks are written so that no sum can wrap: addr - base only once addr >= base, and n
 * compared with what is left after that offset rather than added to it. */
const void *gd_live_at(const struct gd_live *l, uint64_t addr, size_t n)
{
    uint64_t base = l->h->base;
    if (addr < base || addr - base > l->size || n > l->size - (addr - base)) return NULL;
    return l->map + (addr - base);
}

/* Fields are copied out with memcpy: a torn structure's field need not be aligned. addr + off
 * may wrap for a garbage addr; gd_live_at then checks the wrapped address like any other. */
uint64_t gd_live_u64(const struct gd_live *l, uint64_t addr, uint32_t off)
{
    uint64_t v = 0;
    const void *p = gd_live_at(l, addr + off, 8);
    if (p) memcpy(&v, p, 8);
    return v;
}

uint32_t gd_live_u32(const struct gd_live *l, uint64_t addr, uint32_t off)
{
    uint32_t v = 0;
    const void *p = gd_live_at(l, addr + off, 4);
    if (p) memcpy(&v, p, 4);
    return v;
}

/* Field 22 of /proc/<pid>/stat (its start time), 0 if it cannot be read; its state (field 3)
 * in *state, 0 then. */
static uint64_t start_ticks(long pid, char *state)
{
    char path[64], buf[1024];
    *state = 0;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *rp = strrchr(buf, ')'); /* the state follows the command name */
    if (rp && rp[1] == ' ') *state = rp[2];
    return gt_live_start_ticks(buf);
}

/* kill(pid, 0) says whether a process with the pid exists (EPERM: it does, another user's);
 * a pid is reused, so its start time must also be no later than when the head's tracer began
 * (gt_live_same_process). A zombie (killed, not reaped yet by its parent) has ended: its
 * memory is gone and nothing writes the file any more. When the start time cannot be read the
 * answer is "running": the safe mistake is to refuse a recovery, not to rewrite the trace of
 * a live process. */
int gd_live_running(const struct gd_live *l)
{
    long pid = (long)l->h->pid;
    if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) return 0;
    char state;
    uint64_t t = start_ticks(pid, &state);
    uint64_t tick = gt_live_tick_ns();
    if (t == 0 || !tick) return 1; /* unreadable: assume it is ours */
    return gt_live_same_process(t, tick, l->h->began_ns) && state != 'Z' && state != 'X';
}

/* Polled every 20 ms: a process killed a moment ago (SIGKILL) is still tearing its address
 * space down, which takes milliseconds to a second for a large one. */
int gd_live_wait_end(const struct gd_live *l, int ms)
{
    for (int waited = 0; gd_live_running(l); waited += 20) {
        if (waited >= ms) return -1;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* A path that does not exist (yet) is resolved through its directory: a forked child killed
 * before it opened its trace file has only the name it would have had. */
void gd_live_resolve(const char *path, char *out, size_t cap)
{
    char dir[4096], full[4096];
    if (realpath(path, full)) {
        snprintf(out, cap, "%s", full);
        return;
    }
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    if (realpath(dir, full))
        snprintf(out, cap, "%s%s%s", full, strcmp(full, "/") ? "/" : "", base);
    else
        snprintf(out, cap, "%s", path);
}

void gd_live_out_path(const struct gd_live *l, char *out, size_t cap)
{
    char theirs[sizeof l->h->out_path];
    /* Copied with a bound: the process may have died with the path half written, unended. */
    snprintf(theirs, sizeof theirs, "%.*s", (int)sizeof theirs - 1, l->h->out_path);
    gd_live_resolve(theirs, out, cap);
}

/* Whether the live file at path is the unfinished one of the trace at trace (the same path, and
 * the same file when it exists: an inode is reused once its file is gone), and passes
 * dead_only. The head's path is absolute but not resolved (symbolic links, ".."): both sides
 * are compared resolved (a path that does not exist yet is compared as written). Only a head
 * still in GT_LIVE_RUNNING state belongs: a process that completed left nothing to recover.
 * A file that cannot be opened or is of another version belongs to no trace. */
static int belongs(const char *path, const char *trace, const struct stat *ts, int dead_only)
{
    struct gd_live l;
    char why[128], want[4096], have[4096];
    if (gd_live_open(&l, path, why, sizeof why) != 0) return 0;
    gd_live_resolve(trace, want, sizeof want);
    gd_live_out_path(&l, have, sizeof have);
    int match =
        l.h->state == GT_LIVE_RUNNING && strcmp(have, want) == 0 &&
        (!ts || (l.h->out_dev == (uint64_t)ts->st_dev && l.h->out_ino == (uint64_t)ts->st_ino));
    if (match && dead_only) match = !gd_live_running(&l);
    gd_live_close(&l);
    return match;
}

/* Only names of the live files' form are returned: files with other names are never opened. */
int gd_live_next(DIR *d, char *out, size_t cap)
{
    size_t pl = strlen(GT_LIVE_PREFIX), sl = strlen(GT_LIVE_SUFFIX);
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n <= pl + sl || strncmp(e->d_name, GT_LIVE_PREFIX, pl) != 0 ||
            strcmp(e->d_name + n - sl, GT_LIVE_SUFFIX) != 0)
            continue;
        snprintf(out, cap, "%s/%s", GT_LIVE_DIR, e->d_name);
        return 1;
    }
    return 0;
}

/* Live files are named by pid (gotrace.<pid>.live), not by trace, so every one in
 * GT_LIVE_DIR is opened and its head compared; the first that belongs wins. */
int gd_live_find(const char *trace_path, int dead_only, char *out, size_t cap)
{
    struct stat ts;
    int have = stat(trace_path, &ts) == 0;
    DIR *d = opendir(GT_LIVE_DIR);
    if (!d) return 0;
    int found = 0;
    char path[512];
    while (!found && gd_live_next(d, path, sizeof path)) {
        if (belongs(path, trace_path, have ? &ts : NULL, dead_only)) {
            snprintf(out, cap, "%s", path);
            found = 1;
        }
    }
    closedir(d);
    return found;
}
