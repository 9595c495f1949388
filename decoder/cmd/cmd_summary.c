/* cmd_summary.c: `gotrace summary FILE` — a table per thread (goroutine, named by
 * gd_ana_name): lifetime, running, runnable, syscall and blocked time, blocked time by reason,
 * number of blocks and syscalls, CPU samples; then totals; then, when the trace has them, CPU
 * samples by leaf function and user tasks and regions by name.
 * How the columns add up: LIFETIME is from the goroutine's first event to its last (or to the
 * trace's last event for one still alive: analysis.c closes its open interval there). Between
 * the two it is always in exactly one state, and each state interval is added, when it ends,
 * to one column: running, runnable (woken, waiting for a CPU), syscall, blocked. A status
 * event that repeats the current state (a fix-up at a generation's start) ends nothing, so it
 * neither splits nor double-counts an interval. BLOCKS counts every wait and is the sum of the
 * "blocked on" lines' waits, as BLOCKED is the sum of their times. The TOTAL row adds the rows:
 * its LIFETIME is thread-time (a sum over threads), not the trace's duration, which the first
 * line gives.
 * Invariant: times add up per goroutine: running + runnable + syscall + blocked = lifetime
 * (intervals are closed at the goroutine's end or at the end of the trace); every CPU sample is
 * counted once in the process total and once for its goroutine (if it has one), so TOTAL's
 * SAMPLES exceeds the rows' sum by the samples without a goroutine. Every order depends on the
 * trace only (ids, values, names, order of first appearance), never on memory or hash order,
 * so the same trace gives the same bytes. */
#include "analysis.h"
#include "cli.h"
#include "cmds.h"
#include "holders.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gotrace summary [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Per thread (goroutine; named after its thread name and start routine): lifetime, time\n"
    "running, runnable (woken, not yet running), in syscalls, blocked (total and by reason),\n"
    "number of blocks and syscalls, CPU samples; then totals for the process, the CPU samples\n"
    "by leaf function, and user tasks and regions by name.\n";

#define TOP_LEAVES 10 /* leaf functions listed under the CPU samples */

/* qsort has no context argument: the comparators read the analysis from here (set by
 * write_summary; one summary per process). */
static const struct gd_ana *sort_ana;
/* Goroutine indices by id: creation order for our traces, whatever order they were seen in. */
static int by_id(const void *x, const void *y)
{
    const struct gd_ana_g *a = &sort_ana->gs[*(const uint32_t *)x];
    const struct gd_ana_g *b = &sort_ana->gs[*(const uint32_t *)y];
    return (a->id > b->id) - (a->id < b->id);
}

/* Name totals: by duration, then count, then name (stable output). */
static int by_ns(const void *x, const void *y)
{
    const struct gd_name_acc *a = x, *b = y;
    if (a->ns != b->ns) return a->ns < b->ns ? 1 : -1;
    if (a->count != b->count) return a->count < b->count ? 1 : -1;
    return strcmp(sort_ana->str.s[a->name], sort_ana->str.s[b->name]);
}
static int by_count(const void *x, const void *y)
{
    const struct gd_name_acc *a = x, *b = y;
    if (a->count != b->count) return a->count < b->count ? 1 : -1;
    return strcmp(sort_ana->str.s[a->name], sort_ana->str.s[b->name]);
}

/* One line of the table: v is lifetime, running, runnable, syscall, blocked (ns). The name is
 * never cut: a longer one pushes its row's columns right (docs/decoder.md), which keeps the
 * thread identifiable where a cut name might not be. */
static void row(struct gd_out *o, const char *name, const char *gid, const char *mid,
                const int64_t v[5], uint64_t blocks, uint64_t sys, uint64_t samples)
{
    char b[5][32];
    for (int i = 0; i < 5; i++)
        gd_fmt_dur(v[i], b[i], sizeof(b[i]));
    gd_out_f(o, "%-28s %8s %8s %11s %11s %11s %11s %11s %7" PRIu64 " %8" PRIu64 " %7" PRIu64 "\n",
             name, gid, mid, b[0], b[1], b[2], b[3], b[4], blocks, sys, samples);
}

/* The table: a row per goroutine, its blocked time by reason under it, then TOTAL. M is the
 * thread it ran on last (the TID for libgotrace.so's traces), "-" if it never ran. */
static void threads(struct gd_out *out, const struct gd_ana *a, const struct hd *s)
{
    /* Indices, not the goroutines, are sorted: a->gs's order is what the holders analysis
     * indexes (hd_top_holder's g), and +1 keeps a trace without goroutines from a malloc(0). */
    uint32_t *idx = malloc((a->ngs + 1) * sizeof(*idx));
    if (!idx) return;
    for (size_t i = 0; i < a->ngs; i++)
        idx[i] = (uint32_t)i;
    qsort(idx, a->ngs, sizeof(*idx), by_id);
    gd_out_f(out, "%-28s %8s %8s %11s %11s %11s %11s %11s %7s %8s %7s\n", "THREAD", "G", "M",
             "LIFETIME", "RUNNING", "RUNNABLE", "SYSCALL", "BLOCKED", "BLOCKS", "SYSCALLS",
             "SAMPLES");
    int64_t tot[5] = {0};
    uint64_t tblocks = 0, tsys = 0;
    char dur[32];
    for (size_t k = 0; k < a->ngs; k++) {
        const struct gd_ana_g *g = &a->gs[idx[k]];
        char nb[GD_NAME_MAX], gid[24], mid[24];
        snprintf(gid, sizeof(gid), "%" PRIu64, g->id);
        if (g->m == GD_NONE)
            snprintf(mid, sizeof(mid), "-");
        else
            snprintf(mid, sizeof(mid), "%" PRIu64, g->m);
        int64_t v[5] = {g->last - g->first, g->ns_run, g->ns_runnable, g->ns_sys, g->ns_wait};
        row(out, gd_ana_name(a, g, 0, nb), gid, mid, v, g->nblock, g->nsys, g->nsamples);
        for (int i = 0; i < 5; i++)
            tot[i] += v[i];
        tblocks += g->nblock;
        tsys += g->nsys;
        for (uint32_t r = 0; r < g->nreasons; r++) {
            const struct gd_reason_acc *ra = &g->reasons[r];
            const char *rs = ra->reason ? a->str.s[ra->reason] : "";
            gd_out_f(out, "    blocked on %-40s %11s in %" PRIu64 " waits",
                     *rs ? rs : "(no reason)", gd_fmt_dur(ra->ns, dur, sizeof(dur)), ra->count);
            int64_t held;
            /* Who made it wait most: the waker is often just another waiter, the holder is the
             * one the waits were for (docs/locks.md); its share of this reason's time. Only
             * traces that record holders (libgotrace.so's) have one. Nothing holds a condvar,
             * semaphore or barrier: there, who ended the waits most (signalled, posted, arrived
             * last), or that they ended themselves. */
            uint32_t h = hd_top_holder(s, idx[k], ra->reason, &held);
            char ph[GD_NAME_MAX + 32];
            int pw = hd_process_wait(s, ra->reason); /* ended by another process's thread */
            double pct = ra->ns ? 100.0 * (double)held / (double)ra->ns : 0.0;
            if (held > 0 && pw)
                gd_out_f(out, ", %.0f%% ended by %s%s", pct, gd_ana_name(&s->a, &s->a.gs[h], 0, ph),
                         pw == 1 ? " (exited)" : "");
            else if (held > 0)
                gd_out_f(out, ", %.0f%% %s", pct,
                         hd_phrase(s, hd_kind_of(rs), h, 0, ph, sizeof ph));
            gd_out_c(out, '\n');
        }
        for (uint32_t r = 0; r < g->nfds; r++) /* syscalls that waited on another process */
            gd_out_f(out, "    syscalls on %-39s %11s in %" PRIu64 " calls\n",
                     a->str.s[g->fds[r].reason], gd_fmt_dur(g->fds[r].ns, dur, sizeof(dur)),
                     g->fds[r].count);
    }
    char n[48];
    snprintf(n, sizeof(n), "TOTAL (%zu threads)", a->ngs);
    row(out, n, "", "", tot, tblocks, tsys, a->nsamples);
    free(idx);
}

/* CPU samples by the function they were taken in (the leaf frame), as shares of all samples,
 * those without a goroutine included. The leaves are sorted in place: the analysis' name ->
 * index map of them is stale afterwards, and nothing reads it after this. */
static void samples(struct gd_out *out, struct gd_ana *a)
{
    if (!a->nsamples) return;
    gd_out_f(out,
             "\nCPU samples: %" PRIu64 " (%" PRIu64
             " without a goroutine); top functions (leaf frame):\n",
             a->nsamples, a->nsamples_nog);
    qsort(a->leaves.v, a->leaves.n, sizeof(*a->leaves.v), by_count);
    for (size_t i = 0; i < a->leaves.n && i < TOP_LEAVES; i++) {
        const struct gd_name_acc *l = &a->leaves.v[i];
        gd_out_f(out, "    %7" PRIu64 " %5.1f%%  %s\n", l->count,
                 100.0 * (double)l->count / (double)a->nsamples, a->str.s[l->name]);
    }
}

/* User tasks and regions by name (include/gotrace.h's annotations), by total time. A task's
 * TOTAL and AVG are over the tasks that ended (one still open has no duration yet); tasks
 * ended without a begin in the trace are not counted (analysis.c). A region's COUNT is of the
 * regions that closed, each of which has a duration (one open at its goroutine's or the
 * trace's end is closed there), so its average never divides by zero. */
static void annotations(struct gd_out *out, struct gd_ana *a)
{
    char t1[32], t2[32];
    if (a->tasks.n) {
        qsort(a->tasks.v, a->tasks.n, sizeof(*a->tasks.v), by_ns);
        gd_out_f(out, "\n%-44s %7s %7s %11s %11s\n", "USER TASK", "BEGUN", "ENDED", "TOTAL", "AVG");
        for (size_t i = 0; i < a->tasks.n; i++) {
            const struct gd_name_acc *t = &a->tasks.v[i];
            gd_out_f(out, "%-44s %7" PRIu64 " %7" PRIu64 " %11s %11s\n", a->str.s[t->name],
                     t->count, t->ended, gd_fmt_dur(t->ns, t1, sizeof(t1)),
                     gd_fmt_dur(t->ended ? t->ns / (int64_t)t->ended : 0, t2, sizeof(t2)));
        }
    }
    if (a->regions.n) {
        qsort(a->regions.v, a->regions.n, sizeof(*a->regions.v), by_ns);
        gd_out_f(out, "\n%-52s %7s %11s %11s\n", "USER REGION", "COUNT", "TOTAL", "AVG");
        for (size_t i = 0; i < a->regions.n; i++) {
            const struct gd_name_acc *r = &a->regions.v[i];
            gd_out_f(out, "%-52s %7" PRIu64 " %11s %11s\n", a->str.s[r->name], r->count,
                     gd_fmt_dur(r->ns, t1, sizeof(t1)),
                     gd_fmt_dur(r->ns / (int64_t)r->count, t2, sizeof(t2)));
        }
    }
}

static int write_summary(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s)
{
    char dur[32];
    struct gd_ana *a = &s->a;
    sort_ana = a;
    gd_out_f(out, "trace: %s, %" PRIu64 " events, %" PRIu64 " generations, duration %s\n\n",
             o->file, s->nevents, s->ngens, gd_fmt_dur(a->tend - a->t0, dur, sizeof(dur)));
    threads(out, a, s);
    samples(out, a);
    annotations(out, a);
    return 0;
}

/* The holders analysis (cli.c's gd_cmd_sync_write), holders only: summary names each reason's
 * top holder, and needs neither the objects' detail nor the intervals. */
int gd_cmd_summary(int argc, char **argv)
{
    return gd_cmd_sync_write(argc, argv, "", usage, GD_SYNC_HOLDERS_ONLY, write_summary);
}
