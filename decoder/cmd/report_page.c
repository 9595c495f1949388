/* report_page.c: the report's HTML page and its data (see report_page.h). */
#include "report_page.h"

#include "critpath.h"

#include <stdlib.h>
#include <string.h>

/* A JSON string that is also safe inside <script>: quotes, backslashes, control characters
 * and '<' '>' '&' escaped; UTF-8 passes through. */
static void jstr(struct gd_out *o, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    gd_out_c(o, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            gd_out_c(o, '\\');
            gd_out_c(o, (char)c);
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            gd_out_n(o, e, 6);
        } else {
            gd_out_c(o, (char)c);
        }
    }
    gd_out_c(o, '"');
}

static void key(struct gd_out *o, const char *k)
{
    gd_out_s(o, ",\n\"");
    gd_out_s(o, k);
    gd_out_s(o, "\":");
}

/* Numbers separated by commas: the first without. */
static void num(struct gd_out *o, int first, int64_t v)
{
    if (!first) gd_out_c(o, ',');
    gd_out_i(o, v);
}

static void strings(struct gd_out *o, const struct gd_ana *a)
{
    key(o, "str");
    gd_out_c(o, '[');
    for (size_t i = 0; i < a->str.n; i++) {
        if (i) gd_out_c(o, ',');
        jstr(o, a->str.s[i] ? a->str.s[i] : "", a->str.len[i]);
    }
    gd_out_c(o, ']');
}

/* [name, id, tid, lifetime, running, runnable, syscall, blocked, blocks, syscalls, samples,
 *  [reason, ns, waits, ...]] per thread, in analysis order. */
static void threads(struct gd_out *o, const struct gd_ana *a)
{
    key(o, "threads");
    gd_out_c(o, '[');
    for (size_t i = 0; i < a->ngs; i++) {
        const struct gd_ana_g *g = &a->gs[i];
        char nb[GD_NAME_MAX];
        gd_out_s(o, i ? ",\n[" : "[");
        const char *name = gd_ana_name(a, g, 0, nb);
        jstr(o, name, strlen(name));
        int64_t v[] = {(int64_t)g->id,     g->m == GD_NONE ? -1 : (int64_t)g->m,
                       g->last - g->first, g->ns_run,
                       g->ns_runnable,     g->ns_sys,
                       g->ns_wait,         (int64_t)g->nblock,
                       (int64_t)g->nsys,   (int64_t)g->nsamples};
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
            num(o, 0, v[k]);
        gd_out_s(o, ",[");
        for (uint32_t r = 0; r < g->nreasons; r++) {
            num(o, r == 0, g->reasons[r].reason);
            num(o, 0, g->reasons[r].ns);
            num(o, 0, (int64_t)g->reasons[r].count);
        }
        gd_out_s(o, "]]");
    }
    gd_out_c(o, ']');
}

/* What the flat arrays are read from. */
struct src {
    const struct gd_ana *a;
    const struct rm *m;
    const struct gd_name_accs *names;
};

/* Writes "k":[...] with nf numbers for each of the rows 0..n-1, filled by row(src, i, f). */
static void flat(struct gd_out *o, const char *k, size_t n, size_t nf, const struct src *src,
                 void (*row)(const struct src *src, size_t i, int64_t *f))
{
    int64_t f[8];
    key(o, k);
    gd_out_c(o, '[');
    for (size_t i = 0; i < n; i++) {
        row(src, i, f);
        for (size_t j = 0; j < nf; j++)
            num(o, i == 0 && j == 0, f[j]);
        if (i % 16 == 15) gd_out_c(o, '\n');
    }
    gd_out_c(o, ']');
}

static int64_t g_or_none(uint32_t g)
{
    return g == UINT32_MAX ? -1 : (int64_t)g;
}

/* Detail: g, start, duration, kind, reason, stack, waker (-1 none) per interval. */
static void slice_row(const struct src *src, size_t i, int64_t *f)
{
    const struct rm_slice *s = &src->m->sl[i];
    int64_t v[] = {s->g,     s->start - src->a->t0, s->end - s->start, s->kind, s->reason,
                   s->stack, g_or_none(s->waker)};
    memcpy(f, v, sizeof(v));
}

/* g, start, duration, name, task per user region. */
static void region_row(const struct src *src, size_t i, int64_t *f)
{
    const struct rm_region *r = &src->m->rg[i];
    int64_t v[] = {r->g, r->start - src->a->t0, r->end - r->start, r->name, (int64_t)r->task};
    memcpy(f, v, sizeof(v));
}

/* g (-1 none), time, stack per CPU sample. */
static void sample_row(const struct src *src, size_t i, int64_t *f)
{
    const struct rm_sample *s = &src->m->sm[i];
    int64_t v[] = {g_or_none(s->g), s->t - src->a->t0, s->stack};
    memcpy(f, v, sizeof(v));
}

/* name, count, ended, ns per task or region name. */
static void name_row(const struct src *src, size_t i, int64_t *f)
{
    const struct gd_name_acc *n = &src->names->v[i];
    int64_t v[] = {n->name, (int64_t)n->count, (int64_t)n->ended, n->ns};
    memcpy(f, v, sizeof(v));
}

/* profile kind, stack, count, ns per (profile, stack). */
static void prof_row(const struct src *src, size_t i, int64_t *f)
{
    const struct rm_prof *p = &src->m->prof[i];
    int64_t v[] = {p->kind, p->stack, (int64_t)p->count, p->ns};
    memcpy(f, v, sizeof(v));
}

/* Bucketed: width, then per thread [first bucket, "one letter per bucket"] ('a' + kind, '.'
 * when the thread was not there). */
static void buckets(struct gd_out *o, const struct rm *m)
{
    key(o, "width");
    gd_out_i(o, m->width);
    key(o, "buckets");
    gd_out_c(o, '[');
    for (size_t i = 0; i < m->nbk; i++) {
        const struct rm_buckets *b = &m->bk[i];
        gd_out_s(o, i ? ",\n[" : "[");
        gd_out_u(o, b->first);
        gd_out_s(o, ",\"");
        for (uint32_t k = 0; k < b->n; k++) {
            int kind = rm_bucket_kind(b, b->first + k);
            gd_out_c(o, kind < 0 ? '.' : (char)('a' + kind));
        }
        gd_out_s(o, "\"]");
    }
    gd_out_c(o, ']');
}

static void counts(struct gd_out *o, const char *file, const struct gd_dec *d,
                   const struct gd_ana *a, const struct rm *m)
{
    gd_out_s(o, "{\"file\":");
    jstr(o, file, strlen(file));
    const char *k[] = {"events",   "generations",   "duration",      "nslices",
                       "nregions", "nsamples",      "samples_total", "samples_nothread",
                       "budget",   "region_budget", "sample_budget"};
    int64_t v[] = {(int64_t)d->nevents,
                   (int64_t)d->ngens,
                   a->ngs ? a->tend - a->t0 : 0,
                   (int64_t)m->nsl_all,
                   (int64_t)m->nrg_all,
                   (int64_t)m->nsm_all,
                   (int64_t)a->nsamples,
                   (int64_t)a->nsamples_nog,
                   RM_MAX_SLICES,
                   RM_MAX_REGIONS,
                   RM_MAX_SAMPLES};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        key(o, k[i]);
        gd_out_i(o, v[i]);
    }
    key(o, "bucketed");
    gd_out_s(o, m->bucketed ? "true" : "false");
}

#define LOCKS_SHOWN 50     /* objects in the Locks section */
#define PATH_SEGMENTS 2000 /* segments listed in the Critical path section */

static const struct hd *sort_sa;
static int obj_by_total(const void *x, const void *y)
{
    const struct hd_obj *a = &sort_sa->objs[*(const uint32_t *)x];
    const struct hd_obj *b = &sort_sa->objs[*(const uint32_t *)y];
    return (a->total < b->total) - (a->total > b->total);
}

static void jname(struct gd_out *o, const struct hd *s, uint32_t g)
{
    char nb[GD_NAME_MAX];
    const char *n = g == HD_NONE ? "(before the trace)" : hd_gname(s, g, nb);
    jstr(o, n, strlen(n));
}

static void jinterned(struct gd_out *o, const struct hd *s, uint32_t i)
{
    jstr(o, i ? s->a.str.s[i] : "", i ? s->a.str.len[i] : 0);
}

/* "locks": [[object, waits, total, max, [[holder, ns, waits, release stack]...],
 * [[waiting stack, waits, ns]...]]...] by total wait (null: no thread waited on one);
 * "holders": whether the trace records holders (gotrace's experimental batch). */
static void locks(struct gd_out *o, struct hd *s)
{
    uint32_t *idx = malloc((s->nobjs + 1) * sizeof(*idx));
    size_t n = 0;
    int holders = 0;
    for (size_t i = 0; idx && i < s->nobjs; i++) {
        if (s->objs[i].waits) idx[n++] = (uint32_t)i;
        for (size_t k = 0; k < s->objs[i].nholders; k++)
            holders |= s->objs[i].holders[k].g != HD_NONE;
    }
    key(o, "holders");
    gd_out_s(o, holders ? "true" : "false");
    key(o, "locks");
    if (!n) {
        gd_out_s(o, "null");
        free(idx);
        return;
    }
    sort_sa = s;
    qsort(idx, n, sizeof(*idx), obj_by_total);
    gd_out_c(o, '[');
    for (size_t k = 0; k < n && k < LOCKS_SHOWN; k++) {
        const struct hd_obj *x = &s->objs[idx[k]];
        gd_out_s(o, k ? ",\n[" : "[");
        jinterned(o, s, x->name);
        num(o, 0, (int64_t)x->waits);
        num(o, 0, x->total);
        num(o, 0, x->max);
        gd_out_s(o, ",[");
        for (size_t h = 0; h < x->nholders; h++) {
            gd_out_s(o, h ? ",[" : "[");
            jname(o, s, x->holders[h].g);
            num(o, 0, x->holders[h].ns);
            num(o, 0, (int64_t)x->holders[h].count);
            gd_out_c(o, ',');
            jinterned(o, s, x->holders[h].stack);
            gd_out_c(o, ']');
        }
        gd_out_s(o, "],[");
        for (size_t w = 0; w < x->nsites; w++) {
            gd_out_s(o, w ? ",[" : "[");
            jinterned(o, s, x->sites[w].stack);
            num(o, 0, (int64_t)x->sites[w].count);
            num(o, 0, x->sites[w].total);
            gd_out_c(o, ']');
        }
        gd_out_s(o, "]]");
    }
    gd_out_c(o, ']');
    free(idx);
}

static void shares(struct gd_out *o, const struct hd *s, const struct cp_share *v, size_t n,
                   int funcs)
{
    gd_out_c(o, '[');
    for (size_t i = 0; i < n; i++) {
        gd_out_s(o, i ? ",[" : "[");
        if (funcs)
            jinterned(o, s, v[i].key);
        else
            jname(o, s, v[i].key);
        num(o, 0, v[i].ns);
        gd_out_c(o, ']');
    }
    gd_out_c(o, ']');
}

/* "critical_path": the main thread's (critpath.h), {thread, from, to (ns from the trace's
 * start), threads: [[name, ns]...], funcs: [[name, ns]...], segments: [[thread, state, start,
 * duration, reason, function]...], nsegments}; null with "critical_note" saying why. */
static void critical(struct gd_out *o, struct hd *s)
{
    struct cp_path p;
    uint32_t g = cp_main_thread(s);
    const char *why = s->iv_over ? "too many intervals for the page (above the timeline's budget)"
                      : g == HD_NONE ? "no thread"
                                     : NULL;
    int64_t t0 = s->a.t0;
    if (!why && cp_compute(s, g, s->a.gs[g].first, s->a.gs[g].last, &p)) why = "out of memory";
    key(o, "critical_note");
    jstr(o, why ? why : "", why ? strlen(why) : 0);
    key(o, "critical_path");
    if (why) {
        gd_out_s(o, "null");
        return;
    }
    gd_out_s(o, "{\"thread\":");
    jname(o, s, g);
    gd_out_s(o, ",\"from\":");
    gd_out_i(o, p.from - t0);
    gd_out_s(o, ",\"to\":");
    gd_out_i(o, p.to - t0);
    gd_out_s(o, ",\"nsegments\":");
    gd_out_i(o, (int64_t)p.nseg);
    gd_out_s(o, ",\"threads\":");
    shares(o, s, p.byg, p.ng, 0);
    gd_out_s(o, ",\"funcs\":");
    shares(o, s, p.byf, p.nf, 1);
    gd_out_s(o, ",\"segments\":[");
    for (size_t i = 0; i < p.nseg && i < PATH_SEGMENTS; i++) {
        const struct cp_seg *sg = &p.seg[i];
        char fb[512];
        const char *st = cp_state_name(sg->state, sg->handoff);
        const char *f = sg->stack ? hd_stack_func(s->a.str.s[sg->stack], fb, sizeof fb) : "";
        gd_out_s(o, i ? ",\n[" : "[");
        jname(o, s, sg->g);
        gd_out_c(o, ',');
        jstr(o, st, strlen(st));
        num(o, 0, sg->start - t0);
        num(o, 0, sg->end - sg->start);
        gd_out_c(o, ',');
        jinterned(o, s, sg->reason);
        gd_out_c(o, ',');
        jstr(o, f, strlen(f));
        gd_out_c(o, ']');
    }
    gd_out_s(o, "]}");
    cp_free(&p);
}

static void data(struct gd_out *o, const char *file, const struct gd_dec *d, struct gd_ana *a,
                 const struct rm *m)
{
    counts(o, file, d, a, m);
    strings(o, a);
    threads(o, a);
    struct src src = {a, m, &a->tasks};
    if (m->bucketed)
        buckets(o, m);
    else
        flat(o, "slices", m->nsl, 7, &src, slice_row);
    flat(o, "regions", m->nrg, 5, &src, region_row);
    flat(o, "samples", m->nsm, 3, &src, sample_row);
    flat(o, "tasks", a->tasks.n, 4, &src, name_row);
    src.names = &a->regions;
    flat(o, "regionsum", a->regions.n, 4, &src, name_row);
    flat(o, "prof", m->nprof, 4, &src, prof_row);
    if (m->sync) {
        locks(o, m->sync);
        critical(o, m->sync);
    } else {
        key(o, "locks");
        gd_out_s(o, "null");
        key(o, "critical_path");
        gd_out_s(o, "null");
    }
    gd_out_s(o, "}\n");
}

/* Writes tpl up to marker (or to its end) and returns what follows the marker. */
static const char *upto(struct gd_out *o, const char *tpl, const char *marker)
{
    const char *p = strstr(tpl, marker);
    size_t n = p ? (size_t)(p - tpl) : strlen(tpl);
    for (size_t i = 0; i < n; i += 65536)
        gd_out_n(o, tpl + i, n - i < 65536 ? n - i : 65536);
    return p ? p + strlen(marker) : tpl + n;
}

void gd_report_page(struct gd_out *o, const char *file, const struct gd_dec *d, struct gd_ana *a,
                    const struct rm *m)
{
    const char *t = upto(o, gd_report_html, "@CSS@");
    upto(o, gd_report_css, "\1");
    t = upto(o, t, "@DATA@");
    data(o, file, d, a, m);
    t = upto(o, t, "@JS@");
    upto(o, gd_report_js, "\1");
    upto(o, t, "\1");
}
