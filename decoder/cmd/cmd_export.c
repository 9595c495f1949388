/* cmd_export.c: `gotrace export --format chrome FILE -o OUT.json` — Chrome Trace Event JSON
 * (Perfetto UI, chrome://tracing): one track per thread (goroutine, tid = goroutine id, named by
 * gd_ana_name with the id), complete slices for running, blocked (named by reason) and syscall
 * intervals, user logs as instants on it, flow arrows from the waker's running slice to the
 * wakee's next running slice; user regions as nested slices on a companion track per thread
 * (tid = REGION_TID(goroutine id), named "<thread> regions", sorted right after the thread's):
 * a region spans running and blocked slices, and slices on one track must nest (Perfetto drops
 * a slice that overlaps another on its track without nesting in it, so a region on the
 * thread's own track would lose either it or the states it crosses).
 * The export is a set of callbacks of the shared analysis (analysis.h), chained after the
 * holders analysis (holders.h) of the same pass, which gives a wait its holder: one pass over
 * the trace, nothing kept per event, so memory does not grow with the trace.
 * Invariants: the output is one JSON object written as a stream (events in the order their
 * intervals close: the format does not require them sorted, and sorting would mean holding
 * them all); track names are written last, once the names are final (a thread's name may be
 * set after its first events, and it names the whole thread); times are microseconds since
 * the first event, with three decimals (ns precision); a bad trace leaves the document
 * unclosed, so no JSON parser takes a part for the whole. */
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

/* A goroutine's region track. Thread tracks' tids are goroutine ids, which count goroutines
 * (in Go's runtime and in libgotrace.so) and so stay far below 2^40: the region track's tid
 * never collides with a thread's. */
#define REGION_TID(id) ((id) + ((uint64_t)1 << 40))

/* The export's state, the analysis' user pointer (a->user) in every callback. */
struct exp {
    struct gd_out out;
    struct gd_hmap region_gs; /* goroutine ids with a region track */
    struct hd *s;             /* the lock analysis of the same pass: a wait's holder */
};

/* ns as microseconds with three decimals ("12.345"), the Trace Event Format's unit, in integer
 * arithmetic: exact, and cheaper than printf's %f, which every event would need; a negative
 * time, which no interval of a valid trace has, prints as 0 rather than as a malformed number. */
static void us(struct gd_out *o, int64_t ns)
{
    if (ns < 0) ns = 0;
    gd_out_i(o, ns / 1000);
    char f[4] = {'.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
                 (char)('0' + ns % 10)};
    gd_out_n(o, f, 4);
}

/* The process track of goroutine g: its process's pid in a merged trace of several processes
 * (docs/processes.md), else 1, the one process. */
#define PID(g) ((g)->pid ? (g)->pid : 1)

/* The start of an event of phase ph on track tid of process pid at ts (ns since the first event).
 * Every event begins with ",\n": the process_name record written first (write_json) is the array's
 * first element, so no event needs to know whether it is the first. One event a line keeps
 * the file greppable. */
static void head(struct gd_out *o, const char *ph, uint64_t pid, uint64_t tid, int64_t ts)
{
    gd_out_s(o, ",\n{\"ph\":\"");
    gd_out_s(o, ph);
    gd_out_s(o, "\",\"pid\":");
    gd_out_u(o, pid);
    gd_out_s(o, ",\"tid\":");
    gd_out_u(o, tid);
    gd_out_s(o, ",\"ts\":");
    us(o, ts);
}

/* An interval of g ended: a complete ("X") slice on g's track, named by the state ("blocked:
 * REASON" for a wait, so that Perfetto's search and aggregation group waits by reason). Runnable
 * intervals are left out: the gap between a wait and the next running slice is the runnable
 * time, and the flow arrow spans it. */
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
    head(o, "X", PID(g), g->id, start - a->t0);
    gd_out_s(o, ",\"dur\":");
    us(o, end - start);
    gd_out_s(o, ",\"cat\":\"");
    gd_out_s(o, name);
    gd_out_s(o, "\",\"name\":\"");
    gd_out_s(o, name);
    if (state == GS_WAITING && g->reason) {
        len = a->str.len[g->reason];
        gd_out_s(o, ": ");
        gd_out_json(o, a->str.s[g->reason], len, 0);
    }
    /* The holder the holders analysis noted when this wait began (at its GoBlock, from the
     * trace's wait record; its callback ran before this one and leaves it): the thread that
     * held the lock then, where the trace records it. */
    const struct hd *s = ((struct exp *)a->user)->s;
    uint32_t gi = (uint32_t)(g - a->gs);
    if (state == GS_WAITING && s && gi < s->gxcap && s->gx[gi].holder != HD_NONE) {
        char buf[GD_NAME_MAX];
        const char *h = gd_ana_name(a, &a->gs[s->gx[gi].holder], 1, buf);
        gd_out_s(o, "\",\"args\":{\"holder\":\"");
        gd_out_json(o, h, strlen(h), 0);
        gd_out_s(o, "\"}}");
        return;
    }
    gd_out_s(o, "\"}");
}

/* A wake-up is drawn as a flow arrow in two events with the same id: its start ("s") here, on
 * the waker's track at the moment it made the wakee runnable, which binds to the waker's
 * enclosing slice (the running slice it woke it from); its end at flow_end. */
static void wake(struct gd_ana *a, const struct gd_ana_g *waker, const struct gd_ana_g *wakee,
                 int64_t t, uint64_t flow)
{
    (void)wakee;
    struct gd_out *o = &((struct exp *)a->user)->out;
    head(o, "s", PID(waker), waker->id, t - a->t0);
    gd_out_s(o, ",\"cat\":\"wake\",\"name\":\"wake\",\"id\":");
    gd_out_u(o, flow);
    gd_out_c(o, '}');
}

/* The flow's end ("f") when the wakee next starts running, with "bp":"e": bound to the slice
 * enclosing its time, the running slice that begins then, rather than (the default) to the
 * next slice to begin after it. The arrow thus goes from the waker's running slice to the
 * wakee's next running slice, across its runnable time. */
static void flow_end(struct gd_ana *a, const struct gd_ana_g *wakee, int64_t t, uint64_t flow)
{
    struct gd_out *o = &((struct exp *)a->user)->out;
    head(o, "f", PID(wakee), wakee->id, t - a->t0);
    gd_out_s(o, ",\"bp\":\"e\",\"cat\":\"wake\",\"name\":\"wake\",\"id\":");
    gd_out_u(o, flow);
    gd_out_c(o, '}');
}

/* A user region ended: a slice on g's region track, which this notes in region_gs so that
 * the track gets a name at the end (threads without regions get no empty track). Regions of a
 * goroutine nest (analysis.c closes them innermost first), so they nest on their track. */
static void region(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_open_region *r,
                   int64_t end)
{
    struct exp *e = a->user;
    struct gd_out *o = &e->out;
    gd_hm_put(&e->region_gs, g->id, 1);
    head(o, "X", PID(g), REGION_TID(g->id), r->start - a->t0);
    gd_out_s(o, ",\"dur\":");
    us(o, end - r->start);
    gd_out_s(o, ",\"cat\":\"region\",\"name\":\"");
    gd_out_json(o, a->str.s[r->name], a->str.len[r->name], 0);
    gd_out_s(o, "\",\"args\":{\"task\":");
    gd_out_u(o, r->task);
    gd_out_s(o, "}}");
}

/* A UserLog: an instant event ("i", thread scope "s":"t") on g's own track, named by its
 * category ("log" when it has none: an empty name would be hard to find), its task and message
 * as arguments. Its strings are the current generation's (gd_str), valid only now. */
static void log_ev(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_tev *ev,
                   const struct gd_gen *gen)
{
    struct gd_out *o = &((struct exp *)a->user)->out;
    uint32_t klen, vlen;
    const char *k = gd_str(gen, ev->args[1], &klen), *v = gd_str(gen, ev->args[2], &vlen);
    head(o, "i", PID(g), g->id, ev->time - a->t0);
    gd_out_s(o, ",\"s\":\"t\",\"cat\":\"log\",\"name\":\"");
    if (klen)
        gd_out_json(o, k, klen, 0);
    else
        gd_out_s(o, "log");
    gd_out_s(o, "\",\"args\":{\"task\":");
    gd_out_u(o, ev->args[0]);
    gd_out_s(o, ",\"message\":\"");
    gd_out_json(o, v, vlen, 0);
    gd_out_s(o, "\"}}");
}

/* No sample callback: CPU samples are summary's and report's. */
static const struct gd_ana_cb callbacks = {slice, wake, flow_end, region, log_ev, NULL};

/* Metadata naming track tid and placing it at sort_index. Without sort indices the viewer
 * orders tracks its own way and a region track would not sit under its thread. */
static void track(struct gd_out *o, uint64_t pid, uint64_t tid, const char *name,
                  const char *suffix, uint64_t sort_index)
{
    gd_out_s(o, ",\n{\"ph\":\"M\",\"pid\":");
    gd_out_u(o, pid);
    gd_out_s(o, ",\"name\":\"thread_name\",\"tid\":");
    gd_out_u(o, tid);
    gd_out_s(o, ",\"args\":{\"name\":\"");
    gd_out_json(o, name, strlen(name), 0);
    gd_out_s(o, suffix);
    gd_out_s(o, "\"}},\n{\"ph\":\"M\",\"pid\":");
    gd_out_u(o, pid);
    gd_out_s(o, ",\"name\":\"thread_sort_index\",\"tid\":");
    gd_out_u(o, tid);
    gd_out_s(o, ",\"args\":{\"sort_index\":");
    gd_out_u(o, sort_index);
    gd_out_s(o, "}}");
}

/* A merged trace's process tracks: each pid named by its last image ("name[pid]": an exec'd
 * image's threads come after those of the image before it) and sorted by first appearance.
 * Nothing for a trace of one process (its pid 1 track is named by the file). 0, or -1 when out
 * of memory. */
static int processes(struct gd_out *o, const struct gd_ana *a)
{
    struct gd_hmap seen = {0}; /* pid -> index in the goroutines: its last image's */
    uint64_t *order = malloc((a->ngs + 1) * sizeof(*order));
    size_t n = 0;
    int rc = order ? 0 : -1;
    for (size_t i = 0; i < a->ngs && !rc; i++) {
        const struct gd_ana_g *g = &a->gs[i];
        if (g->pid && !gd_hm_get(&seen, g->pid)) order[n++] = g->pid;
        if (g->pid) rc = gd_hm_put(&seen, g->pid, (uint32_t)i);
    }
    for (size_t k = 0; k < n && !rc; k++) {
        const struct gd_ana_g *g = &a->gs[*gd_hm_get(&seen, order[k])];
        char name[GD_NAME_MAX];
        snprintf(name, sizeof name, "%s[%" PRIu64 "]", g->proc ? a->str.s[g->proc] : "", g->pid);
        gd_out_s(o, ",\n{\"ph\":\"M\",\"pid\":");
        gd_out_u(o, g->pid);
        gd_out_s(o, ",\"name\":\"process_name\",\"args\":{\"name\":\"");
        gd_out_json(o, name, strlen(name), 0);
        gd_out_s(o, "\"}},\n{\"ph\":\"M\",\"pid\":");
        gd_out_u(o, g->pid);
        gd_out_s(o, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":");
        gd_out_u(o, k);
        gd_out_s(o, "}}");
    }
    free(order);
    gd_hm_free(&seen);
    return rc;
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
    /* The holders of waits (holders.h), which then calls the export's callbacks (hd_chain):
     * holders only (no objects' detail, no intervals), and no stack texts per interval, which
     * the export never shows. */
    hd_init(s, 0);
    s->holders_only = 1;
    s->a.cb = &callbacks;
    s->a.user = e;
    hd_chain(s);
    s->a.want_stacks = 0; /* after hd_chain, which turns it on */
    e->s = s;
    struct gd_ana *a = &s->a;
    gd_out_s(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
                  "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"");
    gd_out_json(out, file, strlen(file), 0);
    gd_out_s(out, "\"}}");
    int rc = hd_run(s, d, file, INT64_MAX);
    /* Track names and order last: names are final only now. Thread i (first-seen order) sorts
     * at 2i, its region track at 2i + 1, right below it. */
    for (size_t i = 0; rc >= 0 && i < a->ngs; i++) {
        char buf[GD_NAME_MAX];
        const char *name = gd_ana_name(a, &a->gs[i], 1, buf);
        track(out, PID(&a->gs[i]), a->gs[i].id, name, "", 2 * (uint64_t)i);
        if (gd_hm_get(&e->region_gs, a->gs[i].id))
            track(out, PID(&a->gs[i]), REGION_TID(a->gs[i].id), name, " regions",
                  2 * (uint64_t)i + 1);
    }
    if (rc >= 0 && processes(out, a)) rc = -1;
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
    /* The stream moves into the export's state for the callbacks, and back for the close. */
    struct exp e = {.out = sink.out};
    int bad = write_json(&e, &d, o.file);
    sink.out = e.out;
    rc = gd_sink_close(&sink, !bad); /* bad: OUT.json stays as it was */
    if (bad) rc = gd_cmd_status(&d);
    gd_hm_free(&e.region_gs);
    gd_dec_close(&d);
    return rc;
}
