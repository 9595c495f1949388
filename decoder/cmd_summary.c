/* cmd_summary.c: `gotrace summary FILE` — a table per thread (goroutine): lifetime, running,
 * runnable, syscall and blocked time, blocked time by reason, number of blocks; then totals.
 * Invariant: times add up per goroutine: running + runnable + syscall + blocked = lifetime
 * (intervals are closed at the goroutine's end or at the end of the trace). */
#include "analysis.h"
#include "cli.h"
#include "cmds.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char usage[] =
    "usage: gotrace summary [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Per thread (goroutine; named after its start routine): lifetime, time running, runnable\n"
    "(woken, not yet running), in syscalls, blocked (total and by reason), number of blocks\n"
    "and syscalls; then totals for the process.\n";

static const struct gd_ana *sort_ana;
static int by_id(const void *x, const void *y)
{
    const struct gd_ana_g *a = &sort_ana->gs[*(const uint32_t *)x];
    const struct gd_ana_g *b = &sort_ana->gs[*(const uint32_t *)y];
    return (a->id > b->id) - (a->id < b->id);
}

static void row(struct gd_out *o, const char *name, const char *gid, const char *mid,
                const int64_t v[5], uint64_t blocks, uint64_t sys)
{
    char b[5][32];
    for (int i = 0; i < 5; i++)
        gd_fmt_dur(v[i], b[i], sizeof(b[i]));
    gd_out_f(o, "%-28.28s %8s %8s %11s %11s %11s %11s %11s %7" PRIu64 " %7" PRIu64 "\n", name, gid,
             mid, b[0], b[1], b[2], b[3], b[4], blocks, sys);
}

int gd_cmd_summary(int argc, char **argv)
{
    struct gd_cmd_opts o;
    int rc = gd_cmd_parse(argc, argv, "", usage, &o);
    if (rc) return rc < 0 ? GD_EXIT_OK : rc;
    struct gd_dec d;
    if ((rc = gd_cmd_open(&d, &o))) return rc;
    struct gd_ana a;
    gd_ana_init(&a, NULL, NULL);
    struct gd_tev ev;
    while ((rc = gd_dec_next(&d, &ev)) > 0)
        if (gd_ana_event(&a, &ev, &d.gen)) {
            fprintf(stderr, "gotrace: %s: out of memory\n", o.file);
            rc = -2;
            break;
        }
    if (rc < 0) {
        if (rc == -1) gd_cmd_fail(&d, &o);
        gd_ana_free(&a);
        gd_dec_close(&d);
        return GD_EXIT_BAD_TRACE;
    }
    gd_ana_finish(&a);
    struct gd_out out;
    gd_out_init(&out, STDOUT_FILENO);
    uint32_t *idx = malloc((a.ngs + 1) * sizeof(*idx));
    for (size_t i = 0; i < a.ngs; i++)
        idx[i] = (uint32_t)i;
    sort_ana = &a;
    qsort(idx, a.ngs, sizeof(*idx), by_id);
    char dur[32];
    gd_out_f(&out, "trace: %s, %" PRIu64 " events, %" PRIu64 " generations, duration %s\n\n",
             o.file, d.nevents, d.ngens, gd_fmt_dur(a.tend - a.t0, dur, sizeof(dur)));
    gd_out_f(&out, "%-28s %8s %8s %11s %11s %11s %11s %11s %7s %7s\n", "THREAD", "G", "M",
             "LIFETIME", "RUNNING", "RUNNABLE", "SYSCALL", "BLOCKED", "BLOCKS", "SYSCALLS");
    int64_t tot[5] = {0};
    uint64_t tblocks = 0, tsys = 0;
    for (size_t k = 0; k < a.ngs; k++) {
        const struct gd_ana_g *g = &a.gs[idx[k]];
        char nb[32], gid[24], mid[24];
        snprintf(gid, sizeof(gid), "%" PRIu64, g->id);
        if (g->m == GD_NONE)
            snprintf(mid, sizeof(mid), "-");
        else
            snprintf(mid, sizeof(mid), "%" PRIu64, g->m);
        int64_t v[5] = {g->last - g->first, g->ns_run, g->ns_runnable, g->ns_sys, g->ns_wait};
        row(&out, gd_ana_name(&a, g, nb, sizeof(nb)), gid, mid, v, g->nblock, g->nsys);
        for (int i = 0; i < 5; i++)
            tot[i] += v[i];
        tblocks += g->nblock;
        tsys += g->nsys;
        for (uint32_t r = 0; r < g->nreasons; r++) {
            const struct gd_reason_acc *ra = &g->reasons[r];
            const char *rs = ra->reason ? a.str.s[ra->reason] : "";
            gd_out_f(&out, "    blocked on %-40.40s %11s in %" PRIu64 " waits\n",
                     *rs ? rs : "(no reason)", gd_fmt_dur(ra->ns, dur, sizeof(dur)), ra->count);
        }
    }
    char n[48];
    snprintf(n, sizeof(n), "TOTAL (%zu threads)", a.ngs);
    row(&out, n, "", "", tot, tblocks, tsys);
    free(idx);
    int werr = gd_out_flush(&out);
    gd_out_free(&out);
    gd_ana_free(&a);
    gd_dec_close(&d);
    return werr ? GD_EXIT_BAD_TRACE : GD_EXIT_OK;
}
