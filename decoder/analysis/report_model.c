/* report_model.c: the report's timeline and profiles (see report_model.h; docs/report.md),
 * as callbacks of the shared analysis, so the page's numbers are those of summary and
 * contention. What it keeps, and why:
 * - Slices: each interval while fewer than RM_MAX_SLICES were seen, with its kind (its
 *   colour), reason, stack and waker: what the page needs to draw arrows and show stacks.
 *   Past the budget every interval, earlier and later, goes into per-thread buckets instead,
 *   and the page shows each bucket's main state. The buckets are laid out while reading,
 *   without knowing the trace's duration: their width doubles, neighbours merging, whenever
 *   the trace outgrows them, so one pass and bounded memory suffice.
 * - Regions and samples: the first RM_MAX_REGIONS and RM_MAX_SAMPLES, and how many there were
 *   (nrg_all, nsm_all), so that the page can say what it left out.
 * - Profiles: every interval and every sample, whatever the budgets, summed by (profile,
 *   stack) as Go's -pprof modes do, so the flame graphs are exact on any trace.
 * The callbacks cannot fail: out of memory drops what could not be stored and sets m->oom,
 * which the command checks after the pass. */
#include "report_model.h"

#include "gderr.h"
#include "grow.h"

#include <stdlib.h>
#include <string.h>

#define NO_G UINT32_MAX

/* The model the analysis' callbacks fill (rm_init made it a->user). */
static struct rm *model(struct gd_ana *a)
{
    return a->user;
}

/* Index of g in a->gs, NO_G for none (a sample without a goroutine). */
static uint32_t gidx(const struct gd_ana *a, const struct gd_ana_g *g)
{
    return g ? (uint32_t)(g - a->gs) : NO_G;
}

/* The substrings are those of Go's -pprof=sync and -pprof=net (cmd/trace/pprof.go), so that
 * the red of the timeline and the blocking flame graph show the same waits; sleeps (Go's and
 * ours) get a colour of their own: waiting out a timer is not contention. */
uint32_t rm_wait_kind(const char *reason)
{
    if (strstr(reason, "sync") || strstr(reason, "chan") || strstr(reason, "select"))
        return RK_SYNC;
    if (strstr(reason, "sleep")) return RK_SLEEP;
    if (!strcmp(reason, "network")) return RK_NETWORK;
    return RK_OTHER;
}

/* Go's profiles: blocking on sync/chan/select, on the network, syscalls, runnable time (the
 * scheduler latency), or -1 for none (running time, other waits). */
static int prof_kind(uint8_t state, const char *reason)
{
    if (state == GS_SYSCALL) return RP_SYSCALL;
    if (state == GS_RUNNABLE) return RP_SCHED;
    if (state != GS_WAITING) return -1;
    uint32_t k = rm_wait_kind(reason);
    return k == RK_SYNC ? RP_SYNC : k == RK_NETWORK ? RP_NETWORK : -1;
}

/* Adds an interval of ns (a CPU sample: 1) charged to stack to profile kind (-1: none). One
 * entry per (profile, stack text), so memory grows with the distinct stacks, not with the
 * intervals. */
static void prof_add(struct gd_ana *a, int kind, uint32_t stack, int64_t ns)
{
    struct rm *m = model(a);
    if (kind < 0 || !stack || !a->str.len[stack]) return; /* Go skips events without stacks */
    uint64_t key = (uint64_t)kind << 32 | stack;
    uint32_t *i = gd_hm_get(&m->profmap, key);
    if (!i) {
        if (gd_grow((void **)&m->prof, &m->pcap, m->nprof + 1, sizeof(*m->prof)) ||
            gd_hm_put(&m->profmap, key, (uint32_t)m->nprof)) {
            m->oom = 1;
            return;
        }
        m->prof[m->nprof] = (struct rm_prof){(uint32_t)kind, stack, 0, 0};
        i = gd_hm_get(&m->profmap, key);
        m->nprof++;
    }
    m->prof[*i].count++;
    m->prof[*i].ns += ns;
}

int rm_bucket_kind(const struct rm_buckets *b, uint32_t i)
{
    if (i < b->first || i - b->first >= b->n) return -1;
    const float *v = b->v[i - b->first];
    int best = -1;
    float most = 0;
    for (int k = 0; k < RK_N; k++)
        if (v[k] > most) most = v[k], best = k;
    return best;
}

/* Halves the resolution of b: buckets 2j and 2j+1 become bucket j. Indices are absolute
 * (from a->t0), so every thread's buckets stay aligned with the others'. In place, j rising:
 * the slot written for j is never past the slots read for j, and before those of any later j. */
static void halve(struct rm_buckets *b)
{
    if (!b->n) return;
    uint32_t nf = b->first / 2, nl = (b->first + b->n - 1) / 2;
    for (uint32_t j = nf; j <= nl; j++) {
        float s[RK_N] = {0};
        for (uint32_t i = 2 * j; i <= 2 * j + 1; i++)
            if (i >= b->first && i - b->first < b->n)
                for (int k = 0; k < RK_N; k++)
                    s[k] += b->v[i - b->first][k];
        memcpy(b->v[j - nf], s, sizeof(s));
    }
    b->first = nf;
    b->n = nl - nf + 1;
}

/* Makes room in b for absolute buckets from .. i (from >= b->first once b has buckets). A
 * thread keeps only the buckets from its first interval on, so short-lived threads cost few.
 * 0, or -1 when out of memory. */
static int reach(struct rm_buckets *b, uint32_t from, uint32_t i)
{
    if (!b->n) b->first = from;
    size_t need = (size_t)(i - b->first) + 1, cap = b->cap;
    if (need <= b->n) return 0;
    if (gd_grow((void **)&b->v, &cap, need, sizeof(*b->v))) return -1;
    b->cap = (uint32_t)cap;
    memset(b->v + b->n, 0, (need - b->n) * sizeof(*b->v));
    b->n = (uint32_t)need;
    return 0;
}

/* Adds [start, end) of thread g in kind to its buckets, split where it crosses bucket
 * boundaries; first the width doubles until the trace's end so far fits RM_BUCKETS buckets.
 * Times are kept as float: only which kind is largest is ever read. */
static void bucket_add(struct gd_ana *a, uint32_t g, uint32_t kind, int64_t start, int64_t end)
{
    struct rm *m = model(a);
    if (end <= start) return;
    while (end - a->t0 > (int64_t)RM_BUCKETS * m->width) {
        for (size_t i = 0; i < m->nbk; i++)
            halve(&m->bk[i]);
        m->width *= 2;
    }
    if (g >= m->nbk) {
        size_t cap = m->nbk;
        if (gd_grow((void **)&m->bk, &cap, (size_t)g + 1, sizeof(*m->bk))) goto oom;
        memset(m->bk + m->nbk, 0, ((size_t)g + 1 - m->nbk) * sizeof(*m->bk));
        m->nbk = (size_t)g + 1;
    }
    struct rm_buckets *b = &m->bk[g];
    uint32_t i0 = (uint32_t)((start - a->t0) / m->width);
    uint32_t i1 = (uint32_t)((end - 1 - a->t0) / m->width);
    if (b->n && i0 < b->first) i0 = b->first; /* cannot happen: a thread's times grow */
    if (reach(b, i0, i1)) goto oom;
    for (uint32_t i = i0; i <= i1; i++) {
        int64_t lo = a->t0 + (int64_t)i * m->width, hi = lo + m->width;
        int64_t s = start > lo ? start : lo, e = end < hi ? end : hi;
        b->v[i - b->first][kind] += (float)(e - s);
    }
    return;
oom:
    m->oom = 1;
}

/* The detail no longer fits: every interval so far goes into buckets, and all later ones. The
 * first width spreads the trace so far over half of the buckets, leaving the other half for
 * the rest of the trace before the first doubling. */
static void to_buckets(struct gd_ana *a)
{
    struct rm *m = model(a);
    int64_t span = m->nsl ? m->sl[m->nsl - 1].end - a->t0 : 1;
    m->bucketed = 1;
    m->width = span / (RM_BUCKETS / 2) + 1;
    for (size_t i = 0; i < m->nsl; i++)
        bucket_add(a, m->sl[i].g, m->sl[i].kind, m->sl[i].start, m->sl[i].end);
    free(m->sl);
    m->sl = NULL;
    m->nsl = m->slcap = 0;
}

/* Makes m->last[gi] exist (new entries 0). */
static int grow_last(struct rm *m, uint32_t gi)
{
    size_t had = m->lastcap;
    if (gd_grow((void **)&m->last, &m->lastcap, (size_t)gi + 1, sizeof(*m->last))) return -1;
    memset(m->last + had, 0, (m->lastcap - had) * sizeof(*m->last));
    return 0;
}

/* An interval ended: always into its profile (charged, as Go does, to the stack of the event
 * that began it; unlike Go's, an interval still open at the end of the trace counts too), then
 * into the detail or the buckets. The stack the page shows is, for a wait, its site's: the
 * waiter's own (for a thread created waiting, its start, not its creator's call); otherwise
 * that of the event that began the interval (the syscall, the wake-up). */
static void slice(struct gd_ana *a, const struct gd_ana_g *g, uint8_t state, int64_t start,
                  int64_t end)
{
    struct rm *m = model(a);
    const char *reason = state == GS_WAITING && g->reason ? a->str.s[g->reason] : "";
    prof_add(a, prof_kind(state, reason), g->since_stack, end - start);
    uint32_t kind = state == GS_RUNNING    ? RK_RUNNING
                    : state == GS_RUNNABLE ? RK_RUNNABLE
                    : state == GS_SYSCALL  ? RK_SYSCALL
                                           : rm_wait_kind(reason);
    uint32_t gi = gidx(a, g);
    m->nsl_all++;
    if (!m->bucketed && m->nsl >= RM_MAX_SLICES) to_buckets(a);
    if (m->bucketed) {
        bucket_add(a, gi, kind, start, end);
        return;
    }
    if (gd_grow((void **)&m->sl, &m->slcap, m->nsl + 1, sizeof(*m->sl)) || grow_last(m, gi)) {
        m->oom = 1;
        return;
    }
    uint32_t stack =
        state == GS_WAITING && g->site < a->nsites ? a->sites[g->site].stack : g->since_stack;
    m->sl[m->nsl] =
        (struct rm_slice){start, end, gi, kind, state == GS_WAITING ? g->reason : 0, stack, NO_G};
    m->last[gi] = (uint32_t)++m->nsl;
}

/* waker ended wakee's wait: the wait just closed (its last slice) gets its waker. The analysis
 * calls this right after that slice, so the last one ends at t; the checks only guard against
 * a slice that was not stored (budget, out of memory). */
static void wake(struct gd_ana *a, const struct gd_ana_g *waker, const struct gd_ana_g *wakee,
                 int64_t t, uint64_t flow)
{
    (void)flow;
    struct rm *m = model(a);
    uint32_t gi = gidx(a, wakee);
    if (m->bucketed || gi >= m->lastcap || !m->last[gi]) return;
    struct rm_slice *s = &m->sl[m->last[gi] - 1];
    if (s->end == t && s->kind >= RK_SYNC) s->waker = gidx(a, waker);
}

/* A user region ended: kept while under RM_MAX_REGIONS, counted always. */
static void region(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_open_region *r,
                   int64_t end)
{
    struct rm *m = model(a);
    if (m->nrg_all++ >= RM_MAX_REGIONS) return;
    if (gd_grow((void **)&m->rg, &m->rgcap, m->nrg + 1, sizeof(*m->rg))) {
        m->oom = 1;
        return;
    }
    m->rg[m->nrg++] = (struct rm_region){r->start, end, r->task, gidx(a, g), r->name};
}

/* A CPU sample: always into the CPU profile, kept for the timeline under RM_MAX_SAMPLES. */
static void sample(struct gd_ana *a, const struct gd_ana_g *g, int64_t t, uint32_t stack)
{
    struct rm *m = model(a);
    prof_add(a, RP_CPU, stack, 1);
    if (m->nsm_all++ >= RM_MAX_SAMPLES) return;
    if (gd_grow((void **)&m->sm, &m->smcap, m->nsm + 1, sizeof(*m->sm))) {
        m->oom = 1;
        return;
    }
    m->sm[m->nsm++] = (struct rm_sample){t, gidx(a, g), stack};
}

/* No flows (the page draws wake-ups from the slices' wakers) and no logs. */
static const struct gd_ana_cb callbacks = {slice, wake, NULL, region, NULL, sample};

void rm_init(struct rm *m, struct gd_ana *a)
{
    memset(m, 0, sizeof(*m));
    gd_ana_init(a, &callbacks, m);
    a->want_stacks = 1;
}

void rm_free(struct rm *m)
{
    for (size_t i = 0; i < m->nbk; i++)
        free(m->bk[i].v);
    void *arrays[] = {m->bk, m->sl, m->last, m->rg, m->sm, m->prof};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
        free(arrays[i]);
    gd_hm_free(&m->profmap);
}
