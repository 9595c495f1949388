/* cmd_critpath.c: `gotrace critical-path FILE [--thread T | --region NAME | --task ID]
 * [--from TIME] [--to TIME]` — the chain of work that the target's end waited for: from the
 * end of the target, walk back along its thread; a wait that another thread ended (a wake-up)
 * continues on the waker from the wake-up; a lock wait ended by a release continues on the
 * releaser from its release (syncana.h); a thread's start continues on its creator; anything
 * else (running, runnable, a wait nobody ended: sleep, timeout, I/O) is a segment of the path.
 * Prints the segments and the path's share per thread and per function.
 * Invariants: the segments are disjoint, cover the target's window [start, end] exactly where
 * the walk reaches back to start (else the rest is "before the trace"), and their durations
 * sum to end - start. */
#include "cli.h"
#include "cmds.h"
#include "syncana.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gotrace critical-path [--thread T | --region NAME | --task ID] [--from TIME]\n"
    "                             [--to TIME] [--top N] [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Walks back from the end of the target through wake-ups (the waiter, the thread that woke\n"
    "it, the thread that woke that one, ...) and prints the path as segments (thread, state,\n"
    "duration, where) and its share per thread and per function, summing to the target's\n"
    "wall time. The target is the main thread's lifetime, or thread T's (its name or G<id>),\n"
    "the longest instance of user region NAME, or user task ID; --from/--to (1.5s, 300ms,\n"
    "20us or ns after the trace's start) narrow it. --top N limits the shares listed (default\n"
    "20). Exit status 0 ok, 1 bad trace, 2 bad usage (also: no such target), 3 input/output\n"
    "error.\n";

struct seg {
    uint32_t g;
    uint8_t state;
    int handoff; /* a lock wait's hand-off after the holder's release */
    int64_t start, end;
    uint32_t stack, reason;
};

struct share {
    uint32_t key; /* goroutine index or interned function */
    int64_t ns;
};

static const char *state_name(uint8_t st, int handoff)
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

/* The interval of goroutine x holding time t (start < t <= end), or NULL. */
static const struct sa_iv *iv_at(const struct sa_g *x, int64_t t)
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

static uint32_t find_thread(const struct sa *s, const char *want)
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
    return SA_NONE;
}

/* The main thread: the goroutine started by "main", else the first one. */
static uint32_t main_thread(const struct sa *s)
{
    for (size_t i = 0; i < s->a.ngs; i++)
        if (s->a.gs[i].start && !strcmp(s->a.str.s[s->a.gs[i].start], "main")) return (uint32_t)i;
    return s->a.ngs ? 0 : SA_NONE;
}

static int push(struct seg **v, size_t *n, size_t *cap, struct seg sg)
{
    if (sg.end <= sg.start) return 0;
    if (*n && (*v)[*n - 1].g == sg.g && (*v)[*n - 1].state == sg.state &&
        (*v)[*n - 1].handoff == sg.handoff && (*v)[*n - 1].start == sg.end) {
        (*v)[*n - 1].start = sg.start; /* merged (the walk goes backwards) */
        return 0;
    }
    if (gd_grow((void **)v, cap, *n + 1, sizeof(**v))) return -1;
    (*v)[(*n)++] = sg;
    return 0;
}

/* The walk (see the top comment): segments newest first. */
static int walk(const struct sa *s, uint32_t g, int64_t from, int64_t t, struct seg **v, size_t *n)
{
    size_t cap = 0;
    for (size_t steps = 0; t > from && g != SA_NONE && steps < 100000000; steps++) {
        const struct sa_g *x = g < s->gxcap ? &s->gx[g] : NULL;
        const struct sa_iv *iv = x ? iv_at(x, t) : NULL;
        if (!iv) { /* before g's first interval: its creator created it */
            if (!x || x->creator == SA_NONE || x->created > t) break;
            g = x->creator;
            t = x->created;
            continue;
        }
        int64_t st = iv->start > from ? iv->start : from;
        if (iv->state == GS_WAITING && iv->waker != SA_NONE && iv->end <= t) {
            g = iv->waker; /* the wait ended when the waker woke it */
            t = iv->end;
            continue;
        }
        if (iv->state == GS_WAITING && iv->obj != SA_NONE) {
            const struct sa_obj *o = &s->objs[iv->obj];
            size_t first, end;
            sa_releases(o, iv->start, iv->end, &first, &end);
            uint32_t rg = end > first ? sa_g_of_m(s, o->rel[end - 1].m) : SA_NONE;
            if (rg != SA_NONE && rg != g && o->rel[end - 1].t > from) {
                int64_t r = o->rel[end - 1].t;
                if (push(v, n, &cap, (struct seg){g, iv->state, 1, r, t, iv->stack, iv->reason}))
                    return -1;
                g = rg;
                t = r;
                continue;
            }
        }
        if (push(v, n, &cap, (struct seg){g, iv->state, 0, st, t, iv->stack, iv->reason}))
            return -1;
        t = st;
    }
    if (t > from && push(v, n, &cap, (struct seg){SA_NONE, 0, 0, from, t, 0, 0})) return -1;
    return 0;
}

static int by_ns(const void *x, const void *y)
{
    const struct share *a = x, *b = y;
    return (a->ns < b->ns) - (a->ns > b->ns);
}

static int add_share(struct share **v, size_t *n, size_t *cap, uint32_t key, int64_t ns)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].key == key) {
            (*v)[i].ns += ns;
            return 0;
        }
    if (gd_grow((void **)v, cap, *n + 1, sizeof(**v))) return -1;
    (*v)[(*n)++] = (struct share){key, ns};
    return 0;
}

/* The function a segment is charged to: the first frame of its stack outside pthread calls,
 * else its thread's start routine. */
static uint32_t seg_func(struct sa *s, const struct seg *sg)
{
    char buf[512];
    if (sg->g == SA_NONE) return gd_intern(&s->a.str, "(before the trace)", 18);
    const char *f = sa_stack_func(sg->stack ? s->a.str.s[sg->stack] : "", buf, sizeof buf);
    if (!*f && s->a.gs[sg->g].start) return s->a.gs[sg->g].start;
    return gd_intern(&s->a.str, f, (uint32_t)strlen(f));
}

static void shares(struct gd_out *out, struct sa *s, struct share *v, size_t n, int64_t all,
                   int funcs, long top)
{
    char t1[32], nb[GD_NAME_MAX];
    qsort(v, n, sizeof(*v), by_ns);
    for (size_t i = 0; i < n && i < (size_t)top; i++) {
        const char *name = funcs                 ? s->a.str.s[v[i].key]
                           : v[i].key == SA_NONE ? "(before the trace)"
                                                 : sa_gname(s, v[i].key, nb);
        gd_out_f(out, "  %5.1f%%  %10s  %s\n", all ? 100.0 * (double)v[i].ns / (double)all : 0.0,
                 gd_fmt_dur(v[i].ns, t1, sizeof t1), name);
    }
}

static int write_path(struct gd_out *out, const struct gd_cmd_opts *o, struct sa *s)
{
    uint32_t g;
    int64_t from, to;
    char nb[GD_NAME_MAX], t1[32], t2[32], t3[32];
    const char *what = "main thread";
    if (o->region) {
        if (s->region.g == SA_NONE) goto none;
        g = s->region.g, from = s->region.start, to = s->region.end, what = "region";
    } else if (o->task) {
        if (s->task_end == INT64_MIN || s->task_g == SA_NONE) goto none;
        g = s->task_g, to = s->task_end, what = "task";
        from = s->task_begin != INT64_MIN ? s->task_begin : s->t0;
    } else {
        g = o->thread ? find_thread(s, o->thread) : main_thread(s);
        if (g == SA_NONE) goto none;
        from = s->a.gs[g].first, to = s->a.gs[g].last, what = o->thread ? "thread" : what;
    }
    if (o->from >= 0 && s->t0 + o->from > from) from = s->t0 + o->from;
    if (o->to >= 0 && s->t0 + o->to < to) to = s->t0 + o->to;
    if (to <= from) {
        fprintf(stderr, "gotrace: %s: the target's window is empty\n", o->file);
        return GD_EXIT_USAGE;
    }
    struct seg *v = NULL;
    struct share *byg = NULL, *byf = NULL;
    size_t n = 0, ng = 0, nf = 0, cg = 0, cf = 0;
    int rc = walk(s, g, from, to, &v, &n);
    for (size_t i = 0; !rc && i < n; i++)
        rc = add_share(&byg, &ng, &cg, v[i].g, v[i].end - v[i].start) ||
             add_share(&byf, &nf, &cf, seg_func(s, &v[i]), v[i].end - v[i].start);
    if (rc) {
        free(v), free(byg), free(byf);
        fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
        return GD_EXIT_BAD_TRACE;
    }
    int64_t all = to - from;
    gd_out_f(out, "critical path of the %s %s%s%s: %s .. %s, %s, %zu segments\n", what,
             o->region ? o->region : "", o->region ? " on " : "", sa_gname(s, g, nb),
             gd_fmt_dur(from - s->t0, t1, sizeof t1), gd_fmt_dur(to - s->t0, t2, sizeof t2),
             gd_fmt_dur(all, t3, sizeof t3), n);
    gd_out_s(out, "\nby thread:\n");
    shares(out, s, byg, ng, all, 0, o->top);
    gd_out_s(out, "\nby function:\n");
    shares(out, s, byf, nf, all, 1, o->top);
    gd_out_s(out, "\nsegments (oldest first; times from the trace's start):\n");
    for (size_t k = n; k-- > 0;) {
        const struct seg *sg = &v[k];
        char fb[512];
        const char *f = sg->stack ? sa_stack_func(s->a.str.s[sg->stack], fb, sizeof fb) : "";
        gd_out_f(out, "  %10s %10s  %-9s %s%s%s%s\n", gd_fmt_dur(sg->start - s->t0, t1, sizeof t1),
                 gd_fmt_dur(sg->end - sg->start, t2, sizeof t2), state_name(sg->state, sg->handoff),
                 sg->g == SA_NONE ? "(before the trace)" : sa_gname(s, sg->g, nb),
                 sg->reason ? "  " : "", sg->reason ? s->a.str.s[sg->reason] : "", *f ? "" : "");
        if (*f) gd_out_f(out, "  %21s  at %s\n", "", f);
    }
    free(v), free(byg), free(byf);
    return 0;
none:
    fprintf(stderr, "gotrace: %s: no such target in the trace\n", o->file);
    return GD_EXIT_USAGE;
}

int gd_cmd_critical_path(int argc, char **argv)
{
    return gd_cmd_sync_write(argc, argv, "thread,region,task,from,to,top", usage, 1, write_path);
}
