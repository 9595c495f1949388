/* cmd_locks.c: `gotrace locks [--holders] [--top N] FILE` — one entry per sync object (lock,
 * condvar, semaphore, barrier, joined thread), by total wait: its name, waits, total / average /
 * longest wait, the waiting stacks, and with --holders who held it while others waited (blamed
 * time, the stack of their release); for a condvar, semaphore or barrier, which nothing holds,
 * who signalled, posted or arrived last (the time of the waits each ended, the stack of the
 * wake-up), or that waits ended themselves. Invariants: the objects' totals are the sync waits'
 * (Waiting intervals with a reason containing "sync", as Go's -pprof=sync counts them); the
 * holders' (wakers') times add up to the object's total (holders.h). --order: the lock-order
 * inversions (lockgraph.h cycles), --holds: the hold statistics, and in every form the locks
 * held at thread exit, from lock tracking's records (docs/locks.md section 7). */
#include "cli.h"
#include "cmds.h"
#include "holders.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gotrace locks [--holders | --order | --holds] [--top N] [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Lists the sync objects threads waited on (mutexes, rwlocks, condvars, semaphores,\n"
    "barriers, joined threads), by total wait: name, waits, total, average and longest wait,\n"
    "and the stacks that waited. --holders adds who held each object while others waited:\n"
    "the time blamed on each holder and where it released the object (for condvars,\n"
    "semaphores and barriers, which nothing holds: who signalled, posted or arrived last,\n"
    "and where, or that the waits ended themselves). --top N shows the N objects with the\n"
    "most wait (default 20).\n"
    "--order lists the lock-order inversions (cycles of locks taken while holding others,\n"
    "each a latent deadlock even if the run did not hang) with the stack of each nested take\n"
    "and where the held lock was taken; the trace must be made with GOTRACE_LOCK_ORDER=1.\n"
    "--holds lists each lock's acquisitions, owner changes, total, average and longest hold,\n"
    "and the stack that ended the longest (by total hold; GOTRACE_LOCK_HOLDS=1). Every form\n"
    "ends with the locks threads held when they exited (either variable).\n"
    "Exit status 0 ok, 1 bad trace, 2 bad usage, 3 input/output error.\n";

#define MAX_SITES 3  /* waiting stacks shown per object */
#define MAX_FRAMES 6 /* frames shown per stack */

static const struct hd *sort_sa;
static int by_total(const void *x, const void *y)
{
    const struct hd_obj *a = &sort_sa->objs[*(const uint32_t *)x];
    const struct hd_obj *b = &sort_sa->objs[*(const uint32_t *)y];
    if (a->total != b->total) return a->total < b->total ? 1 : -1;
    return strcmp(sort_sa->a.str.s[a->name], sort_sa->a.str.s[b->name]);
}
static int site_by_total(const void *x, const void *y)
{
    const struct hd_site *a = x, *b = y;
    return (a->total < b->total) - (a->total > b->total);
}
static int holder_by_ns(const void *x, const void *y)
{
    const struct hd_share *a = x, *b = y;
    return (a->ns < b->ns) - (a->ns > b->ns);
}

/* The first MAX_FRAMES frames of an interned stack text (0: none), indented. */
static void stack_lines(struct gd_out *out, const struct hd *s, uint32_t stk)
{
    gd_out_stack(out, stk ? s->a.str.s[stk] : "", "      ", MAX_FRAMES, 1);
}

static void object(struct gd_out *out, struct hd *s, size_t k, struct hd_obj *o, int holders)
{
    char t1[32], t2[32], t3[32];
    gd_out_f(out, "\n#%zu  %s  waits=%" PRIu64 "  total=%s  avg=%s  max=%s\n", k + 1,
             s->a.str.s[o->name], o->waits, gd_fmt_dur(o->total, t1, sizeof t1),
             gd_fmt_dur(o->waits ? o->total / (int64_t)o->waits : 0, t2, sizeof t2),
             gd_fmt_dur(o->max, t3, sizeof t3));
    qsort(o->sites, o->nsites, sizeof(*o->sites), site_by_total);
    for (size_t i = 0; i < o->nsites && i < MAX_SITES; i++) {
        gd_out_f(out, "  waited %" PRIu64 " times, %s, at:\n", o->sites[i].count,
                 gd_fmt_dur(o->sites[i].total, t1, sizeof t1));
        stack_lines(out, s, o->sites[i].stack);
    }
    if (o->nsites > MAX_SITES) gd_out_f(out, "  (%zu more stacks)\n", o->nsites - MAX_SITES);
    if (!holders) return;
    qsort(o->holders, o->nholders, sizeof(*o->holders), holder_by_ns);
    if (!o->nholders) gd_out_s(out, "  holders: none recorded\n");
    for (size_t i = 0; i < o->nholders; i++) {
        const struct hd_share *h = &o->holders[i];
        /* A lock's holders are blamed for the wait; a condvar's, semaphore's or barrier's
         * "holders" are the threads that ended its waits (holders.h), in its own words. */
        char ph[GD_NAME_MAX + 32], at[32];
        snprintf(at, sizeof at, ", %s at:", hd_kind_at(o->kind));
        gd_out_f(out, "  %s: %s%s in %" PRIu64 " waits%s\n",
                 hd_phrase(s, o->kind, h->g, 1, ph, sizeof ph), o->kind == HD_LOCK ? "blamed " : "",
                 gd_fmt_dur(h->ns, t1, sizeof t1), h->count, h->stack ? at : "");
        if (h->stack) stack_lines(out, s, h->stack);
    }
}

/* ---- lock tracking (lockgraph.h): --order, --holds, held at exit ---- */

/* The object's name, with the mode it was taken in (edge modes: 1 read, 2 write, 4 try). */
static void lock_text(const struct hd *s, uint32_t obj, unsigned mode, char *buf, size_t n)
{
    const char *how = mode & 4   ? (mode & 1 ? " (try, read)" : " (try)")
                      : mode & 1 ? " (read)"
                      : mode & 2 ? " (write)"
                                 : "";
    snprintf(buf, n, "%s%s", s->a.str.s[s->objs[obj].name], how);
}

/* The first line of an interned stack text (a site: "func file:line"), or "?". */
static void site_line(const struct hd *s, uint32_t stk, char *buf, size_t n)
{
    const char *t = stk ? s->a.str.s[stk] : "?";
    size_t len = strcspn(t, "\n");
    snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), t);
}

static void order_edge(struct gd_out *out, const struct hd *s, const struct lg_edge *e)
{
    char gn[GD_NAME_MAX], to[GD_NAME_MAX + 32], from[GD_NAME_MAX + 32], site[512];
    lock_text(s, e->to, e->modes & 15, to, sizeof to);
    lock_text(s, e->from, e->modes >> 4, from, sizeof from);
    site_line(s, e->site, site, sizeof site);
    gd_out_f(out, "  %s took %s while holding %s (taken at %s), at:\n",
             hd_gname(s, hd_g_of_m(s, e->m), gn), to, from, site);
    stack_lines(out, s, e->stack);
}

static int write_order(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s)
{
    struct lg *g = &s->lg;
    if (lg_find_cycles(g)) {
        fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
        return GD_EXIT_BAD_TRACE;
    }
    size_t nlocks = 0;
    for (size_t i = 0; i < s->nobjs; i++)
        for (size_t k = 0; k < g->nedges; k++)
            if (g->edges[k].from == i || g->edges[k].to == i) {
                nlocks++;
                break;
            }
    gd_out_f(out, "trace: %s: lock order: %zu locks, %zu edges, %zu inversions%s\n", o->file,
             nlocks, g->nedges, g->ncycles, g->cycles_over ? " (more not listed)" : "");
    if (!g->any)
        gd_out_s(out, "  no lock tracking records (the trace was made without "
                      "GOTRACE_LOCK_ORDER=1)\n");
    for (size_t c = 0; c < g->ncycles; c++) {
        const struct lg_cycle *cy = &g->cycles[c];
        gd_out_f(out, "\ninversion %zu: ", c + 1);
        for (uint32_t k = 0; k < cy->n; k++)
            gd_out_f(out, "%s -> ", s->a.str.s[s->objs[g->edges[cy->edge[k]].from].name]);
        gd_out_f(out, "%s\n", s->a.str.s[s->objs[g->edges[cy->edge[0]].from].name]);
        for (uint32_t k = 0; k < cy->n; k++)
            order_edge(out, s, &g->edges[cy->edge[k]]);
    }
    return 0;
}

static int hold_by_total(const void *x, const void *y)
{
    const struct lg_hold *a = x, *b = y;
    return (a->total < b->total) - (a->total > b->total);
}

static void write_holds(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s)
{
    struct lg *g = &s->lg;
    qsort(g->holds, g->nholds, sizeof *g->holds, hold_by_total);
    gd_out_f(out, "trace: %s: lock holds: %zu locks%s\n", o->file, g->nholds,
             g->nholds > (size_t)o->top ? " (showing the top ones)" : "");
    if (!g->nholds)
        gd_out_s(out, "  no hold records (the trace was made without GOTRACE_LOCK_HOLDS=1)\n");
    for (size_t i = 0; i < g->nholds && i < (size_t)o->top; i++) {
        const struct lg_hold *h = &g->holds[i];
        char t1[32], t2[32], t3[32];
        gd_out_f(out,
                 "\n#%zu  %s  acquisitions=%" PRIu64 "  owner changes=%" PRIu64
                 "  total=%s  avg=%s  max=%s\n",
                 i + 1, s->a.str.s[s->objs[h->lock].name], h->acq, h->changes,
                 gd_fmt_dur(h->total, t1, sizeof t1),
                 gd_fmt_dur(h->acq ? h->total / (int64_t)h->acq : 0, t2, sizeof t2),
                 gd_fmt_dur(h->longest, t3, sizeof t3));
        gd_out_s(out, "  the longest hold ended at:\n");
        stack_lines(out, s, h->stack);
    }
}

static int write_locks(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s)
{
    if (o->order || o->holds) {
        int rc = o->order ? write_order(out, o, s) : 0;
        if (!rc && o->holds) {
            if (o->order) gd_out_c(out, '\n');
            write_holds(out, o, s);
        }
        if (!rc) gd_out_lock_exits(out, s, INT64_MAX);
        return rc;
    }
    uint32_t *idx = malloc((s->nobjs + 1) * sizeof(*idx));
    if (!idx) {
        fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
        return GD_EXIT_BAD_TRACE;
    }
    size_t n = 0;
    int64_t all = 0;
    uint64_t waits = 0;
    for (size_t i = 0; i < s->nobjs; i++)
        if (s->objs[i].waits) {
            idx[n++] = (uint32_t)i;
            all += s->objs[i].total;
            waits += s->objs[i].waits;
        }
    sort_sa = s;
    qsort(idx, n, sizeof(*idx), by_total);
    char t1[32];
    gd_out_f(out, "trace: %s: %zu sync objects, %" PRIu64 " waits, total wait %s%s\n", o->file, n,
             waits, gd_fmt_dur(all, t1, sizeof t1),
             n > (size_t)o->top ? " (showing the top ones)" : "");
    for (size_t k = 0; k < n && k < (size_t)o->top; k++)
        object(out, s, k, &s->objs[idx[k]], o->holders);
    free(idx);
    gd_out_lock_exits(out, s, INT64_MAX);
    return 0;
}

int gd_cmd_locks(int argc, char **argv)
{
    return gd_cmd_sync_write(argc, argv, "top,holders,order,holds", usage, 0, write_locks);
}
