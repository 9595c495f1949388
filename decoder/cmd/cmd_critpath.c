/* cmd_critpath.c: `gotrace critical-path FILE [--thread T | --region NAME | --task ID]
 * [--from TIME] [--to TIME]` — the chain of work that the target's end waited for (the walk:
 * critpath.h): the path's share per thread and per function, then its segments.
 * The target is a window [from, to] on one thread: by default the main thread's lifetime (the
 * run's wall time as the program sees it); --thread another's; --region the longest instance
 * of that region (the holders analysis keeps only it, so memory does not grow with regions);
 * --task the task's begin to its end, walked from the thread that ended it (a task's work
 * ends where it is ended). --from/--to only narrow that window, never widen it: time outside
 * the target's life is not the target's.
 * A target still waiting at its end (a hung program) has its path go on through the holders
 * of what it waits for (critpath.h); a wait the walk cannot follow further because its holder
 * waits for it (a cycle) or exited holding the lock is printed with a "deadlock:" line.
 * Invariants: the shares and the segments each sum to the target's window, so a percentage
 * is of the target's wall time; a target that is not in the trace, or an empty window, is a
 * usage error (status 2: the trace is fine, the question is not); times printed are from the
 * trace's first event, as --from/--to take them. */
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

/* The first top shares of v (largest first, critpath.h) as percentages of all (the window),
 * keyed by thread (funcs 0) or by interned function name (funcs 1). Time the walk traced back
 * to before the first event has no thread: "(before the trace)". */
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

/* Picks the target, computes its path and prints it; 0, or the exit status (a message
 * printed). The analysis ran with intervals kept (GD_SYNC_INTERVALS) and, for --region or
 * --task, noted that target's times during the same pass (holders.h). */
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
        /* A task that never ended has no end to walk back from; one whose begin is before the
         * trace starts at the trace's start. */
        if (s->task_end == INT64_MIN || s->task_g == HD_NONE) goto none;
        g = s->task_g, to = s->task_end, what = "task";
        from = s->task_begin != INT64_MIN ? s->task_begin : s->t0;
    } else {
        g = o->thread ? cp_find_thread(s, o->thread) : cp_main_thread(s);
        if (g == HD_NONE) goto none;
        from = s->a.gs[g].first, to = s->a.gs[g].last, what = o->thread ? "thread" : what;
    }
    /* --from/--to are ns after the first event (-1 when not given); the analysis' times are
     * the trace's. */
    if (o->from >= 0 && s->t0 + o->from > from) from = s->t0 + o->from;
    if (o->to >= 0 && s->t0 + o->to < to) to = s->t0 + o->to;
    if (to <= from) {
        fprintf(stderr, "gotrace: %s: the target's window is empty\n", o->file);
        return GD_EXIT_USAGE;
    }
    struct cp_path p;
    if (cp_compute(s, g, from, to, &p)) { /* status 1, as the other commands' out of memory */
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
    /* Every segment, not --top of them: the segments are the path itself, and a reader checks a
     * share against them. Under a segment with a stack, the function it is charged to: its
     * first frame outside the pthread and semaphore calls (the program's call, not the lock's
     * internals). */
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
        if (sg->note == CP_NOTE_CYCLE) /* hd_gname's buffer: one name per call */
            gd_out_f(out, "  %21s  deadlock: held by %s, which waits for %s\n", "",
                     hd_gname(s, sg->holder, nb), hd_gname(s, sg->g, fb));
        else if (sg->note == CP_NOTE_EXITED)
            gd_out_f(out, "  %21s  deadlock: held by %s, which exited holding it\n", "",
                     hd_gname(s, sg->holder, nb));
    }
    cp_free(&p);
    return 0;
none:
    fprintf(stderr, "gotrace: %s: no such target in the trace\n", o->file);
    return GD_EXIT_USAGE;
}

/* The holders analysis with every interval kept (the walk needs them all), fed to the end of
 * the trace; then write_path. */
int gd_cmd_critical_path(int argc, char **argv)
{
    return gd_cmd_sync_write(argc, argv, "thread,region,task,from,to,top", usage, GD_SYNC_INTERVALS,
                             write_path);
}
