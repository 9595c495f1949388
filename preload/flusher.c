/* flusher.c: generation switches and the output file. See flusher.h for the invariants.
 * Writes run on the flusher thread (the writes that other threads need now, for exec, abort,
 * dlclose and exit, are asked of it: flusher_ask; only a process without a flusher thread
 * writes on the asking thread), always under the flush lock; they may allocate (never on the
 * event path). */
#include "flusher.h"

#include "clock.h"
#include "cpuprof.h"
#include "event.h"
#include "fds.h"
#include "go_wire.h"
#include "log.h"
#include "plainlock.h"
#include "stack.h"
#include "status.h"
#include "strings.h"
#include "symbolize.h"
#include "real.h"
#include "section.h"
#include "tracer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ASK_WAIT_MS 30000 /* how long a thread waits for a write it asked of the flusher */

struct bytes {
    uint8_t *p;
    size_t len, cap;
};

static struct {
    int fd;
    dev_t dev; /* the output file the tracer opened (fd may be replaced behind its back) */
    ino_t ino;
    char path[GT_PATH_MAX];
    uint32_t period_ms;
    size_t flush_bytes;
    _Atomic size_t filled[2];  /* event bytes in full buffers, by generation parity */
    _Atomic uint64_t full_gen; /* the last generation whose full buffers passed flush_bytes */
    _Atomic uint32_t wake;     /* futex word: something for the flusher thread to look at */
    atomic_int kicked;         /* flusher_kick: switch now, whatever the generation */
    atomic_int stopped;
    atomic_int failed;
    atomic_int code_unloaded;       /* a library was unloaded: the symbol cache is stale */
    atomic_int running;             /* a flusher thread exists (or is being started) */
    _Atomic uint32_t started;       /* the flusher thread runs its own code (flusher_main) */
    _Atomic uint32_t asked, served; /* writes asked of the flusher thread, and done */
    atomic_int final_asked;         /* the asked write is the last one */
    gt_spinlock lock;
    uint64_t file_gen;
    off_t good_size;
    struct bytes out;
    struct bytes mless[2];
    uint64_t mless_ts[2];
    struct gt_thread **snap;
    size_t nsnap, capsnap;
    size_t batch_start; /* offset of the open structural batch's size field */
} F = {.fd = -1};

/* ---- byte building (flusher only; allocation failures mark the flusher failed) ---- */

static int reserve(struct bytes *b, size_t n)
{
    if (b->len + n <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        flusher_fail("out of memory while writing a generation");
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static void put_bytes(struct bytes *b, const void *src, size_t n)
{
    if (reserve(b, n) == 0) {
        memcpy(b->p + b->len, src, n);
        b->len += n;
    }
}

static void put_uv(struct bytes *b, uint64_t v)
{
    uint8_t tmp[GO_MAX_UVARINT_LEN];
    put_bytes(b, tmp, (size_t)(put_uvarint(tmp, v) - tmp));
}

static void put_batch(uint64_t gen, uint64_t m, uint64_t ts, const uint8_t *data, size_t len)
{
    uint8_t hdr[GT_BATCH_HEADER_MAX];
    put_bytes(&F.out, hdr, batch_header(hdr, gen, m, ts, len));
    put_bytes(&F.out, data, len);
}

/* Structural batches (stacks, strings, frequency): header with a 3-byte size patched later. */
static void struct_begin(uint64_t gen, uint8_t kind)
{
    put_bytes(&F.out, (uint8_t[]){GO_EV_EVENT_BATCH}, 1);
    put_uv(&F.out, gen);
    put_uv(&F.out, GO_NO_THREAD);
    put_uv(&F.out, 0);
    F.batch_start = F.out.len;
    put_bytes(&F.out, (uint8_t[]){0x80, 0x80, 0}, 3);
    put_bytes(&F.out, &kind, 1);
}

static void struct_end(void)
{
    if (atomic_load(&F.failed)) return;
    size_t size = F.out.len - F.batch_start - 3;
    uint8_t *p = F.out.p + F.batch_start;
    p[0] = (uint8_t)(0x80 | (size & 0x7f));
    p[1] = (uint8_t)(0x80 | ((size >> 7) & 0x7f));
    p[2] = (uint8_t)(size >> 14);
}

/* Starts a new batch of the same kind when the next item might not fit. */
static void struct_room(uint64_t gen, uint8_t kind, size_t item_max)
{
    if (F.out.len - F.batch_start - 3 + item_max > GO_MAX_BATCH_PAYLOAD) {
        struct_end();
        struct_begin(gen, kind);
    }
}

/* ---- statuses at the switch ---- */

struct prefix_ctx {
    uint8_t *bytes;
    uint32_t *len;
};

static void prefix_emit(void *ctx, uint8_t type, int n, const uint64_t *args)
{
    struct prefix_ctx *c = ctx;
    uint8_t tmp[GT_EV_MAX];
    size_t k = (size_t)(ev_encode(tmp, type, 0, n, args) - tmp);
    if (*c->len + k > GT_PREFIX_MAX) return; /* cannot happen: at most two statuses */
    memcpy(c->bytes + *c->len, tmp, k);
    *c->len += (uint32_t)k;
}

static void mless_emit(void *ctx, uint8_t type, int n, const uint64_t *args)
{
    struct bytes *b = ctx;
    uint8_t tmp[GT_EV_MAX];
    put_bytes(b, tmp, (size_t)(ev_encode(tmp, type, 0, n, args) - tmp));
}

/* ---- the generation switch ---- */

static void snap_one(struct gt_thread *t, void *ctx)
{
    (void)ctx;
    if (F.nsnap == F.capsnap) {
        size_t cap = F.capsnap ? F.capsnap * 2 : 256;
        struct gt_thread **s = realloc(F.snap, cap * sizeof *s);
        if (!s) {
            atomic_store(&F.failed, 1);
            return;
        }
        F.snap = s;
        F.capsnap = cap;
    }
    F.snap[F.nsnap++] = t;
}

/* Waits until t is not inside a section that began before the switch. */
static int wait_section(struct gt_thread *t)
{
    uint32_t s = atomic_load_explicit(&t->seq, memory_order_seq_cst); /* after section_sync */
    if (!(s & 1)) return 0;
    uint64_t deadline = gt_now_ns() + 2000000000ull;
    for (unsigned i = 0; atomic_load_explicit(&t->seq, memory_order_acquire) == s; i++) {
        if (i > 100) {
            if (gt_now_ns() > deadline) return -1;
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

static void visit_stack(void *ctx, uint64_t id, const uintptr_t *pcs, int n)
{
    uint64_t gen = *(uint64_t *)ctx;
    struct sym_frame fr[GO_MAX_STACK_FRAMES];
    int nf = 0;
    for (int i = 0; i < n && nf < GO_MAX_STACK_FRAMES; i++)
        nf += sym_lookup(pcs[i], fr + nf, GO_MAX_STACK_FRAMES - nf);
    struct_room(F.file_gen + 1, GO_EV_STACKS, 3 * 10 + (size_t)nf * 40);
    put_bytes(&F.out, (uint8_t[]){GO_EV_STACK}, 1);
    put_uv(&F.out, id);
    put_uv(&F.out, (uint64_t)nf);
    for (int i = 0; i < nf; i++) {
        str_mark(fr[i].func_str, gen);
        str_mark(fr[i].file_str, gen);
        put_uv(&F.out, fr[i].pc);
        put_uv(&F.out, fr[i].func_str);
        put_uv(&F.out, fr[i].file_str);
        put_uv(&F.out, fr[i].line);
    }
}

static void visit_string(void *ctx, uint64_t id, const char *s, size_t len)
{
    (void)ctx;
    if (!id) return;
    struct_room(F.file_gen + 1, GO_EV_STRINGS, 3 * 10 + len);
    put_bytes(&F.out, (uint8_t[]){GO_EV_STRING}, 1);
    put_uv(&F.out, id);
    put_uv(&F.out, len);
    put_bytes(&F.out, s, len);
}

static int open_output(const char *path);

/* The output descriptor, opening F.path first in a forked child (lazily); -1 on error. */
static int output_fd(void)
{
    if (F.fd < 0) F.fd = open_output(F.path);
    return F.fd;
}

/* F.fd still refers to the file open_output opened: the hooks keep the program off it, but a
 * system call they do not see (inline assembly, libc's internal calls) can close or replace it,
 * and the tracer must then not write, truncate or close what the number refers to now. */
static int output_intact(void)
{
    struct stat st;
    return fds_is_kept(F.fd) && fstat(F.fd, &st) == 0 && st.st_dev == F.dev && st.st_ino == F.ino;
}

/* One CPU sample; the batch opens with the first sample (an empty one is not written). */
static void visit_sample(void *ctx, const uint64_t rec[5])
{
    int *open = ctx;
    if (!*open) struct_begin(F.file_gen + 1, GO_EV_CPU_SAMPLES);
    *open = 1;
    struct_room(F.file_gen + 1, GO_EV_CPU_SAMPLES, 1 + 5 * GO_MAX_UVARINT_LEN);
    put_bytes(&F.out, (uint8_t[]){GO_EV_CPU_SAMPLE}, 1);
    for (int i = 0; i < 5; i++)
        put_uv(&F.out, rec[i]);
}

static int write_all(const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = write(F.fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Encodes generation gen (internal number) as file generation F.file_gen + 1 and writes it. */
static void write_generation(uint64_t gen)
{
    if (atomic_exchange(&F.code_unloaded, 0)) { /* its addresses may now hold other code */
        sym_fini();
        if (sym_init() != 0) gt_log("symbolization unavailable; stacks will show addresses only");
    }
    int par = (int)(gen & 1);
    uint64_t fg = F.file_gen + 1;
    F.out.len = 0;
    if (F.file_gen == 0) put_bytes(&F.out, GO_TRACE_HEADER, GO_TRACE_HEADER_LEN);
    size_t events_start = F.out.len;
    if (F.mless[par].len)
        put_batch(fg, GO_NO_THREAD, F.mless_ts[par], F.mless[par].p, F.mless[par].len);
    for (size_t i = 0; i < F.nsnap; i++) {
        struct gt_thread *t = F.snap[i];
        uint64_t m = (uint64_t)atomic_load(&t->tid);
        if (t->prefix[par].len)
            put_batch(fg, m, t->prefix[par].ts, t->prefix[par].bytes, t->prefix[par].len);
        struct gt_stream *st = &t->stream[par];
        for (struct gt_buf *b = st->full_head; b; b = b->next)
            if (b->len) put_batch(fg, m, b->base_ts, b->data, b->len);
        if (st->cur && st->len) put_batch(fg, m, st->cur->base_ts, st->cur->data, st->len);
    }
    if (cpuprof_enabled()) { /* samples are timed events: before the emptiness check */
        int open = 0;
        cpuprof_drain(gen, F.snap, F.nsnap, visit_sample, &open);
        if (open) struct_end();
    }
    if (F.out.len == events_start) return; /* nothing happened: no generation */
    struct_begin(fg, GO_EV_STACKS);
    stack_foreach_marked(gen, visit_stack, &gen);
    struct_end();
    struct_begin(fg, GO_EV_STRINGS);
    str_foreach_marked(gen, visit_string, NULL);
    struct_end();
    struct_begin(fg, GO_EV_FREQUENCY);
    put_uv(&F.out, GT_TICKS_PER_SEC);
    struct_end();
    if (atomic_load(&F.failed)) return;
    if (output_fd() >= 0 && !output_intact()) {
        fds_forget(F.fd); /* the number is the program's now: never closed or truncated here */
        F.fd = -1;
        atomic_store(&F.failed, 1);
        atomic_store(&gt_on, 0);
        gt_log("the program closed or replaced the descriptor of %s behind the tracer's back "
               "(a raw system call); tracing stops, the file keeps %llu complete generation(s)",
               F.path, (unsigned long long)F.file_gen);
        return;
    }
    if (output_fd() < 0 || write_all(F.out.p, F.out.len) < 0) {
        int e = errno;
        if (ftruncate(F.fd, F.good_size) < 0) { /* keep what was whole; nothing else to do */
        }
        atomic_store(&F.failed, 1);
        atomic_store(&gt_on, 0);
        gt_log("cannot write %s: %s; tracing stops, the file keeps %llu complete generation(s)",
               F.path, strerror(e), (unsigned long long)F.file_gen);
        return;
    }
    F.good_size += (off_t)F.out.len;
    F.file_gen = fg;
}

static void advance(void)
{
    if (atomic_load(&F.stopped)) return;
    uint64_t n = atomic_load(&gt_gen);
    uint64_t ts = gt_now();
    atomic_store_explicit(&F.filled[(n + 1) & 1], 0, memory_order_relaxed); /* n - 1 is over */
    atomic_store_explicit(&gt_gen, n + 1, memory_order_seq_cst);
    if (section_sync() < 0) { /* cannot tell which threads still write generation n */
        flusher_fail("membarrier failed; cannot end a generation safely");
        return;
    }
    F.nsnap = 0;
    thread_foreach(snap_one, NULL);
    for (size_t i = 0; i < F.nsnap; i++)
        if (wait_section(F.snap[i]) < 0) {
            flusher_fail("a thread stayed inside the tracer for 2 s (interrupted by a signal "
                         "handler that never returned?)");
            return;
        }
    int np = (int)((n + 1) & 1);
    F.mless[np].len = 0;
    F.mless_ts[np] = ts;
    for (size_t i = 0; i < F.nsnap; i++) {
        struct gt_thread *t = F.snap[i];
        t->prefix[np].len = 0;
        t->prefix[np].ts = ts;
        struct prefix_ctx pc = {t->prefix[np].bytes, &t->prefix[np].len};
        status_claim_switch(t, n + 1, prefix_emit, &pc, mless_emit, &F.mless[np]);
    }
    if (!atomic_load(&F.failed)) write_generation(n);
    int par = (int)(n & 1);
    for (size_t i = 0; i < F.nsnap; i++) {
        stream_release(&F.snap[i]->stream[par]);
        F.snap[i]->prefix[par].len = 0;
    }
    F.mless[par].len = 0;
    thread_reap(n);
}

/* ---- the flusher thread ---- */

/* True when every other thread of the process has ended (a main thread that called
 * pthread_exit stays listed as a zombie until the process exits). */
static int only_thread_left(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    int others = 0;
    pid_t me = gettid();
    for (struct dirent *e; (e = readdir(d)) && !others;) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == me) continue;
        char path[300], buf[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0) close(fd);
        if (n <= 0) continue;
        buf[n] = 0;
        const char *rp = strrchr(buf, ')'); /* the state follows the command name */
        if (!rp || rp[1] != ' ' || (rp[2] != 'Z' && rp[2] != 'X')) others = 1;
    }
    closedir(d);
    return !others;
}

/* Sleeps while *w == val, at most ms. The tracer's own futex calls bypass the syscall hook
 * (they are not the program's system calls). */
static void futex_wait_ms(_Atomic uint32_t *w, uint32_t val, uint32_t ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    REAL(syscall)(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static __thread int on_flusher; /* this is the flusher thread */

/* The last switch and write, on any thread; nothing is written after it. */
static void final_here(void)
{
    spin_lock(&F.lock);
    if (!atomic_load(&F.stopped)) {
        advance();
        atomic_store(&F.stopped, 1);
        atomic_store(&gt_on, 0);
    }
    spin_unlock(&F.lock);
}

/* One generation switch and write, under the flush lock. */
static void switch_generation(void)
{
    spin_lock(&F.lock);
    advance();
    spin_unlock(&F.lock);
}

static void *flusher_main(void *arg)
{
    (void)arg;
    gt_internal = 1;
    on_flusher = 1;
    plainlock_tracer_thread();
    atomic_store(&F.started, 1); /* its set-up (allocations) is over: see flusher_fork_prepare */
    REAL(syscall)(SYS_futex, &F.started, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    uint64_t next = gt_now_ns() + (uint64_t)F.period_ms * 1000000ull;
    while (!atomic_load(&F.stopped)) {
        int idle = atomic_load(&gt_live) == 0;
        uint64_t now = gt_now_ns();
        if (!atomic_load(&F.wake) && now < next) {
            uint64_t left_ms = (next - now + 999999) / 1000000;
            futex_wait_ms(&F.wake, 0, idle && left_ms > 20 ? 20 : (uint32_t)left_ms);
        }
        atomic_store(&F.wake, 0); /* what sets it from now on is seen in the next round */
        uint32_t asked = atomic_load(&F.asked);
        int serve = asked != atomic_load(&F.served); /* threads wait for it (flusher_ask) */
        int last = serve && atomic_load(&F.final_asked);
        if (!serve && idle && only_thread_left()) {
            /* Every application thread has ended (main called pthread_exit): glibc would now
             * exit with status 0; this thread must not keep the process alive. */
            flusher_final();
            exit(0);
        }
        /* A size request counts only for the generation it was made in: threads that found
         * the old one full between its switch's start and its end ask nothing more. */
        int full = atomic_load(&F.full_gen) == atomic_load(&gt_gen);
        if (!atomic_exchange(&F.kicked, 0) && !full && !serve && gt_now_ns() < next) continue;
        if (last)
            final_here();
        else
            switch_generation();
        next = gt_now_ns() + (uint64_t)F.period_ms * 1000000ull;
        if (serve) {
            atomic_store(&F.served, asked);
            REAL(syscall)(SYS_futex, &F.served, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
        }
    }
    atomic_store(&F.running, 0);
    return NULL;
}

/* A dup2 by the program onto the output's number: the output moves (under the flush lock, so
 * no write is under way) and the program gets the number. */
static int move_output(int fd)
{
    spin_lock(&F.lock);
    int moved = fds_high_dup(fd);
    if (moved >= 0 && F.fd == fd) F.fd = moved;
    spin_unlock(&F.lock);
    return moved;
}

/* Opens the output at a high descriptor number (fds.h), locked against other traced
 * processes given the same path (a fixed GOTRACE_OUT and a program that starts others): the
 * second one writes PATH.<pid>. A regular file is truncated; anything else (a device, a
 * FIFO) is written as it is. */
static int open_output(const char *path)
{
    if (path != F.path) snprintf(F.path, sizeof F.path, "%s", path);
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(F.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) return -1;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            struct stat st;
            if (fstat(fd, &st) == 0 && (!S_ISREG(st.st_mode) || ftruncate(fd, 0) == 0)) {
                F.dev = st.st_dev;
                F.ino = st.st_ino;
                return fds_keep(fd, move_output);
            }
            REAL(close)(fd);
            return -1;
        }
        REAL(close)(fd);
        gt_log("%s is being written by another traced process; this one (pid %ld) writes %s.%ld",
               path, (long)getpid(), path, (long)getpid());
        snprintf(F.path, sizeof F.path, "%.*s.%ld", GT_PATH_MAX - 24, path, (long)getpid());
    }
    errno = EBUSY;
    return -1;
}

static void close_output(void)
{
    if (F.fd < 0) return;
    fds_forget(F.fd);
    if (output_intact()) REAL(close)(F.fd);
    F.fd = -1;
}

/* The flusher thread, detached, with every signal blocked (the program's signals go to its
 * own threads). */
static int start_thread(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    atomic_store(&F.running, 1);
    atomic_store(&F.started, 0);
    int r = REAL(pthread_create)(&th, &attr, flusher_main, NULL);
    if (r != 0) atomic_store(&F.running, 0);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        gt_log("cannot start the flusher thread: %s; running untraced", strerror(r));
        close_output();
        return -1;
    }
    return 0;
}

int flusher_start(const struct gt_config *cfg, const char *path)
{
    F.period_ms = cfg->period_ms;
    F.flush_bytes = (size_t)cfg->flush_mb << 20;
    F.fd = open_output(path);
    if (F.fd < 0) {
        gt_log("cannot create trace file %s: %s; running untraced", F.path, strerror(errno));
        return -1;
    }
    if (sym_init() != 0) gt_log("symbolization unavailable; stacks will show addresses only");
    return start_thread();
}

static void flusher_wake(void)
{
    atomic_store(&F.wake, 1);
    REAL(syscall)(SYS_futex, &F.wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void flusher_note_full(uint64_t gen, size_t bytes)
{
    size_t sum = atomic_fetch_add_explicit(&F.filled[gen & 1], bytes, memory_order_relaxed) + bytes;
    if (sum <= F.flush_bytes || gen != atomic_load_explicit(&gt_gen, memory_order_relaxed)) return;
    uint64_t asked = atomic_load_explicit(&F.full_gen, memory_order_relaxed);
    if (asked < gen && atomic_compare_exchange_strong(&F.full_gen, &asked, gen))
        flusher_wake(); /* once per generation */
}

void flusher_kick(void)
{
    atomic_store(&F.kicked, 1);
    flusher_wake();
}

void flusher_fail(const char *why)
{
    atomic_store(&gt_on, 0);
    if (!atomic_exchange(&F.failed, 1))
        gt_log("%s; tracing stops, %s keeps the generations written so far", why, F.path);
}

/* A write asked of the flusher thread, when there is one and this is not it: the asking thread
 * may be in a signal handler that interrupted malloc, and writing allocates (symbolization), a
 * deadlock on that thread; the flusher thread allocates from its own arena. 1 when written, 0
 * when the caller must write itself, -1 when the flusher did not answer in time. */
static int flusher_ask(int last)
{
    if (!atomic_load(&F.running) || on_flusher) return 0;
    if (last) atomic_store(&F.final_asked, 1);
    uint32_t mine = atomic_fetch_add(&F.asked, 1) + 1;
    flusher_kick();
    uint64_t end = gt_now_ns() + ASK_WAIT_MS * 1000000ull, now;
    for (;;) {
        uint32_t served = atomic_load(&F.served);
        if ((int32_t)(served - mine) >= 0) return 1;
        if (!atomic_load(&F.running)) return 0; /* it ended (a last write): nothing to do */
        if ((now = gt_now_ns()) >= end) break;
        futex_wait_ms(&F.served, served, (uint32_t)((end - now) / 1000000 + 1));
    }
    gt_log("the flusher did not write within %d s; %s keeps the generations written so far",
           ASK_WAIT_MS / 1000, F.path);
    return -1;
}

void flusher_flush_now(void)
{
    if (flusher_ask(0) == 0) switch_generation();
}

void flusher_code_unloaded(void)
{
    atomic_store(&F.code_unloaded, 1);
}

void flusher_final(void)
{
    if (flusher_ask(1) != 0) return;
    final_here();
    flusher_kick();
}

/* A fork while the flusher thread is still being set up could copy an allocator lock its
 * set-up holds (glibc's malloc is safe across fork, a sanitizer's allocator is not), and the
 * child's own flusher thread would then never start: a process that forks again at once (a
 * shell) waits for its flusher first, at most 1 s. Then no write runs during the fork. */
void flusher_fork_prepare(void)
{
    for (int i = 0; i < 100 && atomic_load(&F.running) && !atomic_load(&F.started); i++)
        futex_wait_ms(&F.started, 0, 10);
    spin_lock(&F.lock);
}
void flusher_fork_parent(void)
{
    spin_unlock(&F.lock);
}

int flusher_fork_child(const char *path)
{
    close_output(); /* the parent's; its lock stays with the parent's descriptor */
    spin_unlock(&F.lock);
    if (!path) {
        atomic_store(&F.stopped, 1);
        atomic_store(&gt_on, 0);
        return 0;
    }
    snprintf(F.path, sizeof F.path, "%s", path);
    atomic_store(&F.stopped, 0);
    atomic_store(&F.failed, 0);
    atomic_store(&F.wake, 0);
    atomic_store(&F.kicked, 0);
    atomic_store(&F.full_gen, 0);
    atomic_store(&F.running, 0); /* the parent's flusher thread does not exist here */
    atomic_store(&F.asked, 0);
    atomic_store(&F.served, 0);
    atomic_store(&F.final_asked, 0);
    atomic_store(&F.filled[0], 0);
    atomic_store(&F.filled[1], 0);
    F.file_gen = 0;
    F.good_size = 0;
    F.nsnap = 0;
    F.mless[0].len = F.mless[1].len = 0;
    return start_thread();
}
