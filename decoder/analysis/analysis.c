/* analysis.c: per-goroutine accounting, from the state transitions of the ordered events
 * (transition.h), in the one pass that summary, contention, export, locks and the report share
 * (see analysis.h for what it keeps and its invariants).
 *
 * A goroutine's lifetime runs from the first event that names it (its creation, or its first
 * status when it existed before the trace) to its last transition. Each transition ends the
 * interval of the state it leaves (close_interval adds its length to that state's total) and
 * begins one of the state it enters, so the intervals tile the lifetime: running +
 * runnable + syscall + blocked = lifetime, nothing counted twice or left out. NotExist is no
 * state of the lifetime; intervals still open at the end of the trace are closed at its last
 * event (gd_ana_finish), which keeps the sum for the threads that never ended.
 *
 * Only the transitions count: the GoStatus every generation repeats for a known goroutine is a
 * fix-up that restates its state, and changes nothing, so a wait spanning generations stays
 * one wait. A goroutine first seen by its status (it existed before the trace) enters that
 * state at the status; if it is Waiting, its wait is one "since before this generation".
 *
 * Names, reasons and stack texts are copied into one intern table (gd_intern), because the
 * generation's tables they come from are freed at the next generation and their ids restart;
 * per-generation caches map the generation's ids to interned ones so that an id is looked up
 * once per generation, not once per event. */
#include "analysis.h"

#include "gderr.h"
#include "evspec.h"
#include "go_wire.h"
#include "grow.h"
#include "transition.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Wrapping arithmetic: times come from the file and may be anything, and a damaged trace must
 * give wrong numbers, not undefined behaviour. Wrapped differences still telescope, so the
 * state totals keep summing to last - first. */
static inline int64_t wsub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}
static inline void wadd(int64_t *a, int64_t b)
{
    *a = (int64_t)((uint64_t)*a + (uint64_t)b);
}

/* The map is keyed by the text's hash; a key taken by another text moves on to hash + 1,
 * hash + 2, ... until it finds the text or a free key. Nothing is ever removed, so that probe
 * sequence is never broken. Out of memory gives 0 ("none"): the pass goes on with the name
 * unknown rather than fail halfway. */
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

static void accs_free(struct gd_name_accs *t)
{
    gd_hm_free(&t->map);
    free(t->v);
}

void gd_ana_free(struct gd_ana *a)
{
    for (size_t i = 0; i < a->ngs; i++) {
        free(a->gs[i].reasons);
        free(a->gs[i].fds);
        free(a->gs[i].regs);
    }
    for (size_t i = 1; i < a->str.n; i++)
        free(a->str.s[i]);
    free(a->str.s);
    free(a->str.len);
    gd_hm_free(&a->str.map);
    free(a->gs);
    free(a->procrec);
    gd_hm_free(&a->gproc);
    free(a->sites);
    free(a->wakes);
    free(a->otasks);
    free(a->otfree);
    accs_free(&a->regions);
    accs_free(&a->tasks);
    accs_free(&a->leaves);
    gd_hm_free(&a->gmap);
    gd_hm_free(&a->sitemap);
    gd_hm_free(&a->wakemap);
    gd_hm_free(&a->taskmap);
    gd_hm_free(&a->gsite);
    gd_hm_free(&a->gstr);
    gd_hm_free(&a->gleaf);
    gd_hm_free(&a->gstk);
    gd_stack_text_free(&a->text);
}

/* The totals of name in t, created at zero; NULL when out of memory. */
static struct gd_name_acc *acc_of(struct gd_name_accs *t, uint32_t name)
{
    uint32_t *i = gd_hm_get(&t->map, name);
    if (i) return &t->v[*i];
    if (gd_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) ||
        gd_hm_put(&t->map, name, (uint32_t)t->n))
        return NULL;
    t->v[t->n] = (struct gd_name_acc){.name = name};
    return &t->v[t->n++];
}

/* The accounting of goroutine id, created at its first mention (time t) in state NotExist, so
 * that nothing is counted for it before its first transition. Growing a->gs may move it: a
 * pointer into it is stale after a call. NULL when out of memory. */
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
    uint32_t *r = gd_hm_get(&a->gproc, id);
    if (r) {
        g->pid = a->procrec[*r].pid;
        g->proc = a->procrec[*r].name;
    }
    g->m = GD_NONE;
    g->state = GS_NOTEXIST;
    g->since = g->first = g->last = t;
    return g;
}

/* Reads generation gen's process records (GT_EXP_PROCS): a goroutine seen already gets its
 * process now, the others when gacc first meets them. 0, or -1 when out of memory. */
static int read_procs(struct gd_ana *a, const struct gd_gen *gen)
{
    gd_hm_clear(&a->gproc);
    a->nprocrec = 0;
    a->multi = 1;
    for (size_t pos = 0; pos < gen->nprocs;) {
        uint64_t v[3];
        for (int k = 0; k < 3; k++) {
            int n = gd_uvarint(gen->procs + pos, gen->nprocs - pos, &v[k]);
            if (n <= 0) return 0; /* cut short: the rest is unreadable */
            pos += (size_t)n;
        }
        if (v[2] > gen->nprocs - pos) return 0;
        uint32_t name = gd_intern(&a->str, (const char *)gen->procs + pos, (uint32_t)v[2]);
        pos += v[2];
        if (!name) return -1;
        uint32_t *i = gd_hm_get(&a->gmap, v[0]);
        if (i) {
            a->gs[*i].pid = v[1];
            a->gs[*i].proc = name;
            continue;
        }
        if (gd_grow((void **)&a->procrec, &a->procreccap, a->nprocrec + 1, sizeof(*a->procrec)) ||
            gd_hm_put(&a->gproc, v[0], (uint32_t)a->nprocrec))
            return -1;
        a->procrec[a->nprocrec].pid = v[1];
        a->procrec[a->nprocrec++].name = name;
    }
    return 0;
}

/* Interned function of the outermost (outer != 0: the start routine) or innermost frame (the
 * leaf, where a CPU sample was taken) of stack stk, or 0 when the stack or the name is
 * unknown. */
static uint32_t frame_name(struct gd_ana *a, const struct gd_gen *gen, uint64_t stk, int outer)
{
    const uint64_t *pcs;
    uint32_t n, len;
    if (!stk || !gd_gen_stack(gen, stk, &pcs, &n) || !n) return 0;
    const struct gd_frame *f = gd_gen_frame(gen, pcs[outer ? n - 1 : 0]);
    const char *s = f ? gd_gen_str(gen, f->func, &len) : NULL;
    return s && len ? gd_intern(&a->str, s, len) : 0;
}

/* Interned text of stack stk (stacktext.h). */
static uint32_t stack_text(struct gd_ana *a, const struct gd_gen *gen, uint64_t stk)
{
    const char *text = gd_stack_text(gen, stk, &a->text);
    return gd_intern(&a->str, text, (uint32_t)a->text.len);
}

/* stack_text, cached for the generation: stack ids mean something only in their generation,
 * and a text is built and hashed once per generation however many events name its stack. A
 * failed insert into the cache only costs time. */
static uint32_t gen_stack(struct gd_ana *a, const struct gd_gen *gen, uint64_t stk)
{
    uint32_t *c = gd_hm_get(&a->gstk, stk);
    if (c) return *c;
    uint32_t v = stack_text(a, gen, stk);
    gd_hm_put(&a->gstk, stk, v);
    return v;
}

/* The stack of the event itself (GoCreate: the creator's, GoUnblock: the waker's), or 0. It
 * is the stack Go's trace profiles charge the interval the event begins to (cmd/trace/pprof.go
 * takes the Stack of the event, not of the transition, which for GoCreate is the new
 * goroutine's start): scheduler latency goes to whoever made the goroutine runnable. */
static uint64_t own_stack(const struct gd_tev *ev)
{
    const struct gd_evspec *s = &gd_specs[ev->type < GD_NSPECS ? ev->type : 0];
    return s->nstk ? ev->args[s->stk[0]] : 0;
}

/* The wait site of (reason, stack): interned stack text, grouped by content, not by stack id:
 * ids are per generation, and the same blocking call gets a new id in every generation, so
 * grouping by id would split one site into one per generation. UINT32_MAX when out of memory:
 * the wait then counts in the goroutine's totals but at no site. */
static uint32_t site_of(struct gd_ana *a, const struct gd_gen *gen, uint32_t reason, uint64_t stk)
{
    uint32_t st = stack_text(a, gen, stk);
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

/* Adds a wait of ns to g's waits with reason. A linear search: a goroutine waits for few
 * distinct reasons. Out of memory leaves the wait out of the by-reason lines only. */
static void add_to(struct gd_reason_acc **v, uint32_t *n, uint32_t *vcap, uint32_t reason,
                   int64_t ns)
{
    for (uint32_t i = 0; i < *n; i++) {
        if ((*v)[i].reason == reason) {
            wadd(&(*v)[i].ns, ns);
            (*v)[i].count++;
            return;
        }
    }
    size_t cap = *vcap;
    if (gd_grow((void **)v, &cap, (size_t)*n + 1, sizeof(**v))) return;
    *vcap = (uint32_t)cap;
    (*v)[(*n)++] = (struct gd_reason_acc){reason, 1, ns};
}
static void add_reason(struct gd_ana_g *g, uint32_t reason, int64_t ns)
{
    add_to(&g->reasons, &g->nreasons, &g->rcap, reason, ns);
}

/* Counts a wait at site ended by waker (contention's "woken by" lines). One counter per
 * (site, waker) pair, so memory grows with the pairs, not with the waits. */
static void add_wake(struct gd_ana *a, uint32_t site, uint32_t waker)
{
    uint64_t key = (uint64_t)site << 32 | waker;
    uint32_t *i = gd_hm_get(&a->wakemap, key);
    if (i) {
        a->wakes[*i].count++;
        return;
    }
    if (gd_grow((void **)&a->wakes, &a->wcap, a->nwakes + 1, sizeof(*a->wakes)) ||
        gd_hm_put(&a->wakemap, key, (uint32_t)a->nwakes))
        return;
    a->wakes[a->nwakes++] = (struct gd_wake){site, waker, 1};
}

/* Closes g's current interval at t. waker ends a wait: an index in a->gs or GD_WAKER_*.
 * The length goes to the total of the state g was in; a wait's also to its reason and to its
 * site (count, total, longest) with its waker, so by-reason and by-site totals are totals of
 * the same waits. NotExist and Undetermined count nothing and report no slice. The slice
 * callback runs before the caller changes g, so it still sees the interval's reason, site and
 * stack. A negative length (a clock going back: only events fed by hand, the decoder's times
 * strictly increase) still counts, keeping the sum, but is not reported as a slice. */
static void close_interval(struct gd_ana *a, struct gd_ana_g *g, int64_t t, uint32_t waker)
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
        g->last_sys = d;
        break;
    case GS_WAITING:
        wadd(&g->ns_wait, d);
        add_reason(g, g->reason, d);
        if (g->site != UINT32_MAX && g->site < a->nsites) {
            struct gd_site *s = &a->sites[g->site];
            s->count++;
            wadd(&s->total, d);
            if (d > s->max) s->max = d;
            add_wake(a, g->site, waker);
        }
        g->last_wait_by = waker;
        break;
    default:
        return;
    }
    g->ended_by = waker;
    if (a->cb && a->cb->slice && d >= 0) a->cb->slice(a, g, g->state, g->since, t);
}

/* Interned text of the generation's string id ("" when unknown), cached for the generation
 * (ids restart in every generation). */
static uint32_t gen_str(struct gd_ana *a, const struct gd_gen *gen, uint64_t id)
{
    uint32_t *c = gd_hm_get(&a->gstr, id), len = 0;
    if (c) return *c;
    const char *s = gd_gen_str(gen, id, &len);
    uint32_t v = gd_intern(&a->str, s ? s : "", s ? len : 0);
    gd_hm_put(&a->gstr, id, v);
    return v;
}

/* site_of, cached per generation by (stack id, reason string id): a busy blocking call then
 * costs one lookup, not a stack text built and hashed per wait. Both ids share the 64-bit key,
 * so ids that do not fit 32 bits (no real trace has so many) go uncached. */
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

/* Ends g's innermost open region at end: its length goes to its name's totals, then to the
 * region callback (r stays valid until the next push). */
static void close_region(struct gd_ana *a, struct gd_ana_g *g, int64_t end)
{
    const struct gd_open_region *r = &g->regs[--g->nregs];
    struct gd_name_acc *acc = acc_of(&a->regions, r->name);
    if (acc) {
        acc->count++;
        wadd(&acc->ns, wsub(end, r->start));
    }
    if (a->cb && a->cb->region) a->cb->region(a, g, r, end);
}

/* Task id named name began at now. It counts as begun at once (a task still open at the end
 * is begun, not ended) and is kept open by id until its end. Ended tasks free their slot for
 * the next ones, so memory grows with the tasks open at once, not with all tasks. A task begun
 * twice (an id reused while open) counts twice as begun, once as open. 0, or -1 when out of
 * memory. */
static int task_begin(struct gd_ana *a, uint64_t id, uint32_t name, int64_t now)
{
    struct gd_name_acc *acc = acc_of(&a->tasks, name);
    if (!acc) return -1;
    acc->count++;
    uint32_t *i = gd_hm_get(&a->taskmap, id), slot;
    if (i) { /* begun twice: the later begin counts */
        slot = *i;
    } else if (a->notfree) {
        slot = a->otfree[--a->notfree];
    } else {
        if (gd_grow((void **)&a->otasks, &a->otcap, a->notasks + 1, sizeof(*a->otasks))) return -1;
        slot = (uint32_t)a->notasks++;
    }
    if (!i && gd_hm_put(&a->taskmap, id, slot)) return -1;
    a->otasks[slot] = (struct gd_open_task){name, now};
    return 0;
}

/* Tasks ended without a begin in the trace are not counted: they began before the trace,
 * and neither their name nor their length is known (leaving them out beats shortening them).
 * 0, or -1 when out of memory. */
static int task_end(struct gd_ana *a, uint64_t id, int64_t now)
{
    uint32_t *i = gd_hm_get(&a->taskmap, id);
    if (!i) return 0;
    uint32_t slot = *i;
    gd_hm_del(&a->taskmap, id);
    if (gd_grow((void **)&a->otfree, &a->otfcap, a->notfree + 1, sizeof(*a->otfree))) return -1;
    a->otfree[a->notfree++] = slot;
    struct gd_name_acc *acc = acc_of(&a->tasks, a->otasks[slot].name);
    if (!acc) return -1;
    acc->ended++;
    wadd(&acc->ns, wsub(now, a->otasks[slot].start));
    return 0;
}

/* A CPU sample: counted in all, for its goroutine (or as one without: the thread ran none,
 * e.g. the Go scheduler between goroutines), and for its leaf function, the innermost frame,
 * where the CPU was (pprof's flat count: the summary's top functions). The leaf is cached per
 * generation by stack id (args[3], the sample's stack). 0, or -1 when out of memory. */
static int cpu_sample(struct gd_ana *a, const struct gd_tev *ev, const struct gd_gen *gen)
{
    a->nsamples++;
    if (ev->g == GD_NONE) {
        a->nsamples_nog++;
    } else {
        struct gd_ana_g *g = gacc(a, ev->g, ev->time);
        if (!g) return -1;
        g->nsamples++;
    }
    uint64_t stk = ev->args[3];
    uint32_t *c = gd_hm_get(&a->gleaf, stk), leaf;
    if (c) {
        leaf = *c;
    } else {
        leaf = frame_name(a, gen, stk, 0);
        if (gd_hm_put(&a->gleaf, stk, leaf)) return -1;
    }
    struct gd_name_acc *acc = leaf ? acc_of(&a->leaves, leaf) : NULL;
    if (leaf && !acc) return -1;
    if (acc) acc->count++;
    if (a->cb && a->cb->sample)
        a->cb->sample(a, ev->g == GD_NONE ? NULL : gacc(a, ev->g, ev->time), ev->time,
                      a->want_stacks ? gen_stack(a, gen, stk) : 0);
    return 0;
}

/* Opens region r on g, innermost (regions of a goroutine nest). 0, or -1 when out of memory. */
static int push_region(struct gd_ana_g *g, struct gd_open_region r)
{
    size_t cap = g->regcap;
    if (gd_grow((void **)&g->regs, &cap, (size_t)g->nregs + 1, sizeof(*g->regs))) return -1;
    g->regcap = (uint32_t)cap;
    g->regs[g->nregs++] = r;
    return 0;
}

/* A "gotrace.ended" log of g (ev): what ended the wait g just ended itself, which moves from
 * the site's "ended itself" count to the log's text (GD_WAKER_TEXT). Only right after such a
 * wait: g Running, its last interval a wait it ended itself. A "gotrace.fd" log names the
 * descriptor of the system call g just made (a read or write that waited on a pipe, FIFO or
 * Unix socket): its time goes to g->fds under that name. */
static void wait_ended_as(struct gd_ana *a, struct gd_ana_g *g, const struct gd_tev *ev,
                          const struct gd_gen *gen)
{
    uint32_t len;
    const char *key = gd_gen_str(gen, ev->args[1], &len);
    if (key && len == 10 && !memcmp(key, "gotrace.fd", 10) && g->state == GS_RUNNING &&
        g->last_sys >= 0) { /* right after the system call it names the descriptor of */
        uint32_t text = gen_str(a, gen, ev->args[2]);
        if (text) add_to(&g->fds, &g->nfds, &g->fcap, text, g->last_sys);
        g->last_sys = -1; /* once */
        return;
    }
    if (!key || len != 13 || memcmp(key, "gotrace.ended", 13) || g->state != GS_RUNNING ||
        g->last_wait_by != GD_WAKER_SELF || g->site >= a->nsites)
        return;
    uint32_t text = gen_str(a, gen, ev->args[2]);
    uint32_t *i = gd_hm_get(&a->wakemap, (uint64_t)g->site << 32 | GD_WAKER_SELF);
    if (!text || text >= GD_WAKER_SELF - GD_WAKER_TEXT || !i || !a->wakes[*i].count) return;
    a->wakes[*i].count--;
    add_wake(a, g->site, GD_WAKER_TEXT | text);
    g->last_wait_by = GD_WAKER_TEXT | text; /* once */
}

/* Events about a goroutine that are not state transitions: labels, regions, logs. A label
 * replaces the previous one, so the thread name is the latest label anywhere in the trace; it
 * is read when names are printed, after the pass, so it names the goroutine's whole life,
 * wake-ups done before it included (docs/decoder.md, "Thread names"). */
static int annotation(struct gd_ana *a, const struct gd_tev *ev, const struct gd_gen *gen)
{
    struct gd_ana_g *g = gacc(a, ev->g, ev->time);
    if (!g) return -1;
    switch (ev->type) {
    case GO_EV_GO_LABEL:
        g->label = gen_str(a, gen, ev->args[0]);
        return 0;
    case GO_EV_USER_REGION_BEGIN:
        return push_region(
            g, (struct gd_open_region){gen_str(a, gen, ev->args[1]), ev->args[0], ev->time});
    case GO_EV_USER_REGION_END:
        /* The ordering engine checked that it ends the innermost open region, or that none is
         * open: then it began before the trace (Go accepts that) and spans from the start. */
        if (!g->nregs && push_region(g, (struct gd_open_region){gen_str(a, gen, ev->args[1]),
                                                                ev->args[0], a->t0}))
            return -1;
        close_region(a, g, ev->time);
        return 0;
    default: /* GO_EV_USER_LOG */
        wait_ended_as(a, g, ev, gen);
        if (a->cb && a->cb->log) a->cb->log(a, g, ev, gen);
        return 0;
    }
}

/* g enters Waiting at ev: the wait's reason and site. Every wait counts once in nblock, so a
 * goroutine's waits by reason add up to it: a GoBlock's reason, "created blocked" for a
 * goroutine created waiting (GoCreateBlocked: Go's coroutines), else a wait already under way
 * when the goroutine first appears. */
static void wait_begins(struct gd_ana *a, struct gd_ana_g *g, const struct gd_tev *ev,
                        const struct gd_gen *gen, const struct gd_trans *t)
{
    static const char before[] = "waiting (since before this generation)";
    static const char created[] = "created blocked";
    g->nblock++;
    /* The thread it waits on: its block's; a status's m, else the M of the batch that holds
     * the status (gotrace writes a waiting thread's status in the thread's own batch; Go
     * writes them M-less: none). */
    int status = ev->type == GO_EV_GO_STATUS || ev->type == GO_EV_GO_STATUS_STACK;
    g->wait_m = ev->type == GO_EV_GO_BLOCK         ? ev->m
                : status && ev->args[1] != GD_NONE ? ev->args[1]
                : status                           ? ev->m
                                                   : GD_NONE;
    if (ev->type == GO_EV_GO_BLOCK) {
        g->reason = gen_str(a, gen, t->reason);
        g->site = gen_site(a, gen, g->reason, t->reason, t->stack);
        return;
    }
    /* These reasons are constants, with no string id in the generation: no gen_site cache. The
     * site's stack is the goroutine's own: the status's (where it waits), or the transition's
     * (GoCreateBlocked: the new goroutine's start). */
    const char *r = ev->type == GO_EV_GO_CREATE_BLOCKED ? created : before;
    g->reason = gd_intern(&a->str, r, (uint32_t)strlen(r));
    uint64_t stk = ev->type == GO_EV_GO_STATUS_STACK ? ev->args[3] : t->stack;
    g->site = site_of(a, gen, g->reason, stk);
}

/* Who ended the wait of goroutine id that ev makes runnable (GD_WAKER_*: analysis.h): the
 * goroutine running on the thread that wrote it, else (no goroutine there, or the waiter's
 * own) GD_WAKER_SELF when ev was written on the thread the waiter waits on and has a stack,
 * which is how libgotrace.so writes a wait that ended itself (with the waiting call's stack:
 * docs/blocking.md), else GD_WAKER_NONE (Go's runtime writes the wake-ups no goroutine makes,
 * timers' and the network poller's, without a stack). 0, or -1 when out of memory (a->gs may
 * move). */
static int waker_of(struct gd_ana *a, const struct gd_tev *ev, uint64_t id, uint32_t *waker)
{
    if (ev->g != GD_NONE && ev->g != id) {
        struct gd_ana_g *w = gacc(a, ev->g, ev->time);
        if (!w) return -1;
        *waker = (uint32_t)(w - a->gs);
        return 0;
    }
    uint32_t *i = gd_hm_get(&a->gmap, id);
    uint64_t m = i ? a->gs[*i].wait_m : GD_NONE;
    *waker = m != GD_NONE && ev->m == m && own_stack(ev) ? GD_WAKER_SELF : GD_WAKER_NONE;
    return 0;
}

/* The per-generation caches go when the generation changes (their keys are its ids). Tasks,
 * CPU samples and annotations are taken apart; anything else counts only through the goroutine
 * transition it makes (transition.h), so the accounting reads an event the way the validator
 * and Go's StateTransition do.
 * - The start routine is the outermost frame of the goroutine's first stack that has one: a
 *   status's, a creation's (args[1], the new goroutine's start; the event's own stack is the
 *   creator's), or that of an event the goroutine wrote itself; the stack of an event another
 *   goroutine wrote (a GoUnblock) is the writer's and names nothing here.
 * - Waits are attributed to wakers: a goroutine taken from Waiting to Runnable by an event of
 *   another goroutine was woken by the goroutine running on the thread that wrote the
 *   GoUnblock (for our traces the thread that unlocked, signalled, posted or exited). That is
 *   who ended the wait: Go's cmd/trace draws its unblock arrows from it too. A waiter that
 *   unblocked itself (its call returned: a timeout, one of several waiters of a mutex, a
 *   sleep; docs/blocking.md) or an event without a goroutine (Go's netpoller) has no waker:
 *   GD_WAKER_SELF for the first (written on the waiter's own thread), GD_WAKER_NONE else.
 * - A wake-up with a waker gets a flow id, completed (flow_end) when the wakee next runs: the
 *   export's arrow from the wake-up to where the woken thread resumed.
 * - A goroutine that ends closes the regions it left open, at its end.
 * - m is the thread of its latest Running or Syscall state; nsys counts the syscalls entered
 *   in the trace (from Running), not one under way at its first status.
 * 0, or -1 when out of memory. */
int gd_ana_event(struct gd_ana *a, const struct gd_tev *ev, const struct gd_gen *gen)
{
    if (gen->num != a->cache_gen) {
        gd_hm_clear(&a->gsite);
        gd_hm_clear(&a->gstr);
        gd_hm_clear(&a->gleaf);
        gd_hm_clear(&a->gstk);
        a->cache_gen = gen->num;
        if (gen->nprocs && read_procs(a, gen)) return -1;
    }
    if (a->t0 == INT64_MIN) a->t0 = ev->time;
    a->tend = ev->time;
    switch (ev->type) {
    case GD_EV_CPU:
        return cpu_sample(a, ev, gen);
    case GO_EV_USER_TASK_BEGIN:
        return task_begin(a, ev->args[0], gen_str(a, gen, ev->args[2]), ev->time);
    case GO_EV_USER_TASK_END:
        return task_end(a, ev->args[0], ev->time);
    case GO_EV_GO_LABEL:
    case GO_EV_USER_REGION_BEGIN:
    case GO_EV_USER_REGION_END:
    case GO_EV_USER_LOG:
        return ev->g == GD_NONE ? 0 : annotation(a, ev, gen);
    }
    struct gd_trans t;
    if (!gd_transition(ev, &t) || t.kind != TR_G) return 0;
    int64_t now = ev->time;
    struct gd_ana_g *g = gacc(a, t.id, now);
    if (!g) return -1;
    if (!g->start) {
        uint64_t stk = t.stack;
        if (ev->type == GO_EV_GO_STATUS_STACK)
            stk = ev->args[3];
        else if (ev->type == GO_EV_GO_CREATE || ev->type == GO_EV_GO_CREATE_BLOCKED)
            stk = ev->args[1];
        else if (ev->g != t.id)
            stk = 0; /* the event's stack is another goroutine's */
        g->start = frame_name(a, gen, stk, 1);
    }
    if (t.old == t.new && g->state == t.new) return 0; /* status fix-up: no change */
    uint32_t gi = (uint32_t)(g - a->gs), waker = GD_WAKER_NONE, stk = 0;
    if (t.new == GS_RUNNABLE && g->state == GS_WAITING) {
        if (waker_of(a, ev, t.id, &waker)) return -1;
        g = &a->gs[gi]; /* gacc may have moved a->gs */
        /* The waker's stack, its unblock's: the runnable interval's since_stack below too
         * (taken here, the texts are interned in the order they always were). */
        if (a->want_stacks && GD_WAKER_IS_G(waker)) stk = gen_stack(a, gen, own_stack(ev));
    }
    g->end_stack = stk;
    close_interval(a, g, now, waker);
    if (t.new == GS_NOTEXIST)
        while (g->nregs)
            close_region(a, g, now);
    if (t.new == GS_WAITING) wait_begins(a, g, ev, gen, &t);
    if (t.new == GS_SYSCALL && t.old == GS_RUNNING) g->nsys++;
    if (t.new == GS_RUNNING || t.new == GS_SYSCALL) g->m = ev->m;
    if (t.new == GS_RUNNABLE && t.old == GS_WAITING &&GD_WAKER_IS_G(waker) && a->cb &&
        a->cb->wake) {
        g->flow = ++a->nflows;
        a->cb->wake(a, &a->gs[waker], g, now, g->flow);
    }
    if (t.new == GS_RUNNING && g->flow) {
        if (a->cb && a->cb->flow_end) a->cb->flow_end(a, g, now, g->flow);
        g->flow = 0;
    }
    g->state = t.new;
    if (a->want_stacks) g->since_stack = stk ? stk : gen_stack(a, gen, own_stack(ev));
    g->since = now;
    g->last = now;
    return 0;
}

/* The end of the trace acts as one more transition of every goroutine still there: its open
 * interval is closed at the last event, a wait as ended by GD_WAKER_END (contention's "still
 * waiting"), and last moves to the end, so running + runnable + syscall + blocked = lifetime
 * holds for the threads that never ended too. Goroutines that ended keep their last. */
void gd_ana_finish(struct gd_ana *a)
{
    for (size_t i = 0; i < a->ngs; i++) {
        struct gd_ana_g *g = &a->gs[i];
        while (g->nregs)
            close_region(a, g, a->tend);
        if (g->state == GS_NOTEXIST || g->state == GS_UNDET) continue;
        g->end_stack = 0;
        close_interval(a, g, a->tend, GD_WAKER_END);
        g->since = a->tend;
        g->last = a->tend;
    }
}

/* Finished whatever rc: after a bad trace or running out of memory, what was read before is
 * closed (gd_ana_finish) and consistent, as for a trace cut there. The commands use hd_run,
 * which does the same with the lock analysis on top; this one serves the tests. */
int gd_ana_run(struct gd_ana *a, struct gd_dec *d, const char *file)
{
    struct gd_tev ev;
    int rc;
    while ((rc = gd_dec_next(d, &ev)) > 0)
        if (gd_ana_event(a, &ev, &d->gen)) {
            fprintf(stderr, "gotrace: %s: out of memory\n", file);
            rc = -2;
            break;
        }
    if (rc == -1) gd_err_print(&d->err, file, stderr);
    gd_ana_finish(a);
    return rc;
}

/* An empty label (a thread named "") is no name. The start routine is left out when the
 * label repeats it ("worker (worker)" says nothing more than "worker"). */
const char *gd_ana_name(const struct gd_ana *a, const struct gd_ana_g *g, int with_id, char *buf)
{
    const char *label = g->label && a->str.len[g->label] ? a->str.s[g->label] : NULL;
    const char *start = g->start ? a->str.s[g->start] : NULL;
    if (label && start && !strcmp(label, start)) start = NULL; /* "worker (worker)" */
    const char *name = label ? label : start;
    if (!name)
        snprintf(buf, GD_NAME_MAX, "G%" PRIu64, g->id);
    else if (label && start && with_id)
        snprintf(buf, GD_NAME_MAX, "%s (G%" PRIu64 " %s)", label, g->id, start);
    else if (label && start)
        snprintf(buf, GD_NAME_MAX, "%s (%s)", label, start);
    else if (with_id)
        snprintf(buf, GD_NAME_MAX, "%s (G%" PRIu64 ")", name, g->id);
    else
        snprintf(buf, GD_NAME_MAX, "%s", name);
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
