/* cmd_contention.c: `gotrace contention [--top N] FILE` — where threads waited, grouped by the
 * blocking call's stack and reason: count, total and max wait, most frequent wakers; sorted by
 * total wait. Invariant: a wait is the Waiting interval of a goroutine (block to unblock, or
 * to the end of the trace); every wait is counted in exactly one site. */
#include "analysis.h"
#include "cli.h"
#include "cmds.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char usage[] =
    "usage: gotrace contention [--top N] [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Lists where threads waited, grouped by the waiting call's stack and the block reason:\n"
    "number of waits, total and longest wait, and who woke them most often; sorted by total\n"
    "wait. --top N shows the N largest sites (default 20).\n";

static const struct gd_site *sort_sites;
static int by_total(const void *x, const void *y)
{
    const struct gd_site *a = &sort_sites[*(const uint32_t *)x];
    const struct gd_site *b = &sort_sites[*(const uint32_t *)y];
    if (a->total != b->total) return a->total < b->total ? 1 : -1;
    return (a->count < b->count) - (a->count > b->count);
}

static int by_count(const void *x, const void *y)
{
    const struct gd_waker *a = x, *b = y;
    return (a->count < b->count) - (a->count > b->count);
}

int gd_cmd_contention(int argc, char **argv)
{
    struct gd_cmd_opts o;
    int rc = gd_cmd_parse(argc, argv, "top", usage, &o);
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
    uint32_t *idx = malloc((a.nsites + 1) * sizeof(*idx));
    size_t n = 0;
    int64_t all = 0;
    for (size_t i = 0; i < a.nsites; i++) {
        if (a.sites[i].count) idx[n++] = (uint32_t)i;
        all += a.sites[i].total;
    }
    sort_sites = a.sites;
    qsort(idx, n, sizeof(*idx), by_total);
    char t1[32], t2[32], t3[32];
    gd_out_f(&out, "trace: %s: %zu wait sites, total wait %s%s\n", o.file, n,
             gd_fmt_dur(all, t1, sizeof(t1)), n > (size_t)o.top ? " (showing the top ones)" : "");
    for (size_t k = 0; k < n && k < (size_t)o.top; k++) {
        struct gd_site *s = &a.sites[idx[k]];
        const char *reason = s->reason ? a.str.s[s->reason] : "";
        gd_out_f(&out, "\n#%zu  %s  waits=%" PRIu64 "  total=%s  max=%s  avg=%s\n", k + 1,
                 *reason ? reason : "(no reason)", s->count, gd_fmt_dur(s->total, t1, sizeof(t1)),
                 gd_fmt_dur(s->max, t2, sizeof(t2)),
                 gd_fmt_dur(s->count ? s->total / (int64_t)s->count : 0, t3, sizeof(t3)));
        const char *stk = s->stack ? a.str.s[s->stack] : "";
        if (!*stk) {
            gd_out_s(&out, "    (no stack)\n");
        } else {
            for (const char *p = stk; *p;) {
                const char *e = p;
                while (*e && *e != '\n')
                    e++;
                gd_out_s(&out, "    ");
                gd_out_n(&out, p, (size_t)(e - p));
                gd_out_c(&out, '\n');
                p = *e ? e + 1 : e;
            }
        }
        qsort(s->w, s->nw, sizeof(s->w[0]), by_count);
        gd_out_s(&out, "  woken by:");
        for (uint32_t w = 0; w < s->nw; w++)
            gd_out_f(&out, "%s %s (%" PRIu64 ")", w ? "," : "", a.str.s[s->w[w].name],
                     s->w[w].count);
        if (s->wother) gd_out_f(&out, ", others (%" PRIu64 ")", s->wother);
        gd_out_c(&out, '\n');
    }
    free(idx);
    int werr = gd_out_flush(&out);
    gd_out_free(&out);
    gd_ana_free(&a);
    gd_dec_close(&d);
    return werr ? GD_EXIT_BAD_TRACE : GD_EXIT_OK;
}
