/* cmd_report.c: `gotrace report FILE [-o OUT.html]` — one self-contained HTML page to look at
 * a trace in a browser, offline: each thread's timeline (states, wake-ups, regions, CPU
 * samples), the summary's per-thread table, flame graphs of where threads waited and ran.
 * One pass of the shared analysis feeds both the holders analysis (locks, and the intervals
 * of the critical path) and the report's model (timeline, profiles), chained (hd_chain). The page
 * needs totals (the threads' table, the flame graphs, the locks) before its data can be laid out,
 * so unlike export it cannot stream: it writes after the last event. Invariants: the whole trace is
 * read and analysed (report_model.c) before anything is written, so a bad trace writes nothing,
 * even with -o -; the page goes through sink.c (whole or not at all, never over the input); OUT
 * defaults to FILE with its extension replaced by .html; memory is bounded by the model's budgets
 * (report_model.h), whatever the trace's length. */
#include "cli.h"
#include "cmds.h"
#include "report_page.h"
#include "sink.h"
#include "holders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gotrace report [--max-gen-mem BYTES] FILE [-o OUT.html]\n"
    "\n"
    "Writes one HTML page (no network needed; open it in any browser) showing each thread's\n"
    "timeline (running, runnable, blocked by reason, in system calls; who woke whom; user\n"
    "regions; CPU samples), the per-thread table of `gotrace summary`, and flame graphs of\n"
    "blocking, system calls, scheduling latency and CPU samples. OUT.html defaults to FILE with\n"
    "its extension replaced by .html; -o - writes to stdout. Above 200000 intervals the\n"
    "timeline shows the main state per bucket of the trace's duration (the page says so).\n";

/* FILE with its extension (if any) replaced by ".html"; NULL when out of memory. Only a dot
 * in the last path component counts ("runs.d/app" gives "runs.d/app.html"), and a trailing dot
 * is not an extension. The page lands next to the trace, where its reader looks for it. */
static char *default_out(const char *file)
{
    const char *slash = strrchr(file, '/'), *dot = strrchr(file, '.');
    size_t n = dot && dot > (slash ? slash : file) && dot[1] ? (size_t)(dot - file) : strlen(file);
    char *out = malloc(n + 6);
    if (out) snprintf(out, n + 6, "%.*s.html", (int)n, file);
    return out;
}

/* What the page is made of (gd_sink_write's fill takes one context pointer). */
struct page {
    const struct gd_cmd_opts *o;
    const struct gd_dec *d;
    struct gd_ana *a;
    const struct rm *m;
};

/* Writing the page cannot fail by itself (write errors are the stream's, caught at close). */
static int fill_page(struct gd_out *out, void *ctx)
{
    const struct page *p = ctx;
    gd_report_page(out, p->o->file, p->d, p->a, p->m);
    return 0;
}

/* Writes the page of the analysed trace to path; the exit status. */
static int write_page(const char *path, const struct gd_cmd_opts *o, const struct gd_dec *d,
                      struct gd_ana *a, const struct rm *m)
{
    struct page p = {o, d, a, m};
    return gd_sink_write(path, o->file, fill_page, &p);
}

/* Analyses the trace of o into s (locks, holders, the critical path's intervals while they fit
 * the timeline's budget; holders.h) and m (the report's model, fed by the same pass); 0, or
 * the exit status of the failure. */
static int analyse(const struct gd_cmd_opts *o, struct gd_dec *d, struct hd *s, struct rm *m)
{
    /* The critical path's intervals are kept only up to the timeline's budget, so memory stays
     * bounded whatever the trace's length; above it the page says the path was not computed
     * (`gotrace critical-path`, which keeps them all, computes it). */
    hd_init(s, 1);
    s->iv_budget = RM_MAX_SLICES;
    rm_init(m, &s->a);
    hd_chain(s); /* after rm_init set its callbacks: the model's are called after the holders' */
    m->sync = s;
    int rc = hd_run(s, d, o->file, INT64_MAX);
    /* The model's callbacks cannot return a failure: it notes one and is checked here. */
    if (rc == 0 && m->oom) {
        fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
        rc = -2;
    }
    /* -1 is the trace's failure (bad, or unreadable: status 3); out of memory is status 1, as
     * in the other commands. */
    return rc == -1 ? gd_cmd_status(d) : rc < 0 ? GD_EXIT_BAD_TRACE : 0;
}

int gd_cmd_report(int argc, char **argv)
{
    struct gd_cmd_opts o;
    int rc = gd_cmd_parse(argc, argv, "o", usage, &o);
    if (rc) return rc < 0 ? GD_EXIT_OK : rc;
    if (!o.out && !strcmp(o.file, "-")) o.out = "-"; /* stdin in, stdout out */
    char *path = o.out ? NULL : default_out(o.file);
    if (!o.out && !path) return GD_EXIT_IO;
    struct gd_dec d;
    struct hd *s = malloc(sizeof(*s)); /* freed below on every path */
    struct rm m;
    if (!s) {
        fprintf(stderr, "gotrace: %s: out of memory\n", o.file);
        rc = GD_EXIT_BAD_TRACE;
    }
    if (s && !(rc = gd_cmd_open(&d, &o))) {
        if (!(rc = analyse(&o, &d, s, &m)))
            rc = write_page(o.out ? o.out : path, &o, &d, &s->a, &m);
        rm_free(&m);
        hd_free(s);
        gd_dec_close(&d);
    }
    free(s);
    /* A name the user did not type is said (on stderr: stdout may be a pipe to something). */
    if (!rc && !o.out) fprintf(stderr, "gotrace: report written to %s\n", path);
    free(path);
    return rc;
}
