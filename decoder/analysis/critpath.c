/* critpath.c: the critical path. See critpath.h for the walk and its invariants, and
 * docs/locks.md sec. 4.
 *
 * The walk goes backwards from the target's end because that way each step has one answer:
 * at any instant a thread runs, waits for a CPU, or waits for something, and when another
 * thread ended the wait, what it waited for is that thread's work up to that moment. So the
 * question moves to the waker at the wake-up, and the path is one chain through the threads,
 * with no choice to make; going forwards, one wake-up can lead to many threads. Time a thread
 * spent running or runnable stays on the path (its own work, or the scheduler's latency); a
 * wait nobody ended (a sleep, a timeout, I/O) is itself what the target waited for.
 * A lock wait the waiter ended itself (it took the lock on its own: one of several waiters,
 * docs/blocking.md) has no waker, but holders.c knows who released the lock during the wait:
 * the path goes to the last releaser at its release, and the rest of the wait, from the
 * release to the waiter's wake, is the hand-off on the waiter (its wake-up and retaking the
 * lock).
 * A thread's start continues on its creator at the creation.
 *
 * Budgets: the walk stops after 100,000,000 steps (a step ends a segment or moves to another
 * thread; the cap only guards against a walk that would not end), and what is left of the
 * window is one segment "before the trace", which keeps the segments covering [from, to].
 * The intervals come from holders.c, which keeps them all for the command and up to
 * RM_MAX_SLICES for the report (iv_budget); over that it keeps none and the report does not
 * compute the path. */
#include "critpath.h"

#include "grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cp_state_name(uint8_t st, int handoff)
{
    if (handoff) return "hand-off";
    switch (st) {
    case GS_RUNNING:
        return "running";
    case GS_RUNNABLE:
        return "runnable";
    case GS_WAITING:
        return "waiting";
    case GS_SYSCALL:
        return "syscall";
    }
    return "-";
}

/* The interval of goroutine x holding time t (start < t <= end), or NULL (t outside its
 * lifetime). x's intervals are disjoint and by time (holders.c appends them as they end), so a
 * binary search finds it. Open on the left: the target's end is the end of an interval, and
 * after a segment [start, t] the walk goes on at t = start, which must find the interval that
 * ends there (and a wake-up at t, the wait it ended). */
static const struct hd_iv *iv_at(const struct hd_g *x, int64_t t)
{
    size_t lo = 0, hi = x->niv;
    while (lo < hi) { /* the first with end >= t */
        size_t mid = (lo + hi) / 2;
        if (x->iv[mid].end < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->niv && x->iv[lo].start < t ? &x->iv[lo] : NULL;
}

/* The first goroutine (in order of first mention) that matches: a start routine or a name
 * several threads share picks the first of them; G<id> picks any one. */
uint32_t cp_find_thread(const struct hd *s, const char *want)
{
    char nb[GD_NAME_MAX];
    for (size_t i = 0; i < s->a.ngs; i++) {
        const struct gd_ana_g *g = &s->a.gs[i];
        char id[32];
        snprintf(id, sizeof id, "G%" PRIu64, g->id);
        if (!strcmp(want, id) || !strcmp(want, gd_ana_name(&s->a, g, 0, nb)) ||
            (g->label && !strcmp(want, s->a.str.s[g->label])) ||
            (g->start && !strcmp(want, s->a.str.s[g->start])))
            return (uint32_t)i;
    }
    return HD_NONE;
}

/* The main thread: the goroutine started by "main", else the first one, the default target,
 * because the program's run is the main thread's lifetime. In a merged trace (start functions
 * "NAME[PID] main"), the root process's: of the first thread's process (the first to show). */
uint32_t cp_main_thread(const struct hd *s)
{
    for (size_t i = 0; i < s->a.ngs; i++) {
        const char *f = s->a.gs[i].start ? s->a.str.s[s->a.gs[i].start] : "";
        size_t n = strlen(f);
        if (!s->a.multi && !strcmp(f, "main")) return (uint32_t)i;
        if (s->a.multi && s->a.gs[i].pid == s->a.gs[0].pid && n > 6 && !strcmp(f + n - 6, "] main"))
            return (uint32_t)i;
    }
    return s->a.ngs ? 0 : HD_NONE;
}

/* Adds segment sg, earlier than those in v (the walk goes backwards); an empty one is
 * dropped, and one that continues the last (same thread, state and hand-off, ending where the
 * last begins) extends it, so that the path has one row per stretch of one thread in one
 * state. 0, or -1 when out of memory. */
static int push(struct cp_seg **v, size_t *n, size_t *cap, struct cp_seg sg)
{
    if (sg.end <= sg.start) return 0;
    if (*n && (*v)[*n - 1].g == sg.g && (*v)[*n - 1].state == sg.state &&
        (*v)[*n - 1].handoff == sg.handoff && (*v)[*n - 1].note == sg.note &&
        (*v)[*n - 1].start == sg.end) {
        (*v)[*n - 1].start = sg.start; /* merged (the walk goes backwards) */
        return 0;
    }
    if (gd_grow((void **)v, cap, *n + 1, sizeof(**v))) return -1;
    (*v)[(*n)++] = sg;
    return 0;
}

/* The threads the walk moved through at one time t (following a holder keeps t): meeting one
 * of them again at that t closes a cycle of waits. */
struct seen {
    uint32_t *g;
    size_t n, cap;
    int64_t t;
};

/* Whether interval iv of x is a wait on an object still under way at t: cut by the window (it
 * ends after t), or open when the trace ended (x's last interval, which the analysis' finish
 * closed while x still waited: holders.c keeps x->waiting then). */
static int waiting_at(const struct hd *s, const struct hd_g *x, const struct hd_iv *iv, int64_t t)
{
    if (iv->state != GS_WAITING || iv->obj == HD_NONE) return 0;
    if (iv->end > t) return 1;
    return iv == &x->iv[x->niv - 1] && x->waiting && x->since == iv->start && iv->end == s->a.tend;
}

/* Thread *g waits in iv (under way at *t): what it waits for is the object's holder at *t.
 * Moves the walk there (same *t) and returns 1; or, for a holder already visited at *t (a
 * cycle: ABBA) or one that exited holding the lock, pushes the wait (from st, or from the exit)
 * as a noted segment, moves on (to the exited holder at its exit, or back along *g) and returns
 * 1; 0 when no holder is known (the caller's rules apply); -1 when out of memory. */
static int follow_holder(const struct hd *s, uint32_t *g, int64_t *t, int64_t st,
                         const struct hd_iv *iv, struct seen *seen, struct cp_seg **v, size_t *n,
                         size_t *cap)
{
    struct hd_hold h;
    hd_holder_at(s, iv->obj, iv->holder, iv->start, *t, &h);
    if (h.g == HD_NONE || (h.how != HD_HOLD_BLOCK && h.how != HD_HOLD_HANDED)) return 0;
    const struct gd_ana_g *hg = &s->a.gs[h.g];
    int join = !strncmp(s->a.str.s[s->objs[iv->obj].name], "join", 4);
    if (hg->state == GS_NOTEXIST && hg->last <= *t) { /* exited: the wait waits for nothing */
        int64_t from = hg->last > st ? hg->last : st;
        struct cp_seg sg = {*g,        iv->state,  join ? CP_NOTE_NONE : CP_NOTE_EXITED,
                            0,         from,       *t,
                            iv->stack, iv->reason, h.g};
        if (push(v, n, cap, sg)) return -1;
        if (hg->last > st) *g = h.g; /* its work up to its exit came first */
        *t = from;
        return 1;
    }
    if (seen->t != *t) seen->n = 0, seen->t = *t;
    int cycle = h.g == *g;
    for (size_t i = 0; i < seen->n && !cycle; i++)
        cycle = seen->g[i] == h.g;
    if (cycle) {
        struct cp_seg sg = {*g, iv->state, CP_NOTE_CYCLE, 0, st, *t, iv->stack, iv->reason, h.g};
        if (push(v, n, cap, sg)) return -1;
        *t = st;
        return 1;
    }
    if (gd_grow((void **)&seen->g, &seen->cap, seen->n + 1, sizeof(*seen->g))) return -1;
    seen->g[seen->n++] = *g;
    *g = h.g;
    return 1;
}

/* The walk (see the top comment) from t back to from, on goroutine g: segments newest first
 * into *v (*n of them). Each pass looks at g's interval holding t: none before g's first one
 * (go to its creator at the creation, or stop: it existed before the trace); a wait that
 * ends at t with a waker (go to the waker at t); a wait on a lock or join still under way at t
 * (follow_holder: go to its holder at t); a lock wait with a release by another thread after
 * from (the hand-off, then go to the releaser at the release); anything else is a segment from
 * its start (or from) to t. 0, or -1 when out of memory. */
static int walk(const struct hd *s, uint32_t g, int64_t from, int64_t t, struct cp_seg **v,
                size_t *n)
{
    size_t cap = 0;
    struct seen seen = {NULL, 0, 0, INT64_MIN};
    int rc = 0;
    for (size_t steps = 0; t > from && g != HD_NONE && steps < 100000000 && rc >= 0; steps++) {
        const struct hd_g *x = g < s->gxcap ? &s->gx[g] : NULL;
        const struct hd_iv *iv = x ? iv_at(x, t) : NULL;
        if (!iv && x && x->creator == HD_NONE && s->a.multi) {
            /* a process spawned with no fork log (vfork, posix_spawn): on the parent that
             * waited for it, at its start (holders.c, hd_parent_of) */
            uint32_t p = hd_parent_of(s, g);
            if (p == HD_NONE || p == g) break;
            g = p;
            continue;
        }
        if (!iv) { /* before g's first interval: its creator created it */
            if (!x || x->creator == HD_NONE || x->created > t) break;
            /* a forked process's first thread shows after the fork (holders.c, forked): the
             * time between is the child starting (fork, exec, loading), charged to it */
            int64_t c = x->created > from ? x->created : from;
            struct cp_seg sg = {g, GS_RUNNING, 0, 0, c, t, 0, 0, HD_NONE};
            if (push(v, n, &cap, sg)) return free(seen.g), -1;
            g = x->creator;
            t = x->created;
            continue;
        }
        int64_t st = iv->start > from ? iv->start : from;
        if (iv->state == GS_WAITING && iv->waker != HD_NONE && iv->end <= t) {
            g = iv->waker; /* the wait ended when the waker woke it */
            t = iv->end;
            continue;
        }
        if (waiting_at(s, x, iv, t) &&
            (rc = follow_holder(s, &g, &t, st, iv, &seen, v, n, &cap)) != 0)
            continue; /* 1: moved; -1: out of memory, the loop ends */
        if (iv->state == GS_WAITING && iv->obj != HD_NONE) {
            /* The last release inside the wait is the one that let the waiter in; up to t only:
             * a window that ends inside the wait (--to) looks at who held the object then, not
             * at a release after it (the walk would go forward in time). */
            const struct hd_obj *o = &s->objs[iv->obj];
            size_t first, end;
            hd_releases(o, iv->start, t, &first, &end);
            uint32_t rg = end > first ? hd_g_of_m(s, o->rel[end - 1].m) : HD_NONE;
            if (rg != HD_NONE && rg != g && o->rel[end - 1].t > from) {
                int64_t r = o->rel[end - 1].t;
                struct cp_seg sg = {g, iv->state, 0, 1, r, t, iv->stack, iv->reason, HD_NONE};
                if (push(v, n, &cap, sg)) return free(seen.g), -1;
                g = rg;
                t = r;
                continue;
            }
        }
        struct cp_seg sg = {g, iv->state, 0, 0, st, t, iv->stack, iv->reason, HD_NONE};
        if (push(v, n, &cap, sg)) return free(seen.g), -1;
        t = st;
    }
    free(seen.g);
    if (rc < 0) return -1;
    if (t > from && push(v, n, &cap, (struct cp_seg){HD_NONE, 0, 0, 0, from, t, 0, 0, HD_NONE}))
        return -1;
    return 0;
}

/* qsort order: the largest share first. */
static int by_ns(const void *x, const void *y)
{
    const struct cp_share *a = x, *b = y;
    return (a->ns < b->ns) - (a->ns > b->ns);
}

/* Adds ns to key's share in v. A linear search: a path crosses few threads and functions,
 * and merged segments keep the count low. 0, or -1 when out of memory. */
static int add_share(struct cp_share **v, size_t *n, size_t *cap, uint32_t key, int64_t ns)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].key == key) {
            (*v)[i].ns += ns;
            return 0;
        }
    if (gd_grow((void **)v, cap, *n + 1, sizeof(**v))) return -1;
    (*v)[(*n)++] = (struct cp_share){key, ns};
    return 0;
}

/* The function a segment is charged to: the first frame of its stack outside pthread calls,
 * else its thread's start routine. The stack is the one of the event that began its interval:
 * the blocking call for a wait, the waker's unlock or signal for a runnable one, usually none
 * for a running one (GoStart has no stack: its start routine then). The pthread frames are
 * skipped because every lock wait would be charged to pthread_mutex_lock: the caller says
 * which lock it was. */
static uint32_t seg_func(struct hd *s, const struct cp_seg *sg)
{
    char buf[512];
    if (sg->g == HD_NONE) return gd_intern(&s->a.str, "(before the trace)", 18);
    const char *f = hd_stack_func(sg->stack ? s->a.str.s[sg->stack] : "", buf, sizeof buf);
    if (!*f && s->a.gs[sg->g].start) return s->a.gs[sg->g].start;
    return gd_intern(&s->a.str, f, (uint32_t)strlen(f));
}

/* The shares are summed over the segments as the walk made them, so each sums to to - from
 * like the segments; the segments are then put oldest first for printing. */
int cp_compute(struct hd *s, uint32_t g, int64_t from, int64_t to, struct cp_path *p)
{
    memset(p, 0, sizeof(*p));
    p->from = from;
    p->to = to;
    struct cp_seg *v = NULL;
    size_t n = 0, cg = 0, cf = 0;
    int rc = walk(s, g, from, to, &v, &n);
    for (size_t i = 0; !rc && i < n; i++)
        rc = add_share(&p->byg, &p->ng, &cg, v[i].g, v[i].end - v[i].start) ||
             add_share(&p->byf, &p->nf, &cf, seg_func(s, &v[i]), v[i].end - v[i].start);
    for (size_t i = 0; i < n / 2; i++) { /* oldest first */
        struct cp_seg t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
    p->seg = v;
    p->nseg = n;
    if (!rc) {
        qsort(p->byg, p->ng, sizeof(*p->byg), by_ns);
        qsort(p->byf, p->nf, sizeof(*p->byf), by_ns);
    }
    if (rc) cp_free(p);
    return rc ? -1 : 0;
}

void cp_free(struct cp_path *p)
{
    free(p->seg);
    free(p->byg);
    free(p->byf);
    memset(p, 0, sizeof(*p));
}
