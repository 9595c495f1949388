/* critpath.c: the critical path. See critpath.h for the walk and its invariants. */
#include "critpath.h"

#include "grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cp_state_name(uint8_t st, int handoff)
{
    if (handoff) return "hand-off";
    switch (st) {
    case GS_RUNNING:
        return "running";
    case GS_RUNNABLE:
        return "runnable";
    case GS_WAITING:
        return "waiting";
    case GS_SYSCALL:
        return "syscall";
    }
    return "-";
}

/* The interval of goroutine x holding time t (start < t <= end), or NULL. */
static const struct hd_iv *iv_at(const struct hd_g *x, int64_t t)
{
    size_t lo = 0, hi = x->niv;
    while (lo < hi) { /* the first with end >= t */
        size_t mid = (lo + hi) / 2;
        if (x->iv[mid].end < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->niv && x->iv[lo].start < t ? &x->iv[lo] : NULL;
}

uint32_t cp_find_thread(const struct hd *s, const char *want)
{
    char nb[GD_NAME_MAX];
    for (size_t i = 0; i < s->a.ngs; i++) {
        const struct gd_ana_g *g = &s->a.gs[i];
        char id[32];
        snprintf(id, sizeof id, "G%" PRIu64, g->id);
        if (!strcmp(want, id) || !strcmp(want, gd_ana_name(&s->a, g, 0, nb)) ||
            (g->label && !strcmp(want, s->a.str.s[g->label])) ||
            (g->start && !strcmp(want, s->a.str.s[g->start])))
            return (uint32_t)i;
    }
    return HD_NONE;
}

/* The main thread: the goroutine started by "main", else the first one. */
uint32_t cp_main_thread(const struct hd *s)
{
    for (size_t i = 0; i < s->a.ngs; i++)
        if (s->a.gs[i].start && !strcmp(s->a.str.s[s->a.gs[i].start], "main")) return (uint32_t)i;
    return s->a.ngs ? 0 : HD_NONE;
}

static int push(struct cp_seg **v, size_t *n, size_t *cap, struct cp_seg sg)
{
    if (sg.end <= sg.start) return 0;
    if (*n && (*v)[*n - 1].g == sg.g && (*v)[*n - 1].state == sg.state &&
        (*v)[*n - 1].handoff == sg.handoff && (*v)[*n - 1].start == sg.end) {
        (*v)[*n - 1].start = sg.start; /* merged (the walk goes backwards) */
        return 0;
    }
    if (gd_grow((void **)v, cap, *n + 1, sizeof(**v))) return -1;
    (*v)[(*n)++] = sg;
    return 0;
}

/* The walk (see the top comment): segments newest first. */
static int walk(const struct hd *s, uint32_t g, int64_t from, int64_t t, struct cp_seg **v,
                size_t *n)
{
    size_t cap = 0;
    for (size_t steps = 0; t > from && g != HD_NONE && steps < 100000000; steps++) {
        const struct hd_g *x = g < s->gxcap ? &s->gx[g] : NULL;
        const struct hd_iv *iv = x ? iv_at(x, t) : NULL;
        if (!iv) { /* before g's first interval: its creator created it */
            if (!x || x->creator == HD_NONE || x->created > t) break;
            g = x->creator;
            t = x->created;
            continue;
        }
        int64_t st = iv->start > from ? iv->start : from;
        if (iv->state == GS_WAITING && iv->waker != HD_NONE && iv->end <= t) {
            g = iv->waker; /* the wait ended when the waker woke it */
            t = iv->end;
            continue;
        }
        if (iv->state == GS_WAITING && iv->obj != HD_NONE) {
            const struct hd_obj *o = &s->objs[iv->obj];
            size_t first, end;
            hd_releases(o, iv->start, iv->end, &first, &end);
            uint32_t rg = end > first ? hd_g_of_m(s, o->rel[end - 1].m) : HD_NONE;
            if (rg != HD_NONE && rg != g && o->rel[end - 1].t > from) {
                int64_t r = o->rel[end - 1].t;
                if (push(v, n, &cap, (struct cp_seg){g, iv->state, 1, r, t, iv->stack, iv->reason}))
                    return -1;
                g = rg;
                t = r;
                continue;
            }
        }
        if (push(v, n, &cap, (struct cp_seg){g, iv->state, 0, st, t, iv->stack, iv->reason}))
            return -1;
        t = st;
    }
    if (t > from && push(v, n, &cap, (struct cp_seg){HD_NONE, 0, 0, from, t, 0, 0})) return -1;
    return 0;
}

static int by_ns(const void *x, const void *y)
{
    const struct cp_share *a = x, *b = y;
    return (a->ns < b->ns) - (a->ns > b->ns);
}

static int add_share(struct cp_share **v, size_t *n, size_t *cap, uint32_t key, int64_t ns)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].key == key) {
            (*v)[i].ns += ns;
            return 0;
        }
    if (gd_grow((void **)v, cap, *n + 1, sizeof(**v))) return -1;
    (*v)[(*n)++] = (struct cp_share){key, ns};
    return 0;
}

/* The function a segment is charged to: the first frame of its stack outside pthread calls,
 * else its thread's start routine. */
static uint32_t seg_func(struct hd *s, const struct cp_seg *sg)
{
    char buf[512];
    if (sg->g == HD_NONE) return gd_intern(&s->a.str, "(before the trace)", 18);
    const char *f = hd_stack_func(sg->stack ? s->a.str.s[sg->stack] : "", buf, sizeof buf);
    if (!*f && s->a.gs[sg->g].start) return s->a.gs[sg->g].start;
    return gd_intern(&s->a.str, f, (uint32_t)strlen(f));
}

int cp_compute(struct hd *s, uint32_t g, int64_t from, int64_t to, struct cp_path *p)
{
    memset(p, 0, sizeof(*p));
    p->from = from;
    p->to = to;
    struct cp_seg *v = NULL;
    size_t n = 0, cg = 0, cf = 0;
    int rc = walk(s, g, from, to, &v, &n);
    for (size_t i = 0; !rc && i < n; i++)
        rc = add_share(&p->byg, &p->ng, &cg, v[i].g, v[i].end - v[i].start) ||
             add_share(&p->byf, &p->nf, &cf, seg_func(s, &v[i]), v[i].end - v[i].start);
    for (size_t i = 0; i < n / 2; i++) { /* oldest first */
        struct cp_seg t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
    p->seg = v;
    p->nseg = n;
    if (!rc) {
        qsort(p->byg, p->ng, sizeof(*p->byg), by_ns);
        qsort(p->byf, p->nf, sizeof(*p->byf), by_ns);
    }
    if (rc) cp_free(p);
    return rc ? -1 : 0;
}

void cp_free(struct cp_path *p)
{
    free(p->seg);
    free(p->byg);
    free(p->byf);
    memset(p, 0, sizeof(*p));
}
