/* cmd_export.c: `gotrace export --format chrome FILE -o OUT.json` — Chrome Trace Event JSON
 * (Perfetto UI, chrome://tracing): one track per thread (goroutine), complete slices for
 * running, blocked (named by reason) and syscall intervals, flow arrows from the waker's
 * running slice to the wakee's next running slice. Invariant: the output is one JSON object
 * written as a stream (events in the order their intervals close); times are microseconds
 * since the first event. */
#include "analysis.h"
#include "cli.h"
#include "cmds.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: gotrace export --format chrome [--max-gen-mem BYTES] FILE -o OUT.json\n"
    "\n"
    "Writes Chrome Trace Event JSON that Perfetto UI (ui.perfetto.dev) and chrome://tracing\n"
    "open: one track per thread, slices for running / blocked (named by reason) / syscall, and\n"
    "flow arrows from waker to wakee. -o - writes to stdout.\n";

static void us(struct gd_out *o, int64_t ns)
{
    if (ns < 0) ns = 0;
    gd_out_i(o, ns / 1000);
    char f[4] = {'.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
                 (char)('0' + ns % 10)};
    gd_out_n(o, f, 4);
}

static void head(struct gd_out *o, const char *ph, uint64_t tid, int64_t ts)
{
    gd_out_s(o, ",\n{\"ph\":\"");
    gd_out_s(o, ph);
    gd_out_s(o, "\",\"pid\":1,\"tid\":");
    gd_out_u(o, tid);
    gd_out_s(o, ",\"ts\":");
    us(o, ts);
}

static void slice(struct gd_ana *a, const struct gd_ana_g *g, uint8_t state, int64_t start,
                  int64_t end)
{
    struct gd_out *o = a->user;
    const char *name;
    uint32_t len;
    if (state == GS_RUNNING) {
        name = "running";
    } else if (state == GS_SYSCALL) {
        name = "syscall";
    } else if (state == GS_WAITING) {
        name = "blocked";
    } else {
        return;
    }
    head(o, "X", g->id, start - a->t0);
    gd_out_s(o, ",\"dur\":");
    us(o, end - start);
    gd_out_s(o, ",\"cat\":\"");
    gd_out_s(o, name);
    gd_out_s(o, "\",\"name\":\"");
    gd_out_s(o, name);
    if (state == GS_WAITING && g->reason) {
        len = a->str.len[g->reason];
        gd_out_s(o, ": ");
        gd_out_json(o, a->str.s[g->reason], len);
    }
    gd_out_s(o, "\"}");
}

static void wake(struct gd_ana *a, const struct gd_ana_g *waker, const struct gd_ana_g *wakee,
                 int64_t t, uint64_t flow)
{
    (void)wakee;
    struct gd_out *o = a->user;
    head(o, "s", waker->id, t - a->t0);
    gd_out_s(o, ",\"cat\":\"wake\",\"name\":\"wake\",\"id\":");
    gd_out_u(o, flow);
    gd_out_c(o, '}');
}

static void flow_end(struct gd_ana *a, const struct gd_ana_g *wakee, int64_t t, uint64_t flow)
{
    struct gd_out *o = a->user;
    head(o, "f", wakee->id, t - a->t0);
    gd_out_s(o, ",\"bp\":\"e\",\"cat\":\"wake\",\"name\":\"wake\",\"id\":");
    gd_out_u(o, flow);
    gd_out_c(o, '}');
}

static const struct gd_ana_cb callbacks = {slice, wake, flow_end};

int gd_cmd_export(int argc, char **argv)
{
    struct gd_cmd_opts o;
    int rc = gd_cmd_parse(argc, argv, "o,format", usage, &o);
    if (rc) return rc < 0 ? GD_EXIT_OK : rc;
    if (!o.out || !o.format || strcmp(o.format, "chrome")) {
        fputs(usage, stderr);
        return GD_EXIT_USAGE;
    }
    struct gd_dec d;
    if ((rc = gd_cmd_open(&d, &o))) return rc;
    int fd = strcmp(o.out, "-") ? open(o.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
                                : STDOUT_FILENO;
    if (fd < 0) {
        fprintf(stderr, "gotrace: %s: %s\n", o.out, strerror(errno));
        gd_dec_close(&d);
        return GD_EXIT_BAD_TRACE;
    }
    struct gd_out out;
    gd_out_init(&out, fd);
    struct gd_ana a;
    gd_ana_init(&a, &callbacks, &out);
    gd_out_s(&out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
                   "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"");
    gd_out_json(&out, o.file, strlen(o.file));
    gd_out_s(&out, "\"}}");
    struct gd_tev ev;
    while ((rc = gd_dec_next(&d, &ev)) > 0)
        if (gd_ana_event(&a, &ev, &d.gen)) {
            fprintf(stderr, "gotrace: %s: out of memory\n", o.file);
            rc = -2;
            break;
        }
    if (rc == -1) gd_cmd_fail(&d, &o);
    gd_ana_finish(&a);
    for (size_t i = 0; i < a.ngs; i++) {
        char buf[32];
        const char *name = gd_ana_name(&a, &a.gs[i], buf, sizeof(buf));
        gd_out_s(&out, ",\n{\"ph\":\"M\",\"pid\":1,\"name\":\"thread_name\",\"tid\":");
        gd_out_u(&out, a.gs[i].id);
        gd_out_s(&out, ",\"args\":{\"name\":\"");
        gd_out_json(&out, name, strlen(name));
        gd_out_f(&out, " (G%" PRIu64 ")\"}}", a.gs[i].id);
    }
    gd_out_s(&out, "\n]}\n");
    int werr = gd_out_flush(&out);
    gd_out_free(&out);
    if (fd != STDOUT_FILENO && close(fd)) werr = 1;
    if (werr) fprintf(stderr, "gotrace: %s: write failed\n", o.out);
    gd_ana_free(&a);
    gd_dec_close(&d);
    return rc < 0 || werr ? GD_EXIT_BAD_TRACE : GD_EXIT_OK;
}
