/* hang.c: live deadlock detection. See hang.h. A round collects the live threads and their
 * waits (thread_foreach), indexes them by TID, judges each one (who holds what it waits on now,
 * whether it is stuck), finds the deadlocks in the steps of decoder/analysis/hangs.c (the
 * cycles of holders, the waiters of exited holders, the threads behind those, every thread
 * stuck), then reports what is new; then judges each thread reading a pipe (pipe_round). A deadlock
 * is named by its head, its first thread (in registry order; a cycle's lowest): every thread of it
 * has dl = the head's index. */
#include "hang.h"

#include "clock.h"
#include "hangproc.h"
#include "lockorder.h"
#include "log.h"
#include "output.h"
#include "stack.h"
#include "strtab.h"
#include "symbolize.h"
#include "syncobj.h"
#include "syncobj_encode.h"
#include "thread.h"
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FRAMES_SHOWN 4
#define LINE_ROOM                                                                                  \
    470                       /* a report's first line lists the threads that fit in this (and     \
                                 how many more): log.h prints lines of up to 512 bytes */
#define DEAD_KEPT 256         /* the last exited threads whose names are kept */
#define MUTEX_PSHARED_BIT 128 /* glibc's PTHREAD_MUTEX_PSHARED_BIT, in a mutex's __kind */
#define NOTED UINT64_MAX      /* hang_seen of an exited thread whose name is kept */

static struct {
    uint64_t ticks; /* the period, in gt_now ticks (ns) */
    uint32_t ms;
    void (*log)(const char *key, const char *text);
    int (*catches)(void);
} H;

enum { DL_CYCLE = 1, DL_EXITED, DL_ALL_STUCK };

/* A traced thread alive at the round. */
struct node {
    struct gt_thread *t;
    int64_t tid;
    int64_t holder;           /* of what it waits on: a TID (0 none known), or minus the
                                 goroutine id of a joined thread not started at block time */
    uint64_t since, obj, stk; /* its sync wait (obj != 0): since when, reason string, stack */
    unsigned kind;            /* HANG_* of that wait */
    long next;                /* the node of its holder, -1 */
    long dl;                  /* the head of its deadlock, -1 */
    long mark;                /* the cycle walk that entered it, -1 */
    uint8_t dead;             /* its holder, read in the lock now, is a thread that exited */
    uint8_t stuck, behind, dl_kind;
    int rfd;         /* the descriptor its system call in progress reads, -1 none */
    unsigned rstate; /* GO_G_SYSCALL, or GO_G_WAITING: a pipe read's block (PIPE_READ) */
    uint64_t rsince; /* since when (its GoSyscallBegin, or the block's start) */
};

static struct {
    struct node *v;
    size_t n, cap;
    int partial; /* a thread could not be collected (no memory): the threads are not all known */
    long *ix;    /* the nodes by TID, open addressing (ixcap slots, a power of two; -1 empty) */
    size_t ixcap;
} N;

/* The threads that exited last (a ring), for the names of the holders they were. */
static struct dead {
    int64_t tid;
    uint64_t name_str;
    void *(*start)(void *);
} D[DEAD_KEPT];
static size_t d_next;

/* A (holder, lock) pair reported held at exit. */
struct held {
    int64_t tid;
    uint64_t obj;
};
static struct held *E;
static size_t e_n, e_cap;

int hang__on;

void hang_init(uint32_t ms, void (*log)(const char *key, const char *text), int (*catches)(void))
{
    hang__on = ms > 0;
    H.ms = ms;
    H.ticks = (uint64_t)ms * 1000000ull;
    H.log = log;
    H.catches = catches;
}

uint32_t hang_wait_ms(uint32_t ms)
{
    uint32_t half = H.ms / 2 ? H.ms / 2 : 1;
    return H.ms && ms > half ? half : ms;
}

/* ---- collecting ---- */

static int grow_nodes(void)
{
    size_t cap = N.cap ? N.cap * 2 : 64;
    struct node *v = realloc(N.v, cap * sizeof *v);
    if (!v) return -1;
    N.v = v;
    long *ix = realloc(N.ix, 2 * cap * sizeof *ix);
    if (!ix) return -1;
    N.ix = ix;
    N.cap = cap;
    N.ixcap = 2 * cap;
    return 0;
}

/* Whether x's thread still waits as collected (thread.h wait_*). */
static int view_same(const struct node *x)
{
    const struct gt_thread *t = x->t;
    return atomic_load_explicit(&t->wait_obj, memory_order_acquire) == x->obj &&
           atomic_load(&t->wait_since) == x->since &&
           word_state(atomic_load(&t->gword)) == GO_G_WAITING;
}

/* x's sync wait, if its thread is Waiting in one: the fields, read between two reads of the
 * object and start that must agree (a new wait rewrites them before its object). */
static void read_view(struct node *x)
{
    struct gt_thread *t = x->t;
    uint64_t obj = atomic_load_explicit(&t->wait_obj, memory_order_acquire);
    if (!obj || !atomic_load(&t->p) || word_state(atomic_load(&t->gword)) != GO_G_WAITING) return;
    x->since = atomic_load(&t->wait_since);
    x->kind = atomic_load(&t->wait_kind);
    x->holder = atomic_load(&t->wait_holder);
    x->stk = atomic_load(&t->block_stack);
    x->obj = obj;
    if (!view_same(x)) x->obj = 0;
}

/* Since when thread t, in state st, reads: its GoSyscallBegin, or its pipe read's block. */
static uint64_t read_start(const struct gt_thread *t, unsigned st)
{
    return st == GO_G_SYSCALL ? __atomic_load_n(&t->syscall_ts, __ATOMIC_RELAXED)
                              : atomic_load(&t->read_since);
}

/* x's read in progress (a system call that reads a descriptor, or the block of a pipe read
 * that waits: thread.h read_fd), if its thread is in one: the descriptor and since when, read
 * between two reads of the descriptor. */
static void read_reading(struct node *x)
{
    struct gt_thread *t = x->t;
    int fd = atomic_load_explicit(&t->read_fd, memory_order_acquire);
    unsigned st = word_state(atomic_load(&t->gword));
    if (!fd || (st != GO_G_SYSCALL && st != GO_G_WAITING)) return;
    x->rsince = read_start(t, st);
    if (atomic_load(&t->read_fd) == fd && word_state(atomic_load(&t->gword)) == st) {
        x->rfd = fd - 1;
        x->rstate = st;
    }
}

/* Whether x's thread still reads as collected. */
static int reading_same(const struct node *x)
{
    const struct gt_thread *t = x->t;
    return x->rfd >= 0 && atomic_load(&t->read_fd) == x->rfd + 1 &&
           word_state(atomic_load(&t->gword)) == x->rstate &&
           read_start(t, x->rstate) == x->rsince;
}

/* Keeps the name of exited thread t, once. */
static void note_exit(struct gt_thread *t)
{
    if (t->hang_seen == NOTED) return;
    t->hang_seen = NOTED;
    D[d_next++ % DEAD_KEPT] =
        (struct dead){atomic_load(&t->tid), atomic_load(&t->name_str), t->start};
}

static void collect(struct gt_thread *t, void *ctx)
{
    (void)ctx;
    if (atomic_load(&t->exited)) {
        note_exit(t);
        return;
    }
    if (N.n == N.cap && grow_nodes()) {
        N.partial = 1;
        return;
    }
    struct node *x = &N.v[N.n++];
    *x = (struct node){
        .t = t, .tid = atomic_load(&t->tid), .next = -1, .dl = -1, .mark = -1, .rfd = -1};
    read_view(x);
    read_reading(x);
}

static size_t slot_of(int64_t tid)
{
    return (size_t)(((uint64_t)tid * 0x9e3779b97f4a7c15ull) >> 32) & (N.ixcap - 1);
}

static void index_nodes(void)
{
    if (!N.ixcap) return;
    memset(N.ix, 0xff, N.ixcap * sizeof *N.ix); /* -1 */
    for (size_t i = 0; i < N.n; i++) {
        if (N.v[i].tid <= 0) continue;
        size_t s = slot_of(N.v[i].tid);
        while (N.ix[s] >= 0)
            s = (s + 1) & (N.ixcap - 1);
        N.ix[s] = (long)i;
    }
}

/* The node of thread tid, or -1. */
static long node_of(int64_t tid)
{
    if (tid <= 0 || !N.ixcap) return -1;
    for (size_t s = slot_of(tid);; s = (s + 1) & (N.ixcap - 1))
        if (N.ix[s] < 0 || N.v[N.ix[s]].tid == tid) return N.ix[s];
}

/* ---- judging ---- */

/* The text of the object of reason string obj without "sync: " ("mutex lock_a", "join"). */
static const char *obj_text(uint64_t obj, char *buf, size_t cap)
{
    size_t len = 0;
    const char *s = str_get(obj, &len);
    int k = s ? so_text(s, len, buf, cap) : -1;
    if (k < 0) snprintf(buf, cap, "%.*s", s ? (int)len : 0, s ? s : "");
    return strncmp(buf, "sync: ", 6) ? buf : buf + 6;
}

/* Whether the object of reason string obj (a condvar, semaphore or barrier) lies in the
 * program's static storage: named by its symbol ("condvar wake_cv", "barrier tab+0x10"), not by
 * its address ("condvar 0x5602... from f (f.c:3)") nor generic ("condvar": the table was full). */
static int in_static_storage(uint64_t obj)
{
    char buf[600];
    const char *sp = strchr(obj_text(obj, buf, sizeof buf), ' ');
    return sp && sp[1] && strncmp(sp + 1, "0x", 2);
}

/* The thread that holds the lock x waits on, as glibc records it in the lock now (a mutex's
 * owner, a rwlock's writer; 0 for none, and for a process-shared lock, whose owner may be a
 * thread of another process), read through the kernel: 0 and *tid, or -1 when the lock's address
 * is not known (the object table was full) or it cannot be read. */
static int owner_now(const struct node *x, int64_t *tid)
{
    size_t len = 0;
    uint64_t base;
    uintptr_t addr;
    const char *s = str_get(x->obj, &len);
    if (!s || !so_placeholder(s, len, &base, &addr)) return -1;
    if ((x->kind & HANG_KIND) == HANG_MUTEX) {
        pthread_mutex_t m;
        if (walk_peek(&m, addr, sizeof m)) return -1;
        *tid = m.__data.__kind & MUTEX_PSHARED_BIT ? 0 : m.__data.__owner;
    } else {
        pthread_rwlock_t l;
        if (walk_peek(&l, addr, sizeof l)) return -1;
        *tid = l.__data.__shared ? 0 : l.__data.__cur_writer;
    }
    return 0;
}

/* The state of task tid of this process (/proc: 'R', 'S', 'Z', ...), 0 if it has none, '?'
 * when that cannot be told. */
static char task_state(int64_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%lld/stat", (long long)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT || errno == ESRCH ? 0 : '?';
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return '?';
    buf[n] = 0;
    const char *rp = strrchr(buf, ')'); /* the state follows the command's name */
    return rp && rp[1] == ' ' ? rp[2] : '?';
}

static int task_ended(int64_t tid)
{
    char st = task_state(tid);
    return !st || st == 'Z' || st == 'X';
}

/* The node of x's holder, -1: by TID, or for a joined thread not started at block time, by its
 * goroutine id once it has. */
static long holder_node(const struct node *x)
{
    if (x->holder >= 0) return node_of(x->holder);
    for (size_t i = 0; i < N.n; i++)
        if (N.v[i].t->g == (uint64_t)-x->holder && N.v[i].tid) return (long)i;
    return -1;
}

static int owned(unsigned kind)
{
    kind &= HANG_KIND;
    return kind == HANG_MUTEX || kind == HANG_RWLOCK || kind == HANG_JOIN;
}

/* Fills x's holder (the lock's owner now when it can be read), next, dead and stuck (hang.h). */
static void judge(struct node *x, uint64_t now)
{
    unsigned kind = x->kind & HANG_KIND;
    int64_t owner;
    int read = (kind == HANG_MUTEX || kind == HANG_RWLOCK) && owner_now(x, &owner) == 0;
    if (read) x->holder = owner;
    x->next = owned(kind) ? holder_node(x) : -1;
    x->dead = read && x->holder > 0 && x->next < 0 && task_ended(x->holder);
    if (!(x->kind & HANG_UNTIMED) || x->since > now || now - x->since < H.ticks) return;
    x->stuck = kind == HANG_OWNERLESS ? in_static_storage(x->obj) : x->next >= 0 || x->dead;
}

/* ---- the deadlocks ---- */

/* The thread whose object stuck thread i waits for (alive), -1. */
static long next_of(long i)
{
    return N.v[i].stuck ? N.v[i].next : -1;
}

/* The cycles of next_of: a walk from each stuck thread not yet entered marks the threads it
 * enters; meeting its own mark closes a cycle, headed by its lowest thread. */
static void find_cycles(void)
{
    for (long i = 0; i < (long)N.n; i++) {
        long j = i, head;
        if (!N.v[i].stuck || N.v[i].mark >= 0) continue;
        for (; j >= 0 && N.v[j].mark < 0; j = next_of(j))
            N.v[j].mark = i;
        if (j < 0 || N.v[j].mark != i) continue; /* ends elsewhere */
        head = j;
        for (long k = next_of(j); k != j; k = next_of(k))
            head = k < head ? k : head;
        long k = head;
        do {
            N.v[k].dl = head;
            k = next_of(k);
        } while (k != head);
        N.v[head].dl_kind = DL_CYCLE;
    }
}

/* The stuck waiters of locks whose holder exited, one deadlock per (lock, holder). */
static void find_exited(void)
{
    for (long i = 0; i < (long)N.n; i++) {
        struct node *x = &N.v[i];
        if (!x->stuck || !x->dead || x->dl >= 0) continue;
        long head = i;
        for (long k = 0; k < i && head == i; k++)
            if (N.v[k].dl == k && N.v[k].dl_kind == DL_EXITED && N.v[k].obj == x->obj &&
                N.v[k].holder == x->holder)
                head = k;
        x->dl = head;
        if (head == i) x->dl_kind = DL_EXITED;
    }
}

/* The stuck threads whose holders lead into a deadlock: behind it. Every cycle of next_of is a
 * deadlock already, so each chain ends. */
static void find_behind(void)
{
    for (long i = 0; i < (long)N.n; i++) {
        if (!N.v[i].stuck || N.v[i].dl >= 0) continue;
        long j = next_of(i);
        while (j >= 0 && N.v[j].dl < 0)
            j = next_of(j);
        if (j < 0) continue;
        N.v[i].dl = N.v[j].dl;
        N.v[i].behind = 1;
    }
}

/* Whether every task of the process but this one (the flusher) is a thread collected, asleep in
 * the kernel with its wait (with reads_too, or its read) unchanged, or has ended (a zombie: a
 * main thread that called pthread_exit): no thread the tracer does not see runs, and no waiter
 * was just woken. */
static int tasks_asleep(int reads_too)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    int64_t me = gettid();
    size_t seen = 0;
    int ok = 1;
    for (struct dirent *e; ok && (e = readdir(d));) {
        int64_t tid = atoll(e->d_name);
        if (tid <= 0 || tid == me) continue;
        long i = node_of(tid);
        char st = task_state(tid);
        ok = i >= 0 ? st == 'S' && ((reads_too && reading_same(&N.v[i])) || view_same(&N.v[i]))
                    : !st || st == 'Z' || st == 'X';
        seen += i >= 0;
    }
    closedir(d);
    return ok && seen == N.n;
}

/* Every live thread stuck, and no signal handler of the program's to wake one: those in no
 * deadlock yet are one more. */
static void find_all_stuck(void)
{
    if (N.partial || !N.n) return;
    for (size_t i = 0; i < N.n; i++)
        if (!N.v[i].stuck) return;
    if ((H.catches && H.catches()) || !tasks_asleep(0)) return;
    long head = -1;
    for (long i = 0; i < (long)N.n; i++) {
        if (N.v[i].dl >= 0) continue;
        if (head < 0) N.v[i].dl_kind = DL_ALL_STUCK;
        head = head < 0 ? i : head;
        N.v[i].dl = head;
    }
}

/* ---- reporting ---- */

/* The function of pc as "func (file:line)". */
static void frame_text(uintptr_t pc, char *buf, size_t cap)
{
    struct sym_frame fr[8];
    size_t len;
    int n = sym_lookup(pc, fr, 8);
    const char *fn = n > 0 && fr[n - 1].func_str ? str_get(fr[n - 1].func_str, &len) : NULL;
    const char *file = n > 0 && fr[n - 1].file_str ? str_get(fr[n - 1].file_str, &len) : NULL;
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : file;
    if (base && fr[n - 1].line)
        snprintf(buf, cap, "%s (%s:%llu)", fn ? fn : "?", base, (unsigned long long)fr[n - 1].line);
    else
        snprintf(buf, cap, "%s", fn ? fn : "?");
}

/* "thread TID NAME": its name, else its start routine's function. */
static void thread_text(int64_t tid, uint64_t name_str, void *(*start)(void *), char *buf,
                        size_t cap)
{
    size_t len;
    const char *name = name_str ? str_get(name_str, &len) : NULL;
    char fb[256] = "";
    if (!name && start) {
        frame_text((uintptr_t)start + 1, fb, sizeof fb);
        char *paren = strstr(fb, " (");
        if (paren) *paren = 0;
    }
    name = name ? name : fb;
    snprintf(buf, cap, "thread %lld%s%s", (long long)tid, *name ? " " : "", name);
}

static void node_text(const struct node *x, char *buf, size_t cap)
{
    thread_text(x->tid, atomic_load(&x->t->name_str), x->t->start, buf, cap);
}

/* "thread TID NAME" of thread tid, live or exited lately; "thread TID" if unknown. */
static void holder_text(int64_t tid, char *buf, size_t cap)
{
    long i = node_of(tid);
    if (i >= 0) return node_text(&N.v[i], buf, cap);
    for (size_t k = 1; k <= DEAD_KEPT; k++) {
        const struct dead *d = &D[(d_next - k) % DEAD_KEPT];
        if (d->tid == tid) return thread_text(tid, d->name_str, d->start, buf, cap);
    }
    snprintf(buf, cap, "thread %lld", (long long)tid);
}

static void stack_text(uint64_t stk, char *buf, size_t cap)
{
    const uintptr_t *pcs;
    int n = stack_pcs(stk, &pcs);
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n && i < FRAMES_SHOWN && len + 8 < cap; i++) {
        char fb[256];
        frame_text(pcs[i], fb, sizeof fb);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? " < " : "", fb);
    }
    if (!n) snprintf(buf, cap, "(no stack)");
}

static size_t clamp(int n, size_t cap)
{
    return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

/* "thread T NAME waits N ms for OBJ[ held by thread H NAME[, which exited holding it]]". */
static size_t wait_text(const struct node *x, uint64_t now, char *buf, size_t cap)
{
    char who[300], obj[600], h[300], holder[340] = "";
    node_text(x, who, sizeof who);
    if (x->next >= 0 || x->holder > 0) {
        if (x->next >= 0)
            node_text(&N.v[x->next], h, sizeof h);
        else
            holder_text(x->holder, h, sizeof h);
        snprintf(holder, sizeof holder, " held by %s%s", h,
                 x->dead ? ", which exited holding it" : "");
    }
    return clamp(snprintf(buf, cap, "%s waits %llu ms for %s%s", who,
                          (unsigned long long)((now - x->since) / 1000000),
                          obj_text(x->obj, obj, sizeof obj), holder),
                 cap);
}

/* The thread of deadlock head after m (m < 0: its first), -1 after the last: a cycle in its
 * order (each waits for the next), the others in registry order; not those behind it. */
static long member_after(long head, long m)
{
    if (m < 0) return head;
    if (N.v[head].dl_kind == DL_CYCLE) return N.v[m].next == head ? -1 : N.v[m].next;
    for (long k = m + 1; k < (long)N.n; k++)
        if (N.v[k].dl == head && !N.v[k].behind) return k;
    return -1;
}

/* Whether a thread of deadlock head has a wait not reported yet. */
static int fresh(long head)
{
    for (long m = head; m >= 0; m = member_after(head, m))
        if (N.v[m].t->hang_seen != N.v[m].since) return 1;
    return 0;
}

/* The first line of deadlock head's report: its threads' waits, as many as fit. */
static void head_text(long head, uint64_t now, char *text, size_t cap)
{
    size_t len =
        clamp(snprintf(text, cap, "%s",
                       N.v[head].dl_kind == DL_ALL_STUCK ? "no thread can make progress: " : ""),
              cap);
    int more = 0;
    for (long m = head; m >= 0; m = member_after(head, m)) {
        char part[1024];
        size_t n = wait_text(&N.v[m], now, part, sizeof part);
        if (m != head && (more || len + n + 2 > LINE_ROOM)) {
            more++;
            continue;
        }
        len +=
            clamp(snprintf(text + len, cap - len, "%s%s", m == head ? "" : "; ", part), cap - len);
    }
    if (more) snprintf(text + len, cap - len, "; and %d more", more);
}

/* Reports deadlock head: its first line (also into the trace), a stack line per thread, a line
 * per thread behind it; marks their waits reported. */
static void report(long head, uint64_t now)
{
    char text[LINE_ROOM + 1024], who[300], stk[700];
    head_text(head, now, text, sizeof text);
    gt_log("deadlock: %s", text);
    for (long m = head; m >= 0; m = member_after(head, m)) {
        node_text(&N.v[m], who, sizeof who);
        stack_text(N.v[m].stk, stk, sizeof stk);
        gt_log("deadlock:   %s waits at %s", who, stk);
    }
    for (long i = 0; i < (long)N.n; i++) {
        if (N.v[i].dl != head || !N.v[i].behind) continue;
        char line[1024];
        wait_text(&N.v[i], now, line, sizeof line);
        stack_text(N.v[i].stk, stk, sizeof stk);
        gt_log("deadlock:   behind it: %s, at %s", line, stk);
    }
    for (long i = 0; i < (long)N.n; i++)
        if (N.v[i].dl == head) N.v[i].t->hang_seen = N.v[i].since;
    if (H.log) H.log("gotrace.deadlock", text);
}

/* Whether holder tid's exit holding lock obj was reported; if not, notes it (-1: no memory,
 * then it is not reported). */
static int held_reported(int64_t tid, uint64_t obj)
{
    for (size_t i = 0; i < e_n; i++)
        if (E[i].tid == tid && E[i].obj == obj) return 1;
    if (e_n == e_cap) {
        size_t cap = e_cap ? e_cap * 2 : 16;
        struct held *e = realloc(E, cap * sizeof *e);
        if (!e) return -1;
        E = e;
        e_cap = cap;
    }
    E[e_n++] = (struct held){tid, obj};
    return 0;
}

/* Reports the exit of the holder of the lock that node i waits on, holding it, with the
 * lock's waiters. */
static void report_held(long i)
{
    const struct node *x = &N.v[i];
    char text[1024], h[300], obj[600], w[300];
    holder_text(x->holder, h, sizeof h);
    size_t len = clamp(
        snprintf(text, sizeof text, "%s exited holding %s; ", h, obj_text(x->obj, obj, sizeof obj)),
        sizeof text);
    int waiters = 0;
    for (long k = i; k < (long)N.n; k++) {
        if (!N.v[k].dead || N.v[k].holder != x->holder || N.v[k].obj != x->obj) continue;
        node_text(&N.v[k], w, sizeof w);
        len += clamp(snprintf(text + len, sizeof text - len, "%s%s", waiters++ ? ", " : "", w),
                     sizeof text - len);
    }
    snprintf(text + len, sizeof text - len, " %s for it", waiters > 1 ? "wait" : "waits");
    gt_log("held at exit: %s", text);
    if (H.log) H.log("gotrace.held_at_exit", text);
}

/* A lock a thread held when it ended (lock tracking, lockorder.h), with where it took it. */
static void report_exit_held(void *ctx, const struct lo_exit *e)
{
    char text[1024], th[300], obj[600], site[300];
    thread_text(e->tid, e->name_str, (void *(*)(void *))e->start, th, sizeof th);
    frame_text(e->pc, site, sizeof site);
    snprintf(text, sizeof text, "%s exited holding %s, taken at %s", th,
             obj_text(e->obj, obj, sizeof obj), site);
    gt_log("held at exit: %s", text);
    if (H.log) H.log("gotrace.held_at_exit", text);
    *(int *)ctx = 1;
}

/* ---- a pipe read across processes (docs/locks.md section 6, "Across processes") ---- */

#define IO_GAP_MAX                                                                                 \
    8                /* a look without a verdict waits twice as long as the last, up to this many  \
                        periods */
#define IO_HOLDERS 4 /* other processes holding a write end that are judged */

/* Whether every thread of this process but reader r is stuck, or reads the same descriptor as
 * long, and the program has no handler for a signal from outside: then no thread of it can
 * write to the pipe, nor end the process (which would end a parent's wait for it). */
static int others_stuck(long r, uint64_t now)
{
    if (N.partial || (H.catches && H.catches())) return 0;
    for (long k = 0; k < (long)N.n; k++) {
        const struct node *x = &N.v[k];
        int reads = x->rfd == N.v[r].rfd && x->rsince <= now && now - x->rsince >= H.ticks;
        if (k != r && !x->stuck && !reads) return 0;
    }
    return tasks_asleep(1);
}

/* The first line of the report of reader r (in text): its read, the pipe, each holder's wait. */
static void pipe_text(long r, uint64_t now, const struct hp_pipe *p, const struct hp_holder *h,
                      int nh, int self, char *text, size_t cap)
{
    char who[300], me[20] = "?";
    int pid = getpid();
    node_text(&N.v[r], who, sizeof who);
    hp_comm(pid, me, sizeof me);
    size_t len =
        clamp(snprintf(text, cap, "%s of %s[%d] waits %llu ms reading %s, whose %s end only ", who,
                       me, pid, (unsigned long long)((now - N.v[r].rsince) / 1000000), p->text,
                       strncmp(p->match, "socket:", 7) ? "write" : "peer"),
              cap);
    if (self)
        len += clamp(snprintf(text + len, cap - len, "%s[%d] itself%s", me, pid, nh ? " and " : ""),
                     cap - len);
    for (int k = 0; k < nh; k++)
        len +=
            clamp(snprintf(text + len, cap - len, "%s%s[%d]", k ? ", " : "", h[k].name, h[k].pid),
                  cap - len);
    len += clamp(snprintf(text + len, cap - len, " hold%s", nh + self > 1 ? "" : "s"), cap - len);
    if (self)
        len += clamp(snprintf(text + len, cap - len, "; %s[%d] %s", me, pid,
                              N.n > 1 ? "has its other threads stuck" : "has no other thread"),
                     cap - len);
    for (int k = 0; k < nh; k++)
        for (int j = 0; j < h[k].ntids; j++)
            len += clamp(snprintf(text + len, cap - len, "; %s[%d] thread %lld waits in %s",
                                  h[k].name, h[k].pid, (long long)h[k].tids[j], h[k].waits[j]),
                         cap - len);
}

/* Reports reader r's pipe cycle: its first line (into the trace too, with the threads whose
 * waits make it: "[reader TID; waiting TID...]", the holders' then this process's other
 * threads, for `gotrace hangs`), its stack. */
static void pipe_report(long r, uint64_t now, const struct hp_pipe *p, const struct hp_holder *h,
                        int nh, int self)
{
    char text[1200], facts[300], who[300], stk[700];
    pipe_text(r, now, p, h, nh, self, text, sizeof text);
    gt_log("deadlock: %s", text);
    node_text(&N.v[r], who, sizeof who);
    stack_text(__atomic_load_n(&N.v[r].t->syscall_stack, __ATOMIC_RELAXED), stk, sizeof stk);
    gt_log("deadlock:   %s waits at %s", who, stk);
    size_t len =
        clamp(snprintf(facts, sizeof facts, " [reader %lld; waiting", (long long)N.v[r].tid),
              sizeof facts);
    for (int k = 0; k < nh; k++)
        for (int j = 0; j < h[k].ntids; j++)
            len +=
                clamp(snprintf(facts + len, sizeof facts - len, " %lld", (long long)h[k].tids[j]),
                      sizeof facts - len);
    for (long k = 0; k < (long)N.n; k++) /* this process's other threads, stuck */
        if (k != r)
            len += clamp(snprintf(facts + len, sizeof facts - len, " %lld", (long long)N.v[k].tid),
                         sizeof facts - len);
    snprintf(facts + len, sizeof facts - len, "]");
    size_t tl = strlen(text);
    snprintf(text + tl, sizeof text - tl, "%s", facts);
    N.v[r].t->hang_seen = N.v[r].rsince;
    if (H.log) H.log("gotrace.deadlock", text);
}

/* Whether reader r's look is due: a new read is looked at once it has lasted the period, then
 * after a gap that doubles (to IO_GAP_MAX periods) while nothing is found. */
static int io_due(long r, uint64_t now)
{
    struct gt_thread *t = N.v[r].t;
    if (N.v[r].rfd < 0 || t->hang_seen == N.v[r].rsince || N.v[r].rsince > now ||
        now - N.v[r].rsince < H.ticks)
        return 0;
    if (t->hang_io_since != N.v[r].rsince) {
        t->hang_io_since = N.v[r].rsince;
        t->hang_io_next = 0;
        t->hang_io_gap = H.ticks / 2;
    }
    if (now < t->hang_io_next) return 0;
    t->hang_io_gap =
        t->hang_io_gap * 2 > IO_GAP_MAX * H.ticks ? IO_GAP_MAX * H.ticks : t->hang_io_gap * 2;
    t->hang_io_next = now + t->hang_io_gap;
    return 1;
}

/* Judges reader r: a deadlock when this process cannot move but through r's read (its other
 * threads stuck, no signal handler of the program's: none of them can write to the pipe or end
 * the process) and every holder of the pipe's write end can only move once this process does
 * (hangproc.h): this process itself; the parent, every thread waiting for this process's end.
 * The parent is looked at first (only a parent waits for a child). 1 when reported. */
static int pipe_round(long r, uint64_t now)
{
    struct hp_pipe p;
    struct hp_holder h[IO_HOLDERS];
    int pids[IO_HOLDERS], self = 0, nh = 0;
    if (!io_due(r, now)) return 0;
    if (hp_pipe_of(N.v[r].rfd, &p) || !hp_reads_now(N.v[r].tid, N.v[r].rfd)) return 0;
    if (!others_stuck(r, now)) return 0; /* another thread may write, or end the process */
    struct hp_holder parent = {.pid = getppid()};
    int parent_ok = parent.pid > 1 && hp_waits_for(&parent, getpid());
    if (!parent_ok && !hp_self_holds(&p)) return 0; /* no holder may qualify: no scan */
    int n = hp_holders(&p, &self, pids, IO_HOLDERS);
    if (n < 0 || (!n && !self)) return 0;
    for (int k = 0; k < n; k++) {
        if (pids[k] != parent.pid || !parent_ok) return 0;
        h[nh++] = parent;
    }
    if (!reading_same(&N.v[r]) || !hp_reads_now(N.v[r].tid, N.v[r].rfd)) return 0;
    pipe_report(r, now, &p, h, nh, self);
    return 1;
}

int hang_round(void)
{
    if (!H.ms) return 0;
    uint64_t now = gt_now();
    int reported = 0;
    output_lock();
    lo_exits_drain(report_exit_held, &reported);
    N.n = 0;
    N.partial = 0;
    thread_foreach(collect, NULL);
    index_nodes();
    for (size_t i = 0; i < N.n; i++)
        if (N.v[i].obj) judge(&N.v[i], now);
    find_cycles();
    find_exited();
    find_behind();
    find_all_stuck();
    for (long i = 0; i < (long)N.n; i++)
        if (N.v[i].dead && !held_reported(N.v[i].holder, N.v[i].obj)) {
            report_held(i);
            reported = 1;
        }
    for (long i = 0; i < (long)N.n; i++)
        if (N.v[i].dl == i && fresh(i)) {
            report(i, now);
            reported = 1;
        }
    for (long i = 0; i < (long)N.n; i++)
        reported |= pipe_round(i, now);
    output_unlock();
    return reported;
}
