/* cmd_export.c: `gotrace export --format chrome FILE -o OUT.json` — Chrome Trace Event JSON
 * (Perfetto UI, chrome://tracing): one track per thread (goroutine, tid = goroutine id, named by
 * gd_ana_name with the id), complete slices for running, blocked (named by reason) and syscall
 * intervals, user logs as instants on it, flow arrows from the waker's running slice to the
 * wakee's next running slice; user regions as nested slices on a companion track per thread
 * (tid = REGION_TID(goroutine id), named "<thread> regions", sorted right after the thread's):
 * a region spans running and blocked slices, and slices on one track must nest.
 * Invariants: the output is one JSON object written as a stream (events in the order their
 * intervals close, track names last, once the names are final); times are microseconds since
 * the first event. */
#include "analysis.h"
#include "cli.h"
#include "cmds.h"
#include "sink.h"
#include "holders.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gotrace export --format chrome [--max-gen-mem BYTES] FILE -o OUT.json\n"
    "\n"
    "Writes Chrome Trace Event JSON that Perfetto UI (ui.perfetto.dev) and chrome://tracing\n"
    "open: one track per thread, slices for running / blocked (named by reason) / syscall, and\n"
    "flow arrows from waker to wakee. -o - writes to stdout. OUT.json is replaced only when\n"
    "the whole trace was exported; with -o -, a bad trace leaves the JSON document unclosed.\n";

#define REGION_TID(id) ((id) + ((uint64_t)1 << 40))

struct exp {
    struct gd_out out;
    struct gd_hmap region_gs; /* goroutine ids with a region track */
    struct hd *s;             /* the lock analysis of the same pass: a wait's holder */
};

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
    struct gd_out *o = &((struct exp *)a->user)->out;
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
    const struct hd *s = ((struct exp *)a->user)->s;
    uint32_t gi = (uint32_t)(g - a->gs);
    if (state == GS_WAITING && s && gi < s->gxcap && s->gx[gi].holder != HD_NONE) {
        char buf[GD_NAME_MAX];
        const char *h = gd_ana_name(a, &a->gs[s->gx[gi].holder], 1, buf);
        gd_out_s(o, "\",\"args\":{\"holder\":\"");
        gd_out_json(o, h, strlen(h));
        gd_out_s(o, "\"}}");
        return;
    }
    gd_out_s(o, "\"}");
}

static void wake(struct gd_ana *a, const struct gd_ana_g *waker, const struct gd_ana_g *wakee,
                 int64_t t, uint64_t flow)
{
    (void)wakee;
    struct gd_out *o = &((struct exp *)a->user)->out;
    head(o, "s", waker->id, t - a->t0);
    gd_out_s(o, ",\"cat\":\"wake\",\"name\":\"wake\",\"id\":");
    gd_out_u(o, flow);
    gd_out_c(o, '}');
}

static void flow_end(struct gd_ana *a, const struct gd_ana_g *wakee, int64_t t, uint64_t flow)
{
    struct gd_out *o = &((struct exp *)a->user)->out;
    head(o, "f", wakee->id, t - a->t0);
    gd_out_s(o, ",\"bp\":\"e\",\"cat\":\"wake\",\"name\":\"wake\",\"id\":");
    gd_out_u(o, flow);
    gd_out_c(o, '}');
}

static void region(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_open_region *r,
                   int64_t end)
{
    struct exp *e = a->user;
    struct gd_out *o = &e->out;
    gd_hm_put(&e->region_gs, g->id, 1);
    head(o, "X", REGION_TID(g->id), r->start - a->t0);
    gd_out_s(o, ",\"dur\":");
    us(o, end - r->start);
    gd_out_s(o, ",\"cat\":\"region\",\"name\":\"");
    gd_out_json(o, a->str.s[r->name], a->str.len[r->name]);
    gd_out_s(o, "\",\"args\":{\"task\":");
    gd_out_u(o, r->task);
    gd_out_s(o, "}}");
}

static void log_ev(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_tev *ev,
                   const struct gd_gen *gen)
{
    struct gd_out *o = &((struct exp *)a->user)->out;
    uint32_t klen, vlen;
    const char *k = gd_str(gen, ev->args[1], &klen), *v = gd_str(gen, ev->args[2], &vlen);
    head(o, "i", g->id, ev->time - a->t0);
    gd_out_s(o, ",\"s\":\"t\",\"cat\":\"log\",\"name\":\"");
    if (klen)
        gd_out_json(o, k, klen);
    else
        gd_out_s(o, "log");
    gd_out_s(o, "\",\"args\":{\"task\":");
    gd_out_u(o, ev->args[0]);
    gd_out_s(o, ",\"message\":\"");
    gd_out_json(o, v, vlen);
    gd_out_s(o, "\"}}");
}

static const struct gd_ana_cb callbacks = {slice, wake, flow_end, region, log_ev, NULL};

/* Metadata naming track tid and placing it at sort_index. */
static void track(struct gd_out *o, uint64_t tid, const char *name, const char *suffix,
                  uint64_t sort_index)
{
    gd_out_s(o, ",\n{\"ph\":\"M\",\"pid\":1,\"name\":\"thread_name\",\"tid\":");
    gd_out_u(o, tid);
    gd_out_s(o, ",\"args\":{\"name\":\"");
    gd_out_json(o, name, strlen(name));
    gd_out_s(o, suffix);
    gd_out_s(o, "\"}},\n{\"ph\":\"M\",\"pid\":1,\"name\":\"thread_sort_index\",\"tid\":");
    gd_out_u(o, tid);
    gd_out_s(o, ",\"args\":{\"sort_index\":");
    gd_out_u(o, sort_index);
    gd_out_s(o, "}}");
}

/* Writes the JSON of the whole trace into e->out; 0, or -1 when the trace is bad (the document
 * is then left open: no JSON parser accepts it). */
static int write_json(struct exp *e, struct gd_dec *d, const char *file)
{
    struct gd_out *out = &e->out;
    struct hd *s = malloc(sizeof(*s));
    if (!s) {
        fprintf(stderr, "gotrace: %s: out of memory\n", file);
        return -1;
    }
    hd_init(s, 0); /* the holders of waits (holders.h), fed with the export's callbacks */
    s->holders_only = 1;
    s->a.cb = &callbacks;
    s->a.user = e;
    hd_chain(s);
    s->a.want_stacks = 0; /* holders only: no stack texts per interval */
    e->s = s;
    struct gd_ana *a = &s->a;
    gd_out_s(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
                  "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"");
    gd_out_json(out, file, strlen(file));
    gd_out_s(out, "\"}}");
    int rc = hd_run(s, d, file, INT64_MAX);
    for (size_t i = 0; rc >= 0 && i < a->ngs; i++) {
        char buf[GD_NAME_MAX];
        const char *name = gd_ana_name(a, &a->gs[i], 1, buf);
        track(out, a->gs[i].id, name, "", 2 * (uint64_t)i);
        if (gd_hm_get(&e->region_gs, a->gs[i].id))
            track(out, REGION_TID(a->gs[i].id), name, " regions", 2 * (uint64_t)i + 1);
    }
    if (rc >= 0) gd_out_s(out, "\n]}\n");
    hd_free(s);
    free(s);
    e->s = NULL;
    return rc < 0 ? -1 : 0;
}

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
    struct gd_sink sink;
    if ((rc = gd_sink_open(&sink, o.out, o.file))) {
        gd_dec_close(&d);
        return rc;
    }
    struct exp e = {.out = sink.out};
    int bad = write_json(&e, &d, o.file);
    sink.out = e.out;
    rc = gd_sink_close(&sink, !bad);
    if (bad) rc = gd_cmd_status(&d);
    gd_hm_free(&e.region_gs);
    gd_dec_close(&d);
    return rc;
}
