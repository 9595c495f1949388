/* output.c: the trace file. See output.h for the invariants. */
#include "output.h"

#include "arena.h"
#include "clock.h"
#include "config.h"
#include "event.h"
#include "fds.h"
#include "go_wire.h"
#include "invariant.h"
#include "log.h"
#include "pages.h"
#include "real.h"
#include "spinlock.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
    gt_spinlock lock;
    int fd;
    dev_t dev; /* the output file the tracer opened (fd may be replaced behind its back) */
    ino_t ino;
    uint64_t generations; /* written so far */
    off_t good_size;      /* bytes of those generations */
} O GT_FORK_WORDS = {.fd = -1};
static char out_path[GT_PATH_MAX]; /* (not among O's words: a fork writes those) */

void output_lock(void)
{
    spin_lock(&O.lock);
}

int output_lock_unless(int (*stop)(void))
{
    return spin_lock_unless(&O.lock, stop);
}

void output_unlock(void)
{
    spin_unlock(&O.lock);
}

const char *output_path(void)
{
    return out_path;
}

uint64_t output_generations(void)
{
    return O.generations;
}

/* A dup2 by the program onto the output's number: the output moves (under the output lock, so
 * no write is under way) and the program gets the number. */
static int move_output(int fd)
{
    output_lock();
    int moved = fds_high_dup(fd);
    if (moved >= 0 && O.fd == fd) O.fd = moved;
    output_unlock();
    return moved;
}

/* Empties a regular file of size bytes for a new trace, whose header (begin_file) then
 * overwrites its first bytes. A longer file is cut to the header's length, not to 0: ext4
 * takes a cut to 0 for a file being replaced, starts writing the new contents out when it is
 * closed, and the next process to empty the file then waits for that write (0.2-0.3 ms a
 * process here when every run writes the same path). */
static int cut(int fd, off_t size)
{
    if (size == 0) return 0;
    return ftruncate(fd, size >= (off_t)GO_TRACE_HEADER_LEN ? (off_t)GO_TRACE_HEADER_LEN : 0);
}

/* A regular file is emptied (cut); anything else (a device, a FIFO) is written as it is. */
static int open_path(void)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) return -1;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            struct stat st;
            if (fstat(fd, &st) == 0 && (!S_ISREG(st.st_mode) || cut(fd, st.st_size) == 0)) {
                O.dev = st.st_dev;
                O.ino = st.st_ino;
                return fds_keep(fd, move_output);
            }
            REAL(close)(fd);
            return -1;
        }
        REAL(close)(fd);
        static char taken[GT_PATH_MAX] GT_BIG; /* one opener at a time: set-up, or the flusher */
        snprintf(taken, sizeof taken, "%s", out_path);
        gt_log("%s is being written by another traced process; this one (pid %ld) writes %s.%ld",
               taken, (long)getpid(), taken, (long)getpid());
        snprintf(out_path, sizeof out_path, "%.*s.%ld", GT_PATH_MAX - 24, taken, (long)getpid());
    }
    errno = EBUSY;
    return -1;
}

/* What of the file is whole, for the reader of a killed process's live file (gt_live.h). */
static void publish(void)
{
    struct gt_live_head *h = arena_head();
    if (!h) return;
    h->out_size = (uint64_t)O.good_size;
    h->out_gens = O.generations;
}

/* path made absolute into out (cap bytes): as it is if it is, else under the working directory
 * (not realpath: a readlink for every component, 3-5 us each on a cold path; the recorded
 * path need only name the file, which recover checks by device and inode); as it is when the
 * working directory is unknown or the whole would not fit. */
static void absolute(const char *path, char *out, size_t cap)
{
    size_t n;
    if (path[0] != '/' && getcwd(out, cap) && (n = strlen(out)) + 1 + strlen(path) < cap) {
        snprintf(out + n, cap - n, "%s%s", out[n - 1] == '/' ? "" : "/", path);
        return;
    }
    snprintf(out, cap, "%s", path);
}

/* The state of a fresh output at path (nothing written yet); the head names it
 * absolute at once: a forked child killed before it opens the file leaves only that name. */
static void reset(const char *path)
{
    snprintf(out_path, sizeof out_path, "%s", path);
    O.generations = 0;
    O.good_size = 0;
    O.dev = 0;
    O.ino = 0;
    state_set_output_name(out_path);
    struct gt_live_head *h = arena_head();
    if (!h) return;
    h->out_dev = h->out_ino = 0;
    publish();
    absolute(out_path, h->out_path, sizeof h->out_path);
}

static int write_all(const uint8_t *p, size_t n);

#define START_MAX (GO_TRACE_HEADER_LEN + 2 * GT_BATCH_HEADER_MAX + GT_EV_MAX + 11)

/* The file's start (output.h) into out: the header, then generation 1's first event, P 0 Idle
 * now (a reader needs one event; generation 1 sees P 0 Idle first when no event came before
 * the file: not so for a file opened at the first write, lazily), and its frequency. Its
 * length. */
static size_t file_start(uint8_t out[START_MAX], int lazily)
{
    uint8_t ev[GT_EV_MAX], freq[11] = {GO_EV_FREQUENCY};
    size_t n = (size_t)(ev_encode(ev, GO_EV_PROC_STATUS, 0, 2, (uint64_t[]){0, GO_P_IDLE}) - ev);
    size_t at = GO_TRACE_HEADER_LEN;
    memcpy(out, GO_TRACE_HEADER, at);
    if (!lazily) {
        at += ev_batch_header(out + at, 1, GO_NO_THREAD, gt_now(), n);
        memcpy(out + at, ev, n);
        at += n;
    }
    n = (size_t)(ev_put_uvarint(freq + 1, GT_TICKS_PER_SEC) - freq);
    at += ev_batch_header(out + at, 1, GO_NO_THREAD, 0, n);
    memcpy(out + at, freq, n);
    return at + n;
}

/* A new file starts as a valid trace with no thread, so a process killed before its first
 * generation leaves a file that reads as empty (and that `gotrace recover` completes); opened
 * lazily, generation 1 follows at once. 0, or -1 with errno. */
static int begin_file(int lazily)
{
    uint8_t start[START_MAX];
    size_t n = file_start(start, lazily);
    if (write_all(start, n) != 0) return -1;
    O.good_size = (off_t)n;
    struct gt_live_head *h = arena_head();
    if (h) { /* the path may have changed (a file taken by another process); absolute, so that
              * recover finds it from anywhere */
        absolute(out_path, h->out_path, sizeof h->out_path);
        h->out_dev = (uint64_t)O.dev;
        h->out_ino = (uint64_t)O.ino;
    }
    publish();
    return 0;
}

int output_open(const char *path)
{
    reset(path);
    O.fd = open_path();
    if (O.fd < 0 || begin_file(0) != 0) {
        gt_log("cannot create trace file %s: %s; running untraced", out_path, strerror(errno));
        return -1;
    }
    return 0;
}

void output_open_lazily(const char *path)
{
    reset(path);
    O.fd = -1;
}

/* O.fd still refers to the file opened here: the hooks keep the program off it, but a system
 * call they do not see (inline assembly, libc's internal calls) can close or replace it, and
 * the tracer must then not write, truncate or close what the number refers to now. */
static int output_intact(void)
{
    struct stat st;
    return fds_is_kept(O.fd) && fstat(O.fd, &st) == 0 && st.st_dev == O.dev && st.st_ino == O.ino;
}

static int write_all(const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = write(O.fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* A forked child's file, opened at its first write or before a change of user (with
 * generation 1's first event when nothing was recorded yet: output.h). */
static void open_lazily(int fresh)
{
    if ((O.fd = open_path()) >= 0 && begin_file(!fresh) != 0) {
        fds_forget(O.fd);
        REAL(close)(O.fd);
        O.fd = -1;
    }
}

void output_open_pending(int fresh)
{
    output_lock();
    if (O.fd < 0 && O.generations == 0 && out_path[0]) open_lazily(fresh);
    output_unlock();
}

int output_write(const uint8_t *p, size_t n)
{
    GT_ASSERT(atomic_load_explicit(&O.lock.v, memory_order_relaxed)); /* one writer at a time */
    if (O.fd < 0) open_lazily(0);
    if (O.fd >= 0 && !output_intact()) {
        fds_forget(O.fd); /* the number is the program's now: never closed or truncated here */
        O.fd = -1;
        state_fail(NULL);
        gt_log("the program closed or replaced the descriptor of %s behind the tracer's back "
               "(a raw system call); tracing stops, the file keeps %llu complete generation(s)",
               out_path, (unsigned long long)O.generations);
        return -1;
    }
    if (O.fd < 0 || write_all(p, n) < 0) {
        int e = errno;
        if (ftruncate(O.fd, O.good_size) < 0) { /* keep what was whole; nothing else to do */
        }
        state_fail(NULL);
        gt_log("cannot write %s: %s; tracing stops, the file keeps %llu complete generation(s)",
               out_path, strerror(e), (unsigned long long)O.generations);
        return -1;
    }
    O.good_size += (off_t)n;
    O.generations++;
    publish();
    return 0;
}

void output_close(void)
{
    if (O.fd < 0) return;
    fds_forget(O.fd);
    if (output_intact()) REAL(close)(O.fd);
    O.fd = -1;
}
