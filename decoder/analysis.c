/* analysis.c: per-goroutine accounting (see analysis.h for the invariants). */
#include "analysis.h"

#include "err.h"
#include "go_wire.h"
#include "validate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Wrapping arithmetic: times come from the file and may be anything. */
static inline int64_t wsub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline void wadd(int64_t *a, int64_t b)
{
    *a = (int64_t)((uint64_t)*a + (uint64_t)b);
}

uint32_t gd_intern(struct gd_intern *t, const char *s, uint32_t len)
{
    if (t->n == 0) { /* index 0 is reserved for "none" */
        if (gd_grow((void **)&t->s, &t->cap, 1, sizeof(*t->s)) ||
            gd_grow((void **)&t->len, &t->lcap, 1, sizeof(*t->len)))
            return 0;
        t->s[0] = NULL;
        t->len[0] = 0;
        t->n = 1;
    }
    uint64_t h = gd_strhash(s, len);
    for (;; h++) {
        uint32_t *i = gd_hm_get(&t->map, h);
        if (!i) break;
        if (t->len[*i] == len && !memcmp(t->s[*i], s, len)) return *i;
    }
    char *c = malloc(len + 1);
    if (!c || gd_grow((void **)&t->s, &t->cap, t->n + 1, sizeof(*t->s)) ||
        gd_grow((void **)&t->len, &t->lcap, t->n + 1, sizeof(*t->len)) ||
        gd_hm_put(&t->map, h, (uint32_t)t->n)) {
        free(c);
        return 0;
    }
    memcpy(c, s, len);
    c[len] = 0;
    t->s[t->n] = c;
    t->len[t->n] = len;
    return (uint32_t)t->n++;
}

void gd_ana_init(struct gd_ana *a, const struct gd_ana_cb *cb, void *user)
{
    memset(a, 0, sizeof(*a));
    a->cb = cb;
    a->user = user;
    a->t0 = INT64_MIN;
}

void gd_ana_free(struct gd_ana *a)
{
    for (size_t i = 0; i < a->ngs; i++)
        free(a->gs[i].reasons);
    for (size_t i = 1; i < a->str.n; i++)
        free(a->str.s[i]);
    free(a->str.s);
    free(a->str.len);
    gd_hm_free(&a->str.map);
    free(a->gs);
    free(a->sites);
    gd_hm_free(&a->gmap);
    gd_hm_free(&a->sitemap);
    gd_hm_free(&a->gsite);
    gd_hm_free(&a->gstr);
}

static struct gd_ana_g *gacc(struct gd_ana *a, uint64_t id, int64_t t)
{
    uint32_t *i = gd_hm_get(&a->gmap, id);
    if (i) return &a->gs[*i];
    if (gd_grow((void **)&a->gs, &a->gcap, a->ngs + 1, sizeof(*a->gs)) ||
        gd_hm_put(&a->gmap, id, (uint32_t)a->ngs))
        return NULL;
    struct gd_ana_g *g = &a->gs[a->ngs++];
    memset(g, 0, sizeof(*g));
    g->id = id;
    g->m = GD_NONE;
    g->state = GS_NOTEXIST;
    g->since = g->first = g->last = t;
    return g;
}

/* Interned outermost function of stack stk, or 0. */
static uint32_t outer_name(struct gd_ana *a, const struct gd_gen *gen, uint64_t stk)
{
    const uint64_t *pcs;
    uint32_t n, len;
    if (!stk || !gd_gen_stack(gen, stk, &pcs, &n) || !n) return 0;
    const struct gd_frame *f = gd_gen_frame(gen, pcs[n - 1]);
    const char *s = f ? gd_gen_str(gen, f->func, &len) : NULL;
    return s && len ? gd_intern(&a->str, s, len) : 0;
}

/* The wait site of (reason, stack): interned stack text, grouped by content. */
static uint32_t site_of(struct gd_ana *a, const struct gd_gen *gen, uint32_t reason, uint64_t stk)
{
    char text[4096];
    size_t n = 0;
    const uint64_t *pcs;
    uint32_t nf = 0;
    text[0] = 0;
    if (stk && gd_gen_stack(gen, stk, &pcs, &nf)) {
        for (uint32_t i = 0; i < nf && n < sizeof(text) - 1; i++) {
            const struct gd_frame *f = gd_gen_frame(gen, pcs[i]);
            uint32_t fl = 0, il = 0;
            const char *fn = f ? gd_gen_str(gen, f->func, &fl) : "?";
            const char *fi = f ? gd_gen_str(gen, f->file, &il) : "?";
            n += (size_t)snprintf(text + n, sizeof(text) - n, "%.*s %.*s:%" PRIu64 "\n", (int)fl,
                                  fn ? fn : "", (int)il, fi ? fi : "", f ? f->line : 0);
        }
    }
    if (n >= sizeof(text)) n = sizeof(text) - 1;
    uint32_t st = gd_intern(&a->str, text, (uint32_t)n);
    uint64_t key = ((uint64_t)reason << 32) | st;
    uint32_t *i = gd_hm_get(&a->sitemap, key);
    if (i) return *i;
    if (gd_grow((void **)&a->sites, &a->scap, a->nsites + 1, sizeof(*a->sites)) ||
        gd_hm_put(&a->sitemap, key, (uint32_t)a->nsites))
        return UINT32_MAX;
    memset(&a->sites[a->nsites], 0, sizeof(a->sites[0]));
    a->sites[a->nsites].reason = reason;
    a->sites[a->nsites].stack = st;
    return (uint32_t)a->nsites++;
}

static void add_reason(struct gd_ana_g *g, uint32_t reason, int64_t ns)
{
    for (uint32_t i = 0; i < g->nreasons; i++) {
        if (g->reasons[i].reason == reason) {
            wadd(&g->reasons[i].ns, ns);
            g->reasons[i].count++;
            return;
        }
    }
    size_t cap = g->rcap;
    if (gd_grow((void **)&g->reasons, &cap, (size_t)g->nreasons + 1, sizeof(*g->reasons))) return;
    g->rcap = (uint32_t)cap;
    g->reasons[g->nreasons++] = (struct gd_reason_acc){reason, 1, ns};
}

static void add_waker(struct gd_site *s, uint32_t name)
{
    for (uint32_t i = 0; i < s->nw; i++) {
        if (s->w[i].name == name) {
            s->w[i].count++;
            return;
        }
    }
    if (s->nw < 8)
        s->w[s->nw++] = (struct gd_waker){name, 1};
    else
        s->wother++;
}

/* Closes g's current interval at t. waker is the goroutine ending a wait (or NULL). */
static void close_interval(struct gd_ana *a, struct gd_ana_g *g, int64_t t,
                           const struct gd_ana_g *waker, const char *nowaker)
{
    int64_t d = wsub(t, g->since);
    switch (g->state) {
    case GS_RUNNING:
        wadd(&g->ns_run, d);
        break;
    case GS_RUNNABLE:
        wadd(&g->ns_runnable, d);
        break;
    case GS_SYSCALL:
        wadd(&g->ns_sys, d);
        break;
    case GS_WAITING:
        wadd(&g->ns_wait, d);
        add_reason(g, g->reason, d);
        if (g->site != UINT32_MAX && g->site < a->nsites) {
            struct gd_site *s = &a->sites[g->site];
            s->count++;
            wadd(&s->total, d);
            if (d > s->max) s->max = d;
            char buf[32];
            const char *wn = waker ? gd_ana_name(a, waker, buf, sizeof(buf)) : nowaker;
            add_waker(s, gd_intern(&a->str, wn, (uint32_t)strlen(wn)));
        }
        break;
    default:
        return;
    }
    if (a->cb && a->cb->slice && d >= 0) a->cb->slice(a, g, g->state, g->since, t);
}

/* Interned string id of the generation, cached for the generation. */
static uint32_t gen_str(struct gd_ana *a, const struct gd_gen *gen, uint64_t id)
{
    uint32_t *c = gd_hm_get(&a->gstr, id), len = 0;
    if (c) return *c;
    const char *s = gd_gen_str(gen, id, &len);
    uint32_t v = gd_intern(&a->str, s ? s : "", s ? len : 0);
    gd_hm_put(&a->gstr, id, v);
    return v;
}

/* site_of, cached per generation when the ids fit the cache key. */
static uint32_t gen_site(struct gd_ana *a, const struct gd_gen *gen, uint32_t reason, uint64_t rid,
                         uint64_t stk)
{
    if (stk >> 32 || rid >> 32) return site_of(a, gen, reason, stk);
    uint64_t key = stk << 32 | rid;
    uint32_t *c = gd_hm_get(&a->gsite, key);
    if (c) return *c;
    uint32_t v = site_of(a, gen, reason, stk);
    gd_hm_put(&a->gsite, key, v);
    return v;
}

int gd_ana_event(struct gd_ana *a, const struct gd_tev *ev, const struct gd_gen *gen)
{
    if (gen->num != a->cache_gen) {
        gd_hm_clear(&a->gsite);
        gd_hm_clear(&a->gstr);
        a->cache_gen = gen->num;
    }
    if (a->t0 == INT64_MIN) a->t0 = ev->time;
    a->tend = ev->time;
    struct gd_trans t;
    if (!gd_transition(ev, &t) || t.kind != TR_G) return 0;
    int64_t now = ev->time;
    struct gd_ana_g *g = gacc(a, t.id, now);
    if (!g) return -1;
    if (!g->name) {
        uint64_t stk = t.stack;
        if (ev->type == GO_EV_GO_STATUS_STACK)
            stk = ev->args[3];
        else if (ev->type == GO_EV_GO_CREATE || ev->type == GO_EV_GO_CREATE_BLOCKED)
            stk = ev->args[1];
        else if (ev->g != t.id)
            stk = 0; /* the event's stack is another goroutine's */
        g->name = outer_name(a, gen, stk);
    }
    if (t.old == t.new && g->state == t.new) return 0; /* status fix-up: no change */
    uint32_t gi = (uint32_t)(g - a->gs);
    struct gd_ana_g *waker = NULL;
    if (t.new == GS_RUNNABLE && g->state == GS_WAITING && ev->g != GD_NONE && ev->g != t.id) {
        waker = gacc(a, ev->g, now);
        g = &a->gs[gi];
    }
    close_interval(a, g, now, waker, "(no goroutine)");
    if (t.new == GS_WAITING) {
        static const char before[] = "waiting (since before this generation)";
        if (ev->type == GO_EV_GO_BLOCK) {
            g->reason = gen_str(a, gen, t.reason);
            g->nblock++;
            g->site = gen_site(a, gen, g->reason, t.reason, t.stack);
        } else {
            g->reason = gd_intern(&a->str, before, sizeof(before) - 1);
            uint64_t stk = ev->type == GO_EV_GO_STATUS_STACK ? ev->args[3] : t.stack;
            g->site = site_of(a, gen, g->reason, stk);
        }
    }
    if (t.new == GS_SYSCALL && t.old == GS_RUNNING) g->nsys++;
    if (t.new == GS_RUNNING || t.new == GS_SYSCALL) g->m = ev->m;
    if (t.new == GS_RUNNABLE && t.old == GS_WAITING &&waker && a->cb && a->cb->wake) {
        g->flow = ++a->nflows;
        a->cb->wake(a, waker, g, now, g->flow);
    }
    if (t.new == GS_RUNNING && g->flow) {
        if (a->cb && a->cb->flow_end) a->cb->flow_end(a, g, now, g->flow);
        g->flow = 0;
    }
    g->state = t.new;
    g->since = now;
    g->last = now;
    return 0;
}

void gd_ana_finish(struct gd_ana *a)
{
    for (size_t i = 0; i < a->ngs; i++) {
        struct gd_ana_g *g = &a->gs[i];
        if (g->state == GS_NOTEXIST || g->state == GS_UNDET) continue;
        close_interval(a, g, a->tend, NULL, "(still waiting at trace end)");
        g->since = a->tend;
        g->last = a->tend;
    }
}

const char *gd_ana_name(const struct gd_ana *a, const struct gd_ana_g *g, char *buf, size_t n)
{
    if (g->name && g->name < a->str.n) return a->str.s[g->name];
    snprintf(buf, n, "G%" PRIu64, g->id);
    return buf;
}

const char *gd_fmt_dur(int64_t ns, char *buf, size_t n)
{
    double v = (double)ns;
    if (ns < 0) v = 0;
    if (v < 1e3)
        snprintf(buf, n, "%.0fns", v);
    else if (v < 1e6)
        snprintf(buf, n, "%.2fus", v / 1e3);
    else if (v < 1e9)
        snprintf(buf, n, "%.2fms", v / 1e6);
    else
        snprintf(buf, n, "%.3fs", v / 1e9);
    return buf;
}
