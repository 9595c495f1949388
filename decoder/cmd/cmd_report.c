/* cmd_report.c: `gotrace report FILE [-o OUT.html]` — one self-contained HTML page to look at
 * a trace in a browser, offline: each thread's timeline (states, wake-ups, regions, CPU
 * samples), the summary's per-thread table, flame graphs of where threads waited and ran.
 * Invariants: the whole trace is read and analysed (report_model.c) before anything is
 * written, so a bad trace writes nothing; the page goes through sink.c (whole or not at all,
 * never over the input); OUT defaults to FILE with its extension replaced by .html. */
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

/* FILE with its extension (if any) replaced by ".html"; NULL when out of memory. */
static char *default_out(const char *file)
{
    const char *slash = strrchr(file, '/'), *dot = strrchr(file, '.');
    size_t n = dot && dot > (slash ? slash : file) && dot[1] ? (size_t)(dot - file) : strlen(file);
    char *out = malloc(n + 6);
    if (out) snprintf(out, n + 6, "%.*s.html", (int)n, file);
    return out;
}

struct page {
    const struct gd_cmd_opts *o;
    const struct gd_dec *d;
    struct gd_ana *a;
    const struct rm *m;
};

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
    hd_init(s, 1);
    s->iv_budget = RM_MAX_SLICES;
    rm_init(m, &s->a);
    hd_chain(s);
    m->sync = s;
    int rc = hd_run(s, d, o->file, INT64_MAX);
    if (rc == 0 && m->oom) {
        fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
        rc = -2;
    }
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
    struct hd *s = malloc(sizeof(*s));
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
    if (!rc && !o.out) fprintf(stderr, "gotrace: report written to %s\n", path);
    free(path);
    return rc;
}
