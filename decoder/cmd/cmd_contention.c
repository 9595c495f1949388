/* cmd_contention.c: `gotrace contention [--top N] FILE` — where threads waited, grouped by the
 * blocking call's stack and reason: count, total and max wait, most frequent wakers, and for
 * lock waits in traces that record them, who held the lock (holders.h); sorted by total wait.
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
    "number of waits, total and longest wait, who woke them most often and, for locks, who\n"
    "held them meanwhile (gotrace locks --holders has more); sorted by total wait. --top N\n"
    "shows the N largest sites (default 20).\n";

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

/* Prints who ended the n waits of wakes[0..n) (one site's), most frequent first. */
static void wakers(struct gd_out *out, struct gd_ana *a, const struct gd_wake *wakes, size_t n)
{
    struct waker *w = malloc((n + 1) * sizeof(*w));
    if (!w) return;
    for (size_t i = 0; i < n; i++) {
        char buf[GD_NAME_MAX];
        const char *name = wakes[i].g == GD_WAKER_NONE ? "(no goroutine)"
                           : wakes[i].g == GD_WAKER_END
                               ? "(still waiting at trace end)"
                               : gd_ana_name(a, &a->gs[wakes[i].g], 0, buf);
        w[i] = (struct waker){gd_intern(&a->str, name, (uint32_t)strlen(name)), wakes[i].count};
    }
    qsort(w, n, sizeof(*w), by_name);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
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

/* Prints who held the lock of site (index in a->sites) while its waits lasted, most first. */
static void holders(struct gd_out *out, const struct hd *s, uint32_t site)
{
    size_t lo = 0, hi = s->nheld, shown = 0;
    while (lo < hi) { /* held is sorted by site */
        size_t mid = (lo + hi) / 2;
        if (s->held[mid].site < site)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < s->nheld && s->held[i].site == site && shown < MAX_WAKERS; i++) {
        char nb[GD_NAME_MAX], t1[32];
        gd_out_f(out, "%s %s (%s)", shown++ ? "," : "  held by:", hd_gname(s, s->held[i].g, nb),
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
        wakers(out, a, a->wakes + first[idx[k]], first[idx[k] + 1] - first[idx[k]]);
        holders(out, s, idx[k]);
    }
    free(idx);
    free(first);
    return 0;
}

static int write_contention(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s)
{
    qsort(s->held, s->nheld, sizeof(*s->held), held_by_ns);
    if (!write_sites(out, &s->a, o, s)) return 0;
    fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
    return GD_EXIT_BAD_TRACE;
}

int gd_cmd_contention(int argc, char **argv)
{
    return gd_cmd_sync_write(argc, argv, "top", usage, GD_SYNC_HOLDERS_ONLY, write_contention);
}
