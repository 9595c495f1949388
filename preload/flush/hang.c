/* hang.c: live deadlock detection. See hang.h. */
#include "hang.h"

#include "clock.h"
#include "log.h"
#include "output.h"
#include "stack.h"
#include "strtab.h"
#include "symbolize.h"
#include "syncobj_encode.h"
#include "thread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES_SHOWN 4

static struct {
    uint64_t ticks; /* the period, in gt_now ticks (ns) */
    uint32_t ms;
    void (*log)(const char *text);
} H;

struct node {
    struct gt_thread *t;
    int64_t tid, holder;
    uint64_t since, obj, stk;
    int blocked; /* waiting on a sync object for at least the period */
};

static struct {
    struct node *v;
    size_t n, cap;
} N;

int hang__on;

void hang_init(uint32_t ms, void (*log)(const char *text))
{
    hang__on = ms > 0;
    H.ms = ms;
    H.ticks = (uint64_t)ms * 1000000ull;
    H.log = log;
}

uint32_t hang_wait_ms(uint32_t ms)
{
    uint32_t half = H.ms / 2 ? H.ms / 2 : 1;
    return H.ms && ms > half ? half : ms;
}

static void collect(struct gt_thread *t, void *ctx)
{
    uint64_t now = *(const uint64_t *)ctx;
    if (atomic_load(&t->exited) || !atomic_load(&t->p)) return;
    if (word_state(atomic_load(&t->gword)) != GO_G_WAITING) return;
    uint64_t obj = atomic_load_explicit(&t->wait_obj, memory_order_acquire);
    uint64_t since = atomic_load(&t->wait_since);
    if (N.n == N.cap) {
        size_t cap = N.cap ? N.cap * 2 : 64;
        struct node *v = realloc(N.v, cap * sizeof *v);
        if (!v) return;
        N.v = v;
        N.cap = cap;
    }
    N.v[N.n++] = (struct node){
        t,   atomic_load(&t->tid),         obj ? atomic_load(&t->wait_holder) : 0, since,
        obj, atomic_load(&t->block_stack), obj && now - since >= H.ticks};
}

/* The node of thread tid, or -1. */
static long node_of(int64_t tid)
{
    for (size_t i = 0; tid && i < N.n; i++)
        if (N.v[i].tid == tid) return (long)i;
    return -1;
}

/* Whether a blocked thread waits for what node i holds. */
static int waited_on(size_t i)
{
    for (size_t k = 0; k < N.n; k++)
        if (N.v[k].blocked && N.v[k].holder == N.v[i].tid) return 1;
    return 0;
}

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

/* "thread TID NAME" of node i. */
static void thread_text(const struct node *x, char *buf, size_t cap)
{
    size_t len;
    uint64_t id = atomic_load(&x->t->name_str);
    const char *name = id ? str_get(id, &len) : NULL;
    char fb[256] = "";
    if (!name && x->t->start) frame_text((uintptr_t)x->t->start + 1, fb, sizeof fb);
    if (!name) {
        char *paren = strstr(fb, " (");
        if (paren) *paren = 0;
        name = fb;
    }
    snprintf(buf, cap, "thread %lld %s", (long long)x->tid, name);
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

/* One part of the report: node i waits how long for which object, held by whom. */
static size_t wait_text(const struct node *x, uint64_t now, char *buf, size_t cap)
{
    char who[300], holder[320] = "", obj[600];
    thread_text(x, who, sizeof who);
    long h = node_of(x->holder);
    if (h >= 0) {
        strcpy(holder, " held by ");
        thread_text(&N.v[h], holder + 9, sizeof holder - 9);
    } else if (x->holder > 0) {
        snprintf(holder, sizeof holder, " held by thread %lld", (long long)x->holder);
    } /* else nobody holds it (a condvar, a semaphore) or it is unknown: only a wake-up ends it */
    size_t olen = 0;
    const char *os = str_get(x->obj, &olen);
    int k = os ? so_text(os, olen, obj, sizeof obj) : -1;
    if (k < 0) snprintf(obj, sizeof obj, "%.*s", os ? (int)olen : 0, os ? os : "");
    const char *what = strncmp(obj, "sync: ", 6) ? obj : obj + 6;
    int n = snprintf(buf, cap, "%s waits %llu ms for %s%s", who,
                     (unsigned long long)((now - x->since) / 1000000), *what ? what : "an object",
                     holder);
    return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

/* Reports the threads of path[0..n) (each waits for the next's object; cyclic: the last waits
 * for the first's). */
static void report(const long *path, int n, int cyclic, uint64_t now)
{
    char text[1024];
    size_t len = (size_t)snprintf(text, sizeof text, "%s", cyclic ? "" : "(blocked holder) ");
    for (int i = 0; i < n && len + 16 < sizeof text; i++) {
        if (i) len += (size_t)snprintf(text + len, sizeof text - len, "; ");
        len += wait_text(&N.v[path[i]], now, text + len, sizeof text - len);
    }
    gt_log("deadlock: %s", text);
    for (int i = 0; i < n; i++) {
        char who[300], stk[700];
        thread_text(&N.v[path[i]], who, sizeof who);
        stack_text(N.v[path[i]].stk, stk, sizeof stk);
        gt_log("deadlock:   %s waits at %s", who, stk);
        N.v[path[i]].t->hang_seen = N.v[path[i]].since;
    }
    if (H.log) H.log(text);
}

int hang_round(void)
{
    if (!H.ms) return 0;
    uint64_t now = gt_now();
    int reported = 0;
    output_lock();
    N.n = 0;
    thread_foreach(collect, &now);
    long path[64];
    for (size_t i = 0; i < N.n; i++) {
        if (!N.v[i].blocked || N.v[i].t->hang_seen == N.v[i].since) continue;
        int n = 0, into = 0, cyclic = 0;
        for (long j = (long)i; j >= 0 && N.v[j].blocked && n < 64; j = node_of(N.v[j].holder)) {
            for (int k = 0; k < n; k++)
                if (path[k] == j) into = 1, cyclic = k == 0;
            if (into) break;
            path[n++] = j;
        }
        if (into && !cyclic) continue; /* i leads into a cycle: reported from inside it */
        if (!cyclic && (n < 2 || waited_on(i))) continue; /* a chain: from its head only */
        int fresh = 0;
        for (int k = 0; k < n; k++)
            fresh |= N.v[path[k]].t->hang_seen != N.v[path[k]].since;
        if (!fresh) continue;
        report(path, n, cyclic, now);
        reported = 1;
    }
    output_unlock();
    return reported;
}
