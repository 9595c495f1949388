/* cmd_critpath.c: `gotrace critical-path FILE [--thread T | --region NAME | --task ID]
 * [--from TIME] [--to TIME]` — the chain of work that the target's end waited for (the walk:
 * critpath.h): the path's share per thread and per function, then its segments.
 * Invariants: the shares and the segments each sum to the target's window. */
#include "cli.h"
#include "cmds.h"
#include "critpath.h"

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

static void shares(struct gd_out *out, struct hd *s, const struct cp_share *v, size_t n,
                   int64_t all, int funcs, long top)
{
    char t1[32], nb[GD_NAME_MAX];
    for (size_t i = 0; i < n && i < (size_t)top; i++) {
        const char *name = funcs                 ? s->a.str.s[v[i].key]
                           : v[i].key == HD_NONE ? "(before the trace)"
                                                 : hd_gname(s, v[i].key, nb);
        gd_out_f(out, "  %5.1f%%  %10s  %s\n", all ? 100.0 * (double)v[i].ns / (double)all : 0.0,
                 gd_fmt_dur(v[i].ns, t1, sizeof t1), name);
    }
}

static int write_path(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s)
{
    uint32_t g;
    int64_t from, to;
    char nb[GD_NAME_MAX], t1[32], t2[32], t3[32];
    const char *what = "main thread";
    if (o->region) {
        if (s->region.g == HD_NONE) goto none;
        g = s->region.g, from = s->region.start, to = s->region.end, what = "region";
    } else if (o->task) {
        if (s->task_end == INT64_MIN || s->task_g == HD_NONE) goto none;
        g = s->task_g, to = s->task_end, what = "task";
        from = s->task_begin != INT64_MIN ? s->task_begin : s->t0;
    } else {
        g = o->thread ? cp_find_thread(s, o->thread) : cp_main_thread(s);
        if (g == HD_NONE) goto none;
        from = s->a.gs[g].first, to = s->a.gs[g].last, what = o->thread ? "thread" : what;
    }
    if (o->from >= 0 && s->t0 + o->from > from) from = s->t0 + o->from;
    if (o->to >= 0 && s->t0 + o->to < to) to = s->t0 + o->to;
    if (to <= from) {
        fprintf(stderr, "gotrace: %s: the target's window is empty\n", o->file);
        return GD_EXIT_USAGE;
    }
    struct cp_path p;
    if (cp_compute(s, g, from, to, &p)) {
        fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
        return GD_EXIT_BAD_TRACE;
    }
    int64_t all = to - from;
    gd_out_f(out, "critical path of the %s %s%s%s: %s .. %s, %s, %zu segments\n", what,
             o->region ? o->region : "", o->region ? " on " : "", hd_gname(s, g, nb),
             gd_fmt_dur(from - s->t0, t1, sizeof t1), gd_fmt_dur(to - s->t0, t2, sizeof t2),
             gd_fmt_dur(all, t3, sizeof t3), p.nseg);
    gd_out_s(out, "\nby thread:\n");
    shares(out, s, p.byg, p.ng, all, 0, o->top);
    gd_out_s(out, "\nby function:\n");
    shares(out, s, p.byf, p.nf, all, 1, o->top);
    gd_out_s(out, "\nsegments (oldest first; times from the trace's start):\n");
    for (size_t k = 0; k < p.nseg; k++) {
        const struct cp_seg *sg = &p.seg[k];
        char fb[512];
        const char *f = sg->stack ? hd_stack_func(s->a.str.s[sg->stack], fb, sizeof fb) : "";
        gd_out_f(out, "  %10s %10s  %-9s %s%s%s\n", gd_fmt_dur(sg->start - s->t0, t1, sizeof t1),
                 gd_fmt_dur(sg->end - sg->start, t2, sizeof t2),
                 cp_state_name(sg->state, sg->handoff),
                 sg->g == HD_NONE ? "(before the trace)" : hd_gname(s, sg->g, nb),
                 sg->reason ? "  " : "", sg->reason ? s->a.str.s[sg->reason] : "");
        if (*f) gd_out_f(out, "  %21s  at %s\n", "", f);
    }
    cp_free(&p);
    return 0;
none:
    fprintf(stderr, "gotrace: %s: no such target in the trace\n", o->file);
    return GD_EXIT_USAGE;
}

int gd_cmd_critical_path(int argc, char **argv)
{
    return gd_cmd_sync_write(argc, argv, "thread,region,task,from,to,top", usage, GD_SYNC_INTERVALS,
                             write_path);
}
