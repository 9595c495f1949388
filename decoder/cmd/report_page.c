/* report_page.c: the report's HTML page and its data (see report_page.h).
 * The page is the template report.html with three markers replaced: @CSS@ by report.css,
 * @DATA@ by one JSON object, @JS@ by report.js, which reads that object (JSON.parse of the
 * data element's text: the browser never runs it as code, and parsing one JSON text is faster
 * than parsing a script literal of the same size). The object, in the order written:
 *   file, events, generations, duration (ns), nslices/nregions/nsamples (how many the model
 *     saw, beyond the budgets too), samples_total, samples_nothread, budget/region_budget/
 *     sample_budget (report_model.h's, so the page's notes quote the numbers the C code
 *     applied), bucketed;
 *   str: every interned string of the analysis (index 0 is ""); everywhere below a reason,
 *     stack text, region/task/function name is an index into it, so a stack shared by
 *     thousands of intervals is written once;
 *   threads: [name, id, tid (last M, -1 none), lifetime, running, runnable, syscall, blocked,
 *     blocks, syscalls, samples, [reason, ns, waits, ...]] per goroutine in analysis order (in
 *     a merged trace of several processes, then its process's rank, by first appearance: the
 *     page groups rows by process, docs/processes.md): a thread's number in the arrays below
 *     is its index here (the page sorts rows by id);
 *   slices (7 numbers per interval) when the timeline fits its budget, else width and
 *     buckets; then regions (5), samples (3), tasks (4), regionsum (4), prof (4);
 *   holders, locks, critical_note, critical_path, hangs (the holders analysis; small, strings
 *     inline: hangs is the state at the trace's end in the words of `gotrace hangs`).
 * Rows of numbers are flat arrays, one number after the other, not arrays of objects: at
 * 200,000 intervals the page is mostly these numbers, and a key per field would multiply its
 * size and its parse time. report.js reads them by stride (NF = 7 for slices, and so on), so a
 * field's position here is the contract: change both sides together. Times are ns from the
 * trace's first event, as the page's #select=ID@TIME and #view=FROM-TO links are.
 * Invariants: the page is one file with nothing fetched (docs/report.md); nothing in the data
 * can end its <script> element (jstr escapes '<'); the sizes are bounded by the budgets, the
 * buckets and the distinct strings and stacks, never by the number of events. */
#include "report_page.h"

#include "cli.h"
#include "critpath.h"
#include "hangs.h"

#include <stdlib.h>
#include <string.h>

/* A JSON string that is also safe inside <script> (gd_out_json's html form): a thread name or a
 * stack from the trace (the program's strings) can neither end the element nor start an HTML
 * comment; UTF-8 passes, the page declares charset utf-8. */
static void jstr(struct gd_out *o, const char *s, size_t n)
{
    gd_out_c(o, '"');
    gd_out_json(o, s, n, 1);
    gd_out_c(o, '"');
}

/* ",\n"KEY":": every member but the first ("file", written by counts) starts so. */
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

/* "str": the analysis' intern table, indexed as the analysis indexes it (the ids in the
 * model's slices, profiles, regions and the threads' reasons are these indices). */
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
 *  [reason, ns, waits, ...]] per thread, in analysis order: the numbers of `gotrace summary`
 * (the same analysis), so the page's table and the command agree to the nanosecond. */
static void threads(struct gd_out *o, const struct gd_ana *a)
{
    key(o, "threads");
    gd_out_c(o, '[');
    struct gd_hmap procs = {0}; /* a merged trace's pids -> their order of first appearance */
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
        gd_out_c(o, ']');
        if (a->multi) { /* its process's rank: the page groups rows by process */
            uint32_t *k = gd_hm_get(&procs, g->pid);
            uint32_t rank = k ? *k : (uint32_t)procs.len;
            if (!k && gd_hm_put(&procs, g->pid, rank)) rank = 0; /* out of memory: ungrouped */
            num(o, 0, rank);
        }
        gd_out_c(o, ']');
    }
    gd_out_c(o, ']');
    gd_hm_free(&procs);
}

/* What the flat arrays are read from (the row callbacks of flat take one pointer). */
struct src {
    const struct gd_ana *a;
    const struct rm *m;
    const struct gd_name_accs *names;
};

/* Writes "k":[...] with nf numbers (at most 8) for each of the rows 0..n-1, filled by
 * row(src, i, f). A newline every 16 rows keeps lines short enough for a text editor or a diff
 * of two pages, at a byte per 16 rows. */
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

/* A thread index, or -1 for none (the page tests for -1; UINT32_MAX would look like an index). */
static int64_t g_or_none(uint32_t g)
{
    return g == UINT32_MAX ? -1 : (int64_t)g;
}

/* Detail: g, start, duration, kind, reason, stack, waker (-1 none) per interval. kind is
 * report_model.h's RK_* (report.js's KINDS, in the same order); stack is the one the interval
 * is charged to (the waiting call for a wait), shown in the details panel; waker draws the
 * wake-up arrow. */
static void slice_row(const struct src *src, size_t i, int64_t *f)
{
    const struct rm_slice *s = &src->m->sl[i];
    int64_t v[] = {s->g,     s->start - src->a->t0, s->end - s->start, s->kind, s->reason,
                   s->stack, g_or_none(s->waker)};
    memcpy(f, v, sizeof(v));
}

/* g, start, duration, name, task per user region (the first RM_MAX_REGIONS). */
static void region_row(const struct src *src, size_t i, int64_t *f)
{
    const struct rm_region *r = &src->m->rg[i];
    int64_t v[] = {r->g, r->start - src->a->t0, r->end - r->start, r->name, (int64_t)r->task};
    memcpy(f, v, sizeof(v));
}

/* g (-1 none), time, stack per CPU sample (the first RM_MAX_SAMPLES; the CPU flame graph
 * counts them all through prof). */
static void sample_row(const struct src *src, size_t i, int64_t *f)
{
    const struct rm_sample *s = &src->m->sm[i];
    int64_t v[] = {g_or_none(s->g), s->t - src->a->t0, s->stack};
    memcpy(f, v, sizeof(v));
}

/* name, count, ended, ns per task or region name: summary's tables (regions have no
 * "ended", which stays 0). */
static void name_row(const struct src *src, size_t i, int64_t *f)
{
    const struct gd_name_acc *n = &src->names->v[i];
    int64_t v[] = {n->name, (int64_t)n->count, (int64_t)n->ended, n->ns};
    memcpy(f, v, sizeof(v));
}

/* profile kind, stack, count, ns per (profile, stack): RP_* order (report.js's PROFILES); the
 * flame graphs are built in the page from the stack texts, so the data hold each distinct
 * stack once per profile, not a tree. */
static void prof_row(const struct src *src, size_t i, int64_t *f)
{
    const struct rm_prof *p = &src->m->prof[i];
    int64_t v[] = {p->kind, p->stack, (int64_t)p->count, p->ns};
    memcpy(f, v, sizeof(v));
}

/* Bucketed: width, then per thread [first bucket, "one letter per bucket"] ('a' + kind, '.'
 * when the thread was not there). A letter a bucket is the smallest form of "the state it spent
 * most time in": at most 1024 buckets per thread, about one per pixel of a wide window, so the
 * page's size depends on the number of threads, not of intervals. Buckets before a thread's
 * first are not written (first says where it starts). */
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

/* The object's first members: the facts line and the numbers the page's notes need (how
 * many intervals, regions, samples there were and the budgets they were cut at). */
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

/* Bounds on the page's two lists, which the budgets do not bound: a program with a lock per
 * object can wait on millions of them, and a path can have a segment per wake-up. */
#define LOCKS_SHOWN 50     /* objects in the Locks section */
#define PATH_SEGMENTS 2000 /* segments listed in the Critical path section */

/* qsort has no context argument: obj_by_total reads the analysis from here (set by locks). */
static const struct hd *sort_sa;
static int obj_by_total(const void *x, const void *y)
{
    const struct hd_obj *a = &sort_sa->objs[*(const uint32_t *)x];
    const struct hd_obj *b = &sort_sa->objs[*(const uint32_t *)y];
    return (a->total < b->total) - (a->total > b->total);
}

/* A thread's display name as a JSON string; HD_NONE is time the critical path's walk traced
 * to before the trace's first event (a lock's unknown holder is no such time: jphrase). */
static void jname(struct gd_out *o, const struct hd *s, uint32_t g)
{
    char nb[GD_NAME_MAX];
    const char *n = g == HD_NONE ? "(before the trace)" : hd_gname(s, g, nb);
    jstr(o, n, strlen(n));
}

/* Interned string i as a JSON string (0: ""). */
static void jinterned(struct gd_out *o, const struct hd *s, uint32_t i)
{
    jstr(o, i ? s->a.str.s[i] : "", i ? s->a.str.len[i] : 0);
}

/* A share of an object of kind as a JSON string, in the kind's words ("held by NAME",
 * "signalled by NAME", "NAME arrived last", "(ended itself: no waker recorded)": hd_phrase). */
static void jphrase(struct gd_out *o, const struct hd *s, uint8_t kind, uint32_t g)
{
    char ph[GD_NAME_MAX + 32];
    const char *p = hd_phrase(s, kind, g, 1, ph, sizeof ph);
    jstr(o, p, strlen(p));
}

/* "locks": [[object, waits, total, max, [[who, ns, waits, stack]...], [[waiting stack, waits,
 * ns]...], at]...] by total wait (null: no thread waited on one): who is the holder's (for a
 * condvar, semaphore or barrier, the thread's that ended the waits) phrase, stack where it
 * released the object (woke the waiters), at the word for that stack ("released",
 * "signalled", "posted", "arrived"); "holders": whether the trace records holders (gotrace's
 * experimental batch). */
static void locks(struct gd_out *o, struct hd *s)
{
    /* Objects with no counted wait (named by a wait record alone) are left out. "holders" is
     * whether any lock's holder is known at all: the page then explains the blame, or says the
     * trace does not record holders (Go's traces). */
    uint32_t *idx = malloc((s->nobjs + 1) * sizeof(*idx));
    size_t n = 0;
    int holders = 0;
    for (size_t i = 0; idx && i < s->nobjs; i++) {
        if (s->objs[i].waits) idx[n++] = (uint32_t)i;
        for (size_t k = 0; k < s->objs[i].nholders && s->objs[i].kind == HD_LOCK; k++)
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
            jphrase(o, s, x->kind, x->holders[h].g);
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
        gd_out_s(o, "],");
        const char *at = hd_kind_at(x->kind);
        jstr(o, at, strlen(at));
        gd_out_c(o, ']');
    }
    gd_out_c(o, ']');
    free(idx);
}

/* [[name, ns]...] of the path's shares, by thread (funcs 0) or by function (funcs 1). */
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

/* A segment's note (critpath.h CP_NOTE_*) as `critical-path` words it, "" for none. */
static void seg_note(struct gd_out *o, const struct hd *s, const struct cp_seg *sg)
{
    char t[2 * GD_NAME_MAX + 64], nb[GD_NAME_MAX], nb2[GD_NAME_MAX];
    t[0] = 0;
    if (sg->note == CP_NOTE_CYCLE)
        snprintf(t, sizeof t, "deadlock: held by %s, which waits for %s",
                 hd_gname(s, sg->holder, nb), hd_gname(s, sg->g, nb2));
    else if (sg->note == CP_NOTE_EXITED)
        snprintf(t, sizeof t, "deadlock: held by %s, which exited holding it",
                 hd_gname(s, sg->holder, nb));
    jstr(o, t, strlen(t));
}

/* "critical_path": the main thread's (critpath.h), {thread, from, to (ns from the trace's
 * start), threads: [[name, ns]...], funcs: [[name, ns]...], segments: [[thread, state, start,
 * duration, reason, function, note ("deadlock: ..." for a wait the walk could not follow
 * further: critpath.h CP_NOTE_*; "" none)]...], nsegments}; null with "critical_note" saying
 * why.
 * Above the timeline's budget the holders analysis dropped its intervals (iv_over, set by
 * cmd_report.c's iv_budget): a path from part of them would be wrong, so none is shown. The
 * shares are over the whole path; only the segments listed stop at PATH_SEGMENTS, and
 * nsegments lets the page say so. */
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
        gd_out_c(o, ',');
        seg_note(o, s, sg);
        gd_out_c(o, ']');
    }
    gd_out_s(o, "]}");
    cp_free(&p);
}

#define HANGS_SHOWN 200 /* blocked threads listed in the Hangs section (deadlocks: all) */

/* [thread, what it waits on ("waiting on mutex m"), its holder's name ("" none, or a join:
 * the join names it)] of a deadlock's member or of a thread behind it. */
static void hang_member(struct gd_out *o, const struct hd *s, const struct hg_report *r, uint32_t g,
                        int first)
{
    char w[1300];
    const struct hg_thread *t = &r->t[g];
    const char *blocked = gd_hang_blocked(s, r, g, w, sizeof w);
    int join = !strncmp(blocked, "waiting on join", 15);
    gd_out_s(o, first ? "[" : ",[");
    jname(o, s, g);
    gd_out_c(o, ',');
    jstr(o, blocked, strlen(blocked));
    gd_out_c(o, ',');
    if (t->owned && t->hold.g != HD_NONE && !join)
        jname(o, s, t->hold.g);
    else
        jstr(o, "", 0);
    gd_out_c(o, ']');
}

/* "deadlocks": [[kind ("cycle", "exited", "all": hangs.h), [member...], holder (exited: the
 * thread that exited holding the lock, else ""), its exit (ns, -1), [behind...]]...]. */
static void hang_deadlocks(struct gd_out *o, const struct hd *s, const struct hg_report *r)
{
    static const char *const kinds[] = {"", "cycle", "exited", "all"};
    gd_out_s(o, ",\"deadlocks\":[");
    for (size_t i = 0; i < r->nd; i++) {
        const struct hg_deadlock *d = &r->d[i];
        gd_out_s(o, i ? ",\n[" : "[");
        jstr(o, kinds[d->kind], strlen(kinds[d->kind]));
        gd_out_s(o, ",[");
        for (size_t k = 0; k < d->n; k++)
            hang_member(o, s, r, d->g[k], k == 0);
        gd_out_s(o, "],");
        if (d->kind == HG_EXITED_HOLDER)
            jname(o, s, d->holder);
        else
            jstr(o, "", 0);
        num(o, 0, d->kind == HG_EXITED_HOLDER ? r->t[d->holder].since - s->a.t0 : -1);
        gd_out_s(o, ",[");
        for (size_t k = 0; k < d->nbehind; k++)
            hang_member(o, s, r, d->behind[k], k == 0);
        gd_out_s(o, "]]");
    }
    gd_out_c(o, ']');
}

/* "blocked": [[thread, what ("waiting on mutex m", "in a system call"), since (ns), stack,
 * holder line (gd_hang_holder; "" for a wait on no object), holder's stack (when it is blocked
 * too), deadlock (index in deadlocks, -1 none)]...], the first HANGS_SHOWN, "nblocked" all. */
static void hang_blocked(struct gd_out *o, const struct hd *s, const struct hg_report *r)
{
    char w[1300], line[3000];
    size_t n = 0;
    gd_out_s(o, ",\"blocked\":[");
    for (uint32_t g = 0; g < r->nt; g++) {
        const struct hg_thread *t = &r->t[g];
        if (t->doing != HG_WAITING && t->doing != HG_SLEEPING && t->doing != HG_SYSCALL) continue;
        if (n++ >= HANGS_SHOWN) continue;
        const char *what = gd_hang_blocked(s, r, g, w, sizeof w);
        const char *holder = t->obj != HD_NONE ? gd_hang_holder(s, r, g, line, sizeof line) : "";
        uint32_t h = t->obj != HD_NONE ? t->hold.g : HD_NONE;
        int hb = h != HD_NONE && (r->t[h].doing == HG_WAITING || r->t[h].doing == HG_SYSCALL ||
                                  r->t[h].doing == HG_SLEEPING);
        gd_out_s(o, n > 1 ? ",\n[" : "[");
        jname(o, s, g);
        gd_out_c(o, ',');
        jstr(o, what, strlen(what));
        num(o, 0, t->since - s->a.t0);
        gd_out_c(o, ',');
        jstr(o, t->stack, strlen(t->stack));
        gd_out_c(o, ',');
        jstr(o, holder, strlen(holder));
        gd_out_c(o, ',');
        jstr(o, hb ? r->t[h].stack : "", hb ? strlen(r->t[h].stack) : 0);
        num(o, 0, t->dl ? (int64_t)t->dl - 1 : -1);
        gd_out_c(o, ']');
    }
    gd_out_s(o, "],\"nblocked\":");
    gd_out_i(o, (int64_t)n);
}

/* "hangs" (hangs.h, in the words of `gotrace hangs`): {at (ns), nlive, nstuck, all_stuck,
 * deadlocks, blocked, nblocked, movers: [[thread, what it does, why it may still move]...] (the
 * first 5 live threads that are not stuck)}; null when out of memory. The state is the one at
 * the end of the trace. */
static void hangs(struct gd_out *o, const struct hd *s)
{
    struct hg_report r;
    char w[1300];
    key(o, "hangs");
    if (hg_compute(s, s->a.tend, &r)) {
        gd_out_s(o, "null");
        return;
    }
    gd_out_s(o, "{\"at\":");
    gd_out_i(o, r.at - s->a.t0);
    gd_out_s(o, ",\"nlive\":");
    gd_out_i(o, (int64_t)r.nlive);
    gd_out_s(o, ",\"nstuck\":");
    gd_out_i(o, (int64_t)r.nstuck);
    gd_out_s(o, r.all_stuck ? ",\"all_stuck\":true" : ",\"all_stuck\":false");
    hang_deadlocks(o, s, &r);
    hang_blocked(o, s, &r);
    gd_out_s(o, ",\"movers\":[");
    for (uint32_t g = 0, n = 0; g < r.nt && n < 5; g++) {
        const struct hg_thread *t = &r.t[g];
        if (t->stuck || t->doing == HG_EXITED || t->doing == HG_UNKNOWN) continue;
        gd_out_s(o, n++ ? ",[" : "[");
        jname(o, s, g);
        const char *d = gd_hang_doing(s, &r, g, w, sizeof w), *why = gd_hang_why(t->why);
        gd_out_c(o, ',');
        jstr(o, d, strlen(d));
        gd_out_c(o, ',');
        jstr(o, why, strlen(why));
        gd_out_c(o, ']');
    }
    gd_out_s(o, "]}");
    hg_free(&r);
}

/* The JSON object (the file's header comment gives its layout). "slices" is absent when the
 * timeline is bucketed: the page checks "bucketed". */
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
        hangs(o, m->sync);
    } else {
        key(o, "locks");
        gd_out_s(o, "null");
        key(o, "critical_path");
        gd_out_s(o, "null");
        key(o, "hangs");
        gd_out_s(o, "null");
    }
    gd_out_s(o, "}\n");
}

/* Writes tpl up to marker (or to its end) and returns what follows the marker. In 64 KiB
 * pieces: gd_out_n takes at most the stream's 1 MiB buffer at once, and the assets must not
 * overflow it as they grow. */
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
    /* "\1" is in no asset: upto then writes the whole of it. The markers are replaced in the
     * order they appear in report.html. */
    const char *t = upto(o, gd_report_html, "@CSS@");
    upto(o, gd_report_css, "\1");
    t = upto(o, t, "@DATA@");
    data(o, file, d, a, m);
    t = upto(o, t, "@JS@");
    upto(o, gd_report_js, "\1");
    upto(o, t, "\1");
}
