/* lockgraph.c: the lock-order graph, its cycles, hold statistics and exits. See lockgraph.h.
 * Cycles: for each lock s in turn, a depth-first walk over the edges between locks > s from s
 * back to s finds every elementary cycle whose smallest lock is s, once (Johnson's idea without
 * his blocking lists: the graphs are small, and the walk is bounded by LG_CYCLE_MAX steps deep
 * and by WALK_BUDGET edges in all). */
#include "lockgraph.h"

#include "grow.h"

#include <stdlib.h>
#include <string.h>

#define WALK_BUDGET 1000000 /* edges followed in all by lg_find_cycles */

void lg_free(struct lg *g)
{
    free(g->edges);
    free(g->holds);
    free(g->exits);
    free(g->cycles);
    gd_hm_free(&g->edgemap);
    gd_hm_free(&g->holdmap);
    memset(g, 0, sizeof *g);
}

int lg_add_edge(struct lg *g, const struct lg_edge *e)
{
    g->any = 1;
    uint64_t key = (uint64_t)e->from << 32 | e->to;
    if (e->from == e->to || gd_hm_get(&g->edgemap, key)) return 0;
    if (gd_grow((void **)&g->edges, &g->ecap, g->nedges + 1, sizeof *g->edges)) return -1;
    if (gd_hm_put(&g->edgemap, key, (uint32_t)g->nedges)) return -1;
    g->edges[g->nedges++] = *e;
    return 0;
}

int lg_add_hold(struct lg *g, const struct lg_hold *h)
{
    g->any = 1;
    uint32_t *i = gd_hm_get(&g->holdmap, h->lock);
    if (i) {
        g->holds[*i] = *h;
        return 0;
    }
    if (gd_grow((void **)&g->holds, &g->hcap, g->nholds + 1, sizeof *g->holds)) return -1;
    if (gd_hm_put(&g->holdmap, h->lock, (uint32_t)g->nholds)) return -1;
    g->holds[g->nholds++] = *h;
    return 0;
}

int lg_add_exit(struct lg *g, const struct lg_exit *x)
{
    g->any = 1;
    if (gd_grow((void **)&g->exits, &g->xcap, g->nexits + 1, sizeof *g->exits)) return -1;
    g->exits[g->nexits++] = *x;
    return 0;
}

/* The walk of lg_find_cycles: the edges out of each lock (out[first[v] .. first[v + 1])), the
 * path so far, which locks are on it, and the budget left. */
struct walk {
    struct lg *g;
    const uint32_t *first, *out;
    uint32_t start;
    uint32_t path[LG_CYCLE_MAX];
    uint8_t *on;
    long budget;
};

static int add_cycle(struct walk *w, uint32_t n)
{
    struct lg *g = w->g;
    if (g->ncycles == LG_CYCLES_MAX) {
        g->cycles_over = 1;
        return 0;
    }
    if (gd_grow((void **)&g->cycles, &g->ccap, g->ncycles + 1, sizeof *g->cycles)) return -1;
    struct lg_cycle *c = &g->cycles[g->ncycles++];
    c->n = n;
    memcpy(c->edge, w->path, n * sizeof *c->edge);
    return 0;
}

/* Extends the path of depth edges that ends at lock v. */
static int walk_from(struct walk *w, uint32_t v, uint32_t depth)
{
    for (uint32_t k = w->first[v]; k < w->first[v + 1]; k++) {
        if (--w->budget < 0) {
            w->g->cycles_over = 1;
            return 0;
        }
        const struct lg_edge *e = &w->g->edges[w->out[k]];
        w->path[depth] = w->out[k];
        if (e->to == w->start) {
            if (add_cycle(w, depth + 1)) return -1;
        } else if (e->to > w->start && !w->on[e->to] && depth + 1 < LG_CYCLE_MAX) {
            w->on[e->to] = 1;
            int r = walk_from(w, e->to, depth + 1);
            w->on[e->to] = 0;
            if (r) return r;
        }
    }
    return 0;
}

static int by_length(const void *x, const void *y)
{
    const struct lg_cycle *a = x, *b = y;
    return (a->n > b->n) - (a->n < b->n);
}

int lg_find_cycles(struct lg *g)
{
    g->ncycles = 0;
    g->cycles_over = 0;
    uint32_t nv = 0;
    for (size_t i = 0; i < g->nedges; i++) {
        if (g->edges[i].from >= nv) nv = g->edges[i].from + 1;
        if (g->edges[i].to >= nv) nv = g->edges[i].to + 1;
    }
    uint32_t *first = calloc((size_t)nv + 1, sizeof *first);
    uint32_t *out = malloc((g->nedges + 1) * sizeof *out);
    uint8_t *on = calloc((size_t)nv + 1, 1);
    int rc = first && out && on ? 0 : -1;
    if (!rc) { /* edges by their `from` lock (counting sort) */
        for (size_t i = 0; i < g->nedges; i++)
            first[g->edges[i].from + 1]++;
        for (uint32_t v = 0; v < nv; v++)
            first[v + 1] += first[v];
        uint32_t *fill = calloc((size_t)nv + 1, sizeof *fill);
        rc = fill ? 0 : -1;
        for (size_t i = 0; !rc && i < g->nedges; i++) {
            uint32_t f = g->edges[i].from;
            out[first[f] + fill[f]++] = (uint32_t)i;
        }
        free(fill);
    }
    struct walk w = {g, first, out, 0, {0}, on, WALK_BUDGET};
    for (uint32_t s = 0; !rc && s < nv; s++) {
        w.start = s;
        rc = walk_from(&w, s, 0);
    }
    free(first);
    free(out);
    free(on);
    if (!rc) qsort(g->cycles, g->ncycles, sizeof *g->cycles, by_length);
    return rc;
}
