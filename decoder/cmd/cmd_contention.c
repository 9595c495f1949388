/* cmd_contention.c: `gotrace contention [--top N] FILE` — where threads waited, grouped by the
 * blocking call's stack and reason: count, total and max wait, most frequent wakers (or what
 * ended a wait no goroutine woke: docs/locks.md), and for lock waits in traces that record them,
 * who held the lock (holders.h), for a condvar's, semaphore's or barrier's who signalled, posted
 * or arrived last; sorted by total wait.
 * Invariants: a wait is the Waiting interval of a goroutine (block to unblock, or to the end of the
 * trace); every wait is counted in exactly one site and for one waker; wakers are shown by display
 * name (gd_ana_name), goroutines of the same name counted together. */
#include "analysis.h"
#include "cli.h"
#include "cmds.h"
#include "holders.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gotrace contention [--top N] [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Lists where threads waited, grouped by the waiting call's stack and the block reason:\n"
    "number of waits, total and longest wait, who woke them most often (or what ended them)\n"
    "and, for locks, who held them meanwhile (for condvars, semaphores and barriers: who\n"
    "signalled, posted or arrived last; gotrace locks --holders has more); sorted by total\n"
    "wait. --top N shows the N largest sites (default 20).\n";

static const struct gd_site *sort_sites;
static int by_total(const void *x, const void *y)
{
    const struct gd_site *a = &sort_sites[*(const uint32_t *)x];
    const struct gd_site *b = &sort_sites[*(const uint32_t *)y];
    if (a->total != b->total) return a->total < b->total ? 1 : -1;
    return (a->count < b->count) - (a->count > b->count);
}

#define MAX_WAKERS 8 /* shown per site; the rest are summed as "others" */

/* A waker by display name: name is interned in the analysis' strings. */
struct waker {
    uint32_t name;
    uint64_t count;
};

static const struct gd_ana *sort_ana;
static int by_site(const void *x, const void *y)
{
    const struct gd_wake *a = x, *b = y;
    return (a->site > b->site) - (a->site < b->site);
}
static int by_name(const void *x, const void *y)
{
    const struct waker *a = x, *b = y;
    return (a->name > b->name) - (a->name < b->name);
}
static int by_count(const void *x, const void *y)
{
    const struct waker *a = x, *b = y;
    if (a->count != b->count) return a->count < b->count ? 1 : -1;
    return strcmp(sort_ana->str.s[a->name], sort_ana->str.s[b->name]);
}

/* Prints the k-th site (0-based): its reason, numbers and stack. */
static void site(struct gd_out *out, const struct gd_ana *a, size_t k, const struct gd_site *s)
{
    char t1[32], t2[32], t3[32];
    const char *reason = s->reason ? a->str.s[s->reason] : "";
    gd_out_f(out, "\n#%zu  %s  waits=%" PRIu64 "  total=%s  max=%s  avg=%s\n", k + 1,
             *reason ? reason : "(no reason)", s->count, gd_fmt_dur(s->total, t1, sizeof(t1)),
             gd_fmt_dur(s->max, t2, sizeof(t2)),
             gd_fmt_dur(s->count ? s->total / (int64_t)s->count : 0, t3, sizeof(t3)));
    gd_out_stack(out, s->stack ? a->str.s[s->stack] : "", "    ", 0, 1);
}

/* The range [*lo, end) of v (n entries, sorted by site) that is site's. */
static size_t site_range(const struct hd_held *v, size_t n, uint32_t site, size_t *lo)
{
    size_t l = 0, h = n;
    while (l < h) {
        size_t mid = (l + h) / 2;
        if (v[mid].site < site)
            l = mid + 1;
        else
            h = mid;
    }
    *lo = l;
    while (h < n && v[h].site == site)
        h++;
    return h;
}

/* The name of a waker of gd_wake (or gd_ana_g.ended_by) into buf (GD_NAME_MAX): what ended
 * the wait when no goroutine did, in words (analysis.h's GD_WAKER_*; docs/locks.md). */
static const char *waker_name(const struct gd_ana *a, uint32_t g, char *buf)
{
    if (GD_WAKER_IS_G(g)) return gd_ana_name(a, &a->gs[g], 0, buf);
    if (GD_WAKER_IS_TEXT(g)) {
        snprintf(buf, GD_NAME_MAX, "(%s)", a->str.s[g & ~GD_WAKER_TEXT]);
        return buf;
    }
    return strcpy(buf, g == GD_WAKER_END    ? "(still waiting at trace end)"
                       : g == GD_WAKER_SELF ? "(ended itself: no waker recorded)"
                                            : "(no goroutine)");
}

/* Prints who ended the n waits of wakes[0..n) (site's), most frequent first. A lock wait that
 * its waiter ended itself after a release inside it shows as "(released by X)", its last
 * releaser (s->freed, sorted by site), taken out of the "ended itself" count. */
static void wakers(struct gd_out *out, struct hd *s, uint32_t site, const struct gd_wake *wakes,
                   size_t n)
{
    struct gd_ana *a = &s->a; /* interns the names */
    size_t f0, f1 = site_range(s->freed, s->nfreed, site, &f0);
    struct waker *w = malloc((n + f1 - f0 + 1) * sizeof(*w));
    if (!w) return;
    uint64_t freed = 0;
    char buf[GD_NAME_MAX + 16], nb[GD_NAME_MAX];
    for (size_t i = f0; i < f1; i++) {
        snprintf(buf, sizeof buf, "(released by %s)", gd_ana_name(a, &a->gs[s->freed[i].g], 0, nb));
        w[i - f0] =
            (struct waker){gd_intern(&a->str, buf, (uint32_t)strlen(buf)), s->freed[i].count};
        freed += s->freed[i].count;
    }
    size_t nw = f1 - f0;
    /* A wait for a child that a thread ended: the child's last thread, by exiting (a merged
     * trace: docs/processes.md "Waits across processes") */
    uint32_t r = site < a->nsites ? a->sites[site].reason : 0;
    int child = r && !strncmp(a->str.s[r], "wait: ", 6);
    for (size_t i = 0; i < n; i++) {
        uint64_t c = wakes[i].count;
        if (wakes[i].g == GD_WAKER_SELF) c -= freed < c ? freed : c;
        const char *name = waker_name(a, wakes[i].g, buf);
        if (child && GD_WAKER_IS_G(wakes[i].g)) name = strcat(buf, " (exited)");
        if (c) w[nw++] = (struct waker){gd_intern(&a->str, name, (uint32_t)strlen(name)), c};
    }
    qsort(w, nw, sizeof(*w), by_name);
    size_t m = 0;
    for (size_t i = 0; i < nw; i++) {
        if (m && w[m - 1].name == w[i].name)
            w[m - 1].count += w[i].count;
        else
            w[m++] = w[i];
    }
    qsort(w, m, sizeof(*w), by_count);
    gd_out_s(out, "  woken by:");
    uint64_t others = 0;
    for (size_t i = 0; i < m; i++) {
        if (i < MAX_WAKERS)
            gd_out_f(out, "%s %s (%" PRIu64 ")", i ? "," : "", a->str.s[w[i].name], w[i].count);
        else
            others += w[i].count;
    }
    if (others) gd_out_f(out, ", others (%" PRIu64 ")", others);
    gd_out_c(out, '\n');
    free(w);
}

static int held_by_ns(const void *x, const void *y)
{
    const struct hd_held *a = x, *b = y;
    if (a->site != b->site) return (a->site > b->site) - (a->site < b->site);
    return (a->ns < b->ns) - (a->ns > b->ns);
}

/* Prints who held the lock of site (index in a->sites) while its waits lasted, most first;
 * for a condvar's, semaphore's or barrier's site, the threads that ended them, in its words
 * (holders.h; the waits that ended themselves are in the woken-by line already). */
static void holders(struct gd_out *out, const struct hd *s, uint32_t site)
{
    size_t lo, hi = site_range(s->held, s->nheld, site, &lo), shown = 0;
    uint32_t r = s->a.sites[site].reason;
    uint8_t kind = hd_kind_of(r ? s->a.str.s[r] : "");
    for (size_t i = lo; i < hi && shown < MAX_WAKERS; i++) {
        char nb[GD_NAME_MAX], t1[32];
        if (s->held[i].g >= s->a.ngs) continue; /* ended itself, still waiting */
        if (!shown++) gd_out_f(out, "  %s:", hd_kind_by(kind));
        gd_out_f(out, "%s %s (%s)", shown > 1 ? "," : "", hd_who(s, kind, s->held[i].g, nb),
                 gd_fmt_dur(s->held[i].ns, t1, sizeof t1));
    }
    if (shown) gd_out_c(out, '\n');
}

/* Writes the sites by total wait (with their holders from s); -1 when out of memory. */
static int write_sites(struct gd_out *out, struct gd_ana *a, const struct gd_cmd_opts *o,
                       struct hd *s)
{
    uint32_t *idx = malloc((a->nsites + 1) * sizeof(*idx));
    size_t *first = malloc((a->nsites + 1) * sizeof(*first)); /* a site's range in a->wakes */
    if (!idx || !first) {
        free(idx);
        free(first);
        return -1;
    }
    qsort(a->wakes, a->nwakes, sizeof(*a->wakes), by_site);
    for (size_t i = 0, k = 0; i <= a->nsites; i++) {
        while (k < a->nwakes && a->wakes[k].site < i)
            k++;
        first[i] = k;
    }
    sort_ana = a;
    size_t n = 0;
    int64_t all = 0;
    for (size_t i = 0; i < a->nsites; i++) {
        if (a->sites[i].count) idx[n++] = (uint32_t)i;
        all += a->sites[i].total;
    }
    sort_sites = a->sites;
    qsort(idx, n, sizeof(*idx), by_total);
    char t1[32];
    gd_out_f(out, "trace: %s: %zu wait sites, total wait %s%s\n", o->file, n,
             gd_fmt_dur(all, t1, sizeof(t1)), n > (size_t)o->top ? " (showing the top ones)" : "");
    for (size_t k = 0; k < n && k < (size_t)o->top; k++) {
        site(out, a, k, &a->sites[idx[k]]);
        wakers(out, s, idx[k], a->wakes + first[idx[k]], first[idx[k] + 1] - first[idx[k]]);
        holders(out, s, idx[k]);
    }
    free(idx);
    free(first);
    return 0;
}

static int write_contention(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s)
{
    qsort(s->held, s->nheld, sizeof(*s->held), held_by_ns);
    qsort(s->freed, s->nfreed, sizeof(*s->freed), held_by_ns);
    if (!write_sites(out, &s->a, o, s)) return 0;
    fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
    return GD_EXIT_BAD_TRACE;
}

int gd_cmd_contention(int argc, char **argv)
{
    return gd_cmd_sync_write(argc, argv, "top", usage, GD_SYNC_HOLDERS_ONLY, write_contention);
}
