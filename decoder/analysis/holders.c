/* holders.c: sync objects, holders and intervals, built in the same pass as the per-goroutine
 * analysis (analysis.c): its callbacks (on_slice, on_wake, on_region) see every interval as it
 * ends, and after_event sees the events that name threads, creators, tasks and the waits'
 * objects. The blame rules are holders.h's; how this file keeps them:
 * - A generation's wait and release records (gotrace's experimental batch) are read before its
 *   first event (read_records). A wait record belongs to the GoBlock of its thread within
 *   MATCH_NS of its time: the tracer writes the record and the event with two clock reads, on
 *   the same thread, in that thread's order, so the first unused record in that window is the
 *   one (record_of), and records before it can never match a later GoBlock.
 * - Releases are named by object address only; an address gets its object from a wait record of
 *   the same or an earlier generation (the tracer records a release only when some thread was
 *   waiting, which it recorded first). Each object's releases are kept in time order (binary
 *   searched by wait_ended and the critical path), sorted in once per generation.
 * - The thread -> goroutine map (mmap) changes only at GoStart, GoCreateSyscall and the
 *   statuses; mlast skips re-hashing when a thread keeps its goroutine, the common case.
 * - Who holds an object at a time T (hd_holder_at, for hangs and the critical path) is the
 *   holder at block time until a release of it at or before T: releases after T are in the
 *   generation already read but not believed. After a release, the thread whose wait on the
 *   object ended next got it: each object keeps its last such acquisition (enough when T is
 *   the end of what was fed, as for `hangs --at`), the intervals the others.
 * - An object's kind (hd_kind_of) is read from its name's start: a condvar, semaphore,
 *   barrier or futex word not known to be a lock's has no holder, so neither its waits' holder
 *   at block time nor releases at its address count (a reused address could bring some); a
 *   wait on one goes to whoever ended it (gd_ana_g.ended_by, given with the slice). A lock wait
 *   that ended itself (GD_WAKER_SELF) after a release inside it is noted by site and last
 *   releaser (freed: contention).
 * - With holders_only (summary, contention, export), nothing is followed before the trace's
 *   first records (in a merged trace, from its start): a wait then can have no holder, and
 *   every generation states its running threads (GoStatus with their M) before its records,
 *   so nothing is lost by starting late.
 * Invariants: a wait's blamed parts sum to its length (wait_ended splits [start, end] at the
 *   releases inside it); memory grows with objects, holders, sites and releases, not with
 *   events (the intervals, kept only for the critical path, are bounded by iv_budget). */
#include "holders.h"

#include "go_wire.h"
#include "grow.h"
#include "reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MATCH_NS 1000000 /* a wait record belongs to a GoBlock of its thread this close */

static struct hd_g *gx_grow(struct hd *s, uint32_t gi)
{
    size_t old = s->gxcap;
    if (gd_grow((void **)&s->gx, &s->gxcap, (size_t)gi + 1, sizeof(*s->gx))) return NULL;
    for (size_t i = old; i < s->gxcap; i++)
        s->gx[i] = (struct hd_g){.obj = HD_NONE, .holder = HD_NONE, .creator = HD_NONE};
    return &s->gx[gi];
}

static inline struct hd_g *gx_of(struct hd *s, uint32_t gi)
{
    return gi < s->gxcap ? &s->gx[gi] : gx_grow(s, gi);
}

static uint32_t g_index(const struct hd *s, uint64_t id)
{
    uint32_t *i = gd_hm_get(&s->a.gmap, id);
    return i ? *i : HD_NONE;
}

uint32_t hd_g_of_m(const struct hd *s, uint64_t m)
{
    uint32_t *i = gd_hm_get(&s->mmap, m);
    return i ? *i : HD_NONE;
}

const char *hd_gname(const struct hd *s, uint32_t g, char *buf)
{
    if (g == HD_NONE || g >= s->a.ngs) return strcpy(buf, "(unknown)");
    return gd_ana_name(&s->a, &s->a.gs[g], 1, buf);
}

/* ---- objects ---- */

static struct hd_obj *obj_named(struct hd *s, const char *name, size_t len, uint32_t *idx)
{
    uint32_t n = gd_intern(&s->a.str, name, (uint32_t)len);
    uint32_t *i = gd_hm_get(&s->objmap, n);
    if (!i) {
        if (gd_grow((void **)&s->objs, &s->ocap, s->nobjs + 1, sizeof(*s->objs)) ||
            gd_hm_put(&s->objmap, n, (uint32_t)s->nobjs))
            return NULL;
        s->objs[s->nobjs] =
            (struct hd_obj){.name = n, .acq_g = HD_NONE, .kind = hd_kind_of(s->a.str.s[n])};
        i = gd_hm_get(&s->objmap, n);
        s->nobjs++;
    }
    *idx = *i;
    return &s->objs[*i];
}

/* The object of a wait with block reason r (len bytes), HD_NONE for a reason that is not a
 * sync wait. holder names a joined thread. */
static uint32_t obj_of_reason(struct hd *s, const char *r, uint32_t len, uint32_t holder)
{
    char buf[1200];
    if (!len || !memmem(r, len, "sync", 4) || len >= sizeof buf - GD_NAME_MAX) return HD_NONE;
    memcpy(buf, r, len);
    buf[len] = 0;
    char *p = buf;
    if (!strncmp(p, "sync: ", 6)) p += 6;
    static const char *const modes[] = {"rwlock read", "rwlock write"};
    for (int k = 0; k < 2; k++) {
        size_t ml = strlen(modes[k]);
        if (!strncmp(p, modes[k], ml) && (p[ml] == ' ' || !p[ml])) {
            memmove(p + 6, p + ml, strlen(p + ml) + 1); /* keep "rwlock" */
            break;
        }
    }
    if (!strcmp(p, "join") && holder != HD_NONE) {
        char nb[GD_NAME_MAX];
        snprintf(p + 4, sizeof buf - (size_t)(p + 4 - buf), " %s", hd_gname(s, holder, nb));
    }
    uint32_t idx;
    return obj_named(s, p, strlen(p), &idx) ? idx : HD_NONE;
}

void hd_releases(const struct hd_obj *o, int64_t after, int64_t upto, size_t *first, size_t *end)
{
    size_t lo = 0, hi = o->nrel;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->rel[mid].t <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t e = lo;
    while (e < o->nrel && o->rel[e].t <= upto)
        e++;
    *first = lo;
    *end = e;
}

/* The thread whose wait on object oi ended last in [after, upto] (it was handed the object),
 * HD_NONE if none is known. The object's last acquisition answers when it lies in the range
 * (the usual case: `hangs` asks at the end of what was fed); else the kept intervals, whose
 * waits on oi ending in the range are looked up thread by thread (binary search by end). */
static uint32_t acquirer(const struct hd *s, uint32_t oi, int64_t after, int64_t upto,
                         int64_t *when)
{
    const struct hd_obj *o = &s->objs[oi];
    if (o->acq_g != HD_NONE && o->acq_t >= after && o->acq_t <= upto) {
        *when = o->acq_t;
        return o->acq_g;
    }
    if (!s->want_intervals || s->iv_over) return HD_NONE;
    uint32_t best = HD_NONE;
    int64_t bt = INT64_MIN;
    for (size_t g = 0; g < s->gxcap; g++) {
        const struct hd_g *x = &s->gx[g];
        size_t lo = 0, hi = x->niv;
        while (lo < hi) { /* the first interval ending after upto */
            size_t mid = (lo + hi) / 2;
            if (x->iv[mid].end <= upto)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t i = lo; i-- > 0 && x->iv[i].end >= after && x->iv[i].end > bt;)
            if (x->iv[i].state == GS_WAITING && x->iv[i].obj == oi) {
                best = (uint32_t)g, bt = x->iv[i].end;
                break;
            }
    }
    *when = bt;
    return best;
}

void hd_holder_at(const struct hd *s, uint32_t obj, uint32_t h0, int64_t since, int64_t at,
                  struct hd_hold *out)
{
    *out = (struct hd_hold){h0 == HD_NONE ? HD_HOLD_UNKNOWN : HD_HOLD_BLOCK, h0, HD_NONE, since};
    if (obj == HD_NONE) return;
    const struct hd_obj *o = &s->objs[obj];
    size_t first, end;
    hd_releases(o, since, at, &first, &end);
    if (end == first) return; /* nobody released it while the waiter waited */
    const struct hd_release *r = &o->rel[end - 1];
    int64_t when = r->t;
    uint32_t a = acquirer(s, obj, r->t, at, &when);
    out->by = hd_g_of_m(s, r->m);
    out->how = a != HD_NONE ? HD_HOLD_HANDED : HD_HOLD_FREE;
    out->g = a;
    out->t = a != HD_NONE ? when : r->t;
}

/* Whether an object's name (its wait reason without "sync: ") starts with the word w. */
static int named_as(const char *name, const char *w)
{
    size_t n = strlen(w);
    return !strncmp(name, w, n) && (name[n] == ' ' || !name[n]);
}

int hd_obj_owned(const struct hd *s, uint32_t obj)
{
    const char *n = obj != HD_NONE ? s->a.str.s[s->objs[obj].name] : "";
    return named_as(n, "mutex") || named_as(n, "rwlock") || named_as(n, "join");
}

struct hd_share *hd_share_of(struct hd_obj *o, uint32_t g)
{
    for (size_t i = 0; i < o->nholders; i++)
        if (o->holders[i].g == g) return &o->holders[i];
    if (gd_grow((void **)&o->holders, &o->hcap, o->nholders + 1, sizeof(*o->holders))) return NULL;
    o->holders[o->nholders] = (struct hd_share){.g = g};
    return &o->holders[o->nholders++];
}

/* ns of the waits with key (waiter << 32 | reason) are blamed on holder g. */
static void gblame(struct hd *s, uint64_t key, uint32_t g, int64_t ns)
{
    uint32_t *first = gd_hm_get(&s->gheldmap, key), head = first ? *first : HD_NONE, i = head;
    while (i != HD_NONE && s->gheld[i].holder != g)
        i = s->gheld[i].next;
    if (i == HD_NONE) { /* a new holder, first in the list */
        if (gd_grow((void **)&s->gheld, &s->gheldcap, s->ngheld + 1, sizeof(*s->gheld)) ||
            gd_hm_put(&s->gheldmap, key, (uint32_t)s->ngheld))
            return;
        i = (uint32_t)s->ngheld++;
        s->gheld[i] = (struct hd_gheld){g, head, 0};
    }
    s->gheld[i].ns += ns;
}

uint32_t hd_parent_of(const struct hd *s, uint32_t g)
{
    uint64_t pid = g < s->a.ngs ? s->a.gs[g].pid : 0;
    uint32_t *v = pid ? gd_hm_get(&s->exitwait, pid) : NULL;
    return v && *v != g ? *v : HD_NONE;
}

int hd_process_wait(const struct hd *s, uint32_t reason)
{
    const char *r = reason ? s->a.str.s[reason] : "";
    if (!strncmp(r, "wait: ", 6)) return 1;
    return !strncmp(r, "signal: ", 8) || !strncmp(r, "pipe: ", 6) || !strncmp(r, "socket: ", 8) ? 2
                                                                                                : 0;
}

uint32_t hd_top_holder(const struct hd *s, uint32_t g, uint32_t reason, int64_t *ns)
{
    uint32_t *first = gd_hm_get(&s->gheldmap, (uint64_t)g << 32 | reason), best = HD_NONE;
    *ns = 0;
    for (uint32_t i = first ? *first : HD_NONE; i != HD_NONE; i = s->gheld[i].next)
        if (s->gheld[i].ns > *ns) {
            *ns = s->gheld[i].ns;
            best = s->gheld[i].holder;
        }
    return best;
}

/* The entry of (site, g) in the table v (n entries, cap) indexed by map, created at zero;
 * NULL when out of memory. */
static struct hd_held *site_entry(struct gd_hmap *map, struct hd_held **v, size_t *n, size_t *cap,
                                  uint32_t site, uint32_t g)
{
    uint64_t key = (uint64_t)site << 32 | g;
    uint32_t *i = gd_hm_get(map, key);
    if (i) return &(*v)[*i];
    if (gd_grow((void **)v, cap, *n + 1, sizeof(**v)) || gd_hm_put(map, key, (uint32_t)*n))
        return NULL;
    (*v)[*n] = (struct hd_held){site, g, 0, 0};
    return &(*v)[(*n)++];
}

/* ns of a wait on object o at gd_ana site index site are blamed on holder g (HD_NONE:
 * unknown): in o's holders (locks --holders), the site's holders (contention's "held by") and
 * the waiter's reason (summary, gblame). counted[0]: this wait was counted in the holders'
 * wait counts already (a wait split among several releases counts once for each holder it
 * reaches, and once in all for the site). An ownerless object's "holder" is whoever ended the
 * wait, and "ended itself" (HD_NONE) and "still waiting" (HD_STILL) count as such too. */
static void blame(struct hd *s, struct hd_obj *o, uint32_t site, uint64_t gkey, uint32_t g,
                  uint32_t stack, int64_t ns, int *counted)
{
    int known = g != HD_NONE || o->kind != HD_LOCK;
    if (known) gblame(s, gkey, g, ns);
    struct hd_share *h = hd_share_of(o, g);
    if (!h) return;
    h->ns += ns;
    if (stack) h->stack = stack;
    h->count += !counted[0];
    struct hd_held *e = known && site < s->a.nsites
                            ? site_entry(&s->siteheld, &s->held, &s->nheld, &s->heldcap, site, g)
                            : NULL;
    if (e) {
        e->ns += ns;
        e->count += !counted[0];
    }
    counted[0] = 1;
}

/* A wait of goroutine gi (g: ended_by and end_stack say who ended it) on object oi over
 * [start, end] ended: its totals, site and blame. A lock wait its waiter ended itself after a
 * release inside it is noted by its last releaser, who let it go on (contention). */
static void wait_ended(struct hd *s, uint32_t oi, const struct hd_g *x, const struct gd_ana_g *g,
                       uint64_t gkey, int64_t start, int64_t end)
{
    uint32_t site = g->site;
    struct hd_obj *o = &s->objs[oi];
    int64_t d = end - start;
    o->waits++;
    o->total += d;
    if (d > o->max) o->max = d;
    uint32_t stk = site < s->a.nsites ? s->a.sites[site].stack : 0;
    uint64_t sk = (uint64_t)oi << 32 | stk;
    uint32_t *si = gd_hm_get(&s->sitemap, sk), k = si ? *si : (uint32_t)o->nsites;
    if (!si) {
        if (gd_grow((void **)&o->sites, &o->scap, o->nsites + 1, sizeof(*o->sites)) ||
            gd_hm_put(&s->sitemap, sk, k))
            return;
        o->sites[o->nsites++] = (struct hd_site){stk, 0, 0};
    }
    o->sites[k].count++;
    o->sites[k].total += d;
    if (o->kind != HD_LOCK) { /* nothing holds it: whoever ended the wait */
        int counted = 0;
        uint32_t by = GD_WAKER_IS_G(g->ended_by)    ? g->ended_by
                      : g->ended_by == GD_WAKER_END ? HD_STILL
                                                    : HD_NONE;
        blame(s, o, site, gkey, by, GD_WAKER_IS_G(by) ? g->end_stack : 0, d, &counted);
        return;
    }
    size_t first, last;
    hd_releases(o, start, end, &first, &last);
    uint32_t freer = first < last ? hd_g_of_m(s, o->rel[last - 1].m) : HD_NONE;
    struct hd_held *f =
        freer != HD_NONE && g->ended_by == GD_WAKER_SELF && site < s->a.nsites
            ? site_entry(&s->freedmap, &s->freed, &s->nfreed, &s->freedcap, site, freer)
            : NULL;
    if (f) {
        f->count++;
        f->ns += d;
    }
    int64_t prev = start;
    uint32_t prev_g = HD_NONE;
    int counted = 0;
    for (size_t i = first; i < last; i++) {
        uint32_t rg = hd_g_of_m(s, o->rel[i].m);
        if (i == first || rg != prev_g) /* one release after another by one holder: one wait */
            counted = 0;
        int64_t part = o->rel[i].t - prev + (i + 1 == last ? end - o->rel[i].t : 0);
        blame(s, o, site, gkey, rg, o->rel[i].stack, part, &counted);
        prev = o->rel[i].t;
        prev_g = rg;
    }
    if (first == last) blame(s, o, site, gkey, x->holder, 0, d, &counted);
}

/* ---- records ---- */

static int uv(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
    int n = gd_uvarint(p + *pos, len - *pos, v);
    if (n <= 0) return -1;
    *pos += (size_t)n;
    return 0;
}

/* The next record of a generation's experimental sync batch (go_wire.h, GT_SYNC_*): its type
 * and values (time, thread, then the type's own). 1 read; 0 at the end, or at a record of a
 * type this reader does not know (a newer writer: its length is unknown, so nothing after it
 * can be read) or cut short. */
static int next_record(const uint8_t *p, size_t len, size_t *pos, uint8_t *type, uint64_t v[9])
{
    static const int nvs[] = {[GT_SYNC_WAIT] = 5,
                              [GT_SYNC_RELEASE] = 4,
                              [GT_SYNC_ORDER] = 9,
                              [GT_SYNC_HOLD] = 9,
                              [GT_SYNC_EXIT_HELD] = 5};
    if (*pos >= len) return 0;
    *type = p[(*pos)++];
    int nv = *type < sizeof nvs / sizeof *nvs ? nvs[*type] : 0;
    for (int k = 0; k < nv; k++)
        if (uv(p, len, pos, &v[k])) return 0;
    return nv > 0;
}

/* Keeps wait record v (time t) for the GoBlock of its thread that it describes (record_of).
 * A thread's records are in its own order, so each thread's list is appended at its tail
 * (rectail), never walked. The object's address is learnt here: the generation's releases
 * name their object by address only. */
static int keep_wait(struct hd *s, const struct gd_gen *gen, const uint64_t v[9], int64_t t)
{
    if (gd_grow((void **)&s->recs, &s->reccap, s->nrecs + 1, sizeof(*s->recs))) return -1;
    uint32_t ri = (uint32_t)s->nrecs++;
    s->recs[ri] = (struct hd_rec){t, v[1], v[3], v[2], v[4], HD_NONE, 0};
    uint32_t *tail = gd_hm_get(&s->rectail, v[1]);
    if (tail) {
        s->recs[*tail].next = ri;
        *tail = ri;
    } else if (gd_hm_put(&s->recmap, v[1], ri) || gd_hm_put(&s->rectail, v[1], ri)) {
        return -1;
    }
    uint32_t rl = 0;
    const char *r = gd_gen_str(gen, v[3], &rl);
    uint32_t oi = r ? obj_of_reason(s, r, rl, HD_NONE) : HD_NONE;
    return oi != HD_NONE && gd_hm_put(&s->addrmap, v[2], oi) ? -1 : 0;
}

/* Adds release record v (time t) to its object, if a wait record named the object's address.
 * Releases are appended as they come (each thread's in its order, threads one after another)
 * and put in time order once the generation's are all in (sort_releases): sorting at each
 * release that came out of order made a long trace quadratic. */
static int keep_release(struct hd *s, const struct gd_gen *gen, const uint64_t v[9], int64_t t)
{
    uint32_t *oi = gd_hm_get(&s->addrmap, v[2]);
    if (!oi) return 0;
    struct hd_obj *o = &s->objs[*oi];
    if (o->nrel == o->nsorted) { /* its first release of the generation */
        if (gd_grow((void **)&s->touched, &s->touchedcap, s->ntouched + 1, sizeof(*s->touched)))
            return -1;
        s->touched[s->ntouched++] = *oi;
    }
    if (gd_grow((void **)&o->rel, &o->relcap, o->nrel + 1, sizeof(*o->rel))) return -1;
    const char *txt = gd_stack_text(gen, v[3], &s->a.text);
    uint32_t stk = *txt ? gd_intern(&s->a.str, txt, (uint32_t)s->a.text.len) : 0;
    o->rel[o->nrel++] = (struct hd_release){t, v[1], stk};
    return 0;
}

/* The object named by reason string id (a lock tracking record's), HD_NONE for none. */
static uint32_t obj_of_id(struct hd *s, const struct gd_gen *gen, uint64_t id)
{
    uint32_t rl = 0;
    const char *r = id ? gd_gen_str(gen, id, &rl) : NULL;
    return r ? obj_of_reason(s, r, rl, HD_NONE) : HD_NONE;
}

/* The interned text of stack id (0: none). */
static uint32_t stack_of_id(struct hd *s, const struct gd_gen *gen, uint64_t id)
{
    const char *txt = id ? gd_stack_text(gen, id, &s->a.text) : "";
    return *txt ? gd_intern(&s->a.str, txt, (uint32_t)s->a.text.len) : 0;
}

/* Keeps a record of lock tracking (GT_SYNC_ORDER, _HOLD, _EXIT_HELD: go_wire.h) in s->lg. */
static int keep_lock_rec(struct hd *s, const struct gd_gen *gen, uint8_t type, const uint64_t v[9])
{
    int64_t t = gd_ticks_to_ns(gen, v[0]);
    uint32_t obj = obj_of_id(s, gen, v[3]);
    if (obj == HD_NONE) return 0; /* a lock without a name: the budget was spent */
    if (type == GT_SYNC_ORDER) {
        uint32_t from = obj_of_id(s, gen, v[6]);
        if (from == HD_NONE) return 0;
        struct lg_edge e = {
            from,           obj, stack_of_id(s, gen, v[4]), stack_of_id(s, gen, v[7]), v[1],
            (unsigned)v[8], t};
        return lg_add_edge(&s->lg, &e);
    }
    if (type == GT_SYNC_HOLD) {
        struct lg_hold h = {obj,
                            v[4],
                            v[5],
                            (int64_t)(gen->ns_per_tick * (double)v[6]),
                            (int64_t)(gen->ns_per_tick * (double)v[7]),
                            stack_of_id(s, gen, v[8])};
        return lg_add_hold(&s->lg, &h);
    }
    struct lg_exit x = {obj, v[1], stack_of_id(s, gen, v[4]), t};
    return lg_add_exit(&s->lg, &x);
}

/* Merges the time-ordered runs r[0, mid) and r[mid, n) into time order, stably (on equal
 * times the first run's come first), through tmp (n elements). */
static void merge_runs(struct hd_release *r, size_t mid, size_t n, struct hd_release *tmp)
{
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n)
        tmp[k++] = r[j].t < r[i].t ? r[j++] : r[i++];
    while (i < mid)
        tmp[k++] = r[i++];
    memcpy(r, tmp, k * sizeof(*r)); /* the rest of the second run is in place */
}

/* Sorts r[0, n) by time, stably (bottom-up merge sort through tmp): releases of equal time
 * keep the order they were read in, as the sort of every release at once would. */
static void sort_stable(struct hd_release *r, size_t n, struct hd_release *tmp)
{
    for (size_t w = 1; w < n; w *= 2)
        for (size_t lo = 0; lo + w < n; lo += 2 * w)
            if (r[lo + w].t < r[lo + w - 1].t)
                merge_runs(r + lo, w, (lo + 2 * w < n ? 2 * w : n - lo), tmp);
}

/* Puts object o's releases of this generation (from o->nsorted on) in time order among the
 * earlier ones: the new ones are sorted, then merged with the part of the earlier ones they
 * overlap (usually none: a generation's releases follow the last one's), so a trace costs
 * O(n log n) in all, not a sort per release. The result is the stable sort of every release
 * by time in reading order, which blame (wait_ended) walks. */
static int sort_releases(struct hd_obj *o)
{
    size_t old = o->nsorted, n = o->nrel;
    struct hd_release *tmp = malloc((n - old) * 2 * sizeof(*tmp));
    if (!tmp) return -1;
    sort_stable(o->rel + old, n - old, tmp);
    if (old && o->rel[old].t < o->rel[old - 1].t) {
        size_t lo = old; /* the first earlier release later than the first new one */
        while (lo > 0 && o->rel[lo - 1].t > o->rel[old].t)
            lo--;
        if (old - lo > n - old) { /* the overlap is larger than the scratch */
            struct hd_release *t2 = realloc(tmp, (n - lo) * sizeof(*tmp));
            if (!t2) return free(tmp), -1;
            tmp = t2;
        }
        merge_runs(o->rel + lo, old - lo, n - lo, tmp);
    }
    free(tmp);
    o->nsorted = n;
    return 0;
}

/* Drops the releases no wait can look at any more, so that memory follows the objects and
 * the waits in progress, not the events: a wait is blamed on the releases inside it (wait_ended),
 * and every wait that has not begun yet begins after the events fed so far, which follow every
 * release of the earlier generations. So an object keeps the releases from the start of its
 * earliest wait in progress on (cmd_hangs.c reads those too), and none when no thread waits on
 * it. Not with want_intervals: the critical path walks back through every earlier wait. */
static void prune_releases(struct hd *s)
{
    if (s->want_intervals) return;
    for (size_t i = 0; i < s->nobjs; i++)
        s->objs[i].open_min = INT64_MAX;
    for (size_t i = 0; i < s->gxcap && i < s->a.ngs; i++) {
        const struct hd_g *x = &s->gx[i];
        if (x->waiting && x->obj != HD_NONE && x->since < s->objs[x->obj].open_min)
            s->objs[x->obj].open_min = x->since;
    }
    for (size_t i = 0; i < s->nobjs; i++) {
        struct hd_obj *o = &s->objs[i];
        size_t keep, end;
        hd_releases(o, o->open_min - 1, INT64_MAX, &keep, &end); /* the first at open_min on */
        if (o->open_min == INT64_MAX) keep = o->nrel;
        memmove(o->rel, o->rel + keep, (o->nrel - keep) * sizeof(*o->rel));
        o->nrel -= keep;
        o->nsorted = o->nrel;
    }
}

/* Reads generation gen's records, in two passes: first the wait records (kept for their
 * GoBlocks; they name the objects' addresses), then the releases (added to the objects those
 * addresses name: a release may come before the wait record naming its object). */
static int read_records(struct hd *s, const struct gd_gen *gen)
{
    prune_releases(s);
    s->nrecs = s->ntouched = 0;
    s->any_records |= gen->nsync > 0;
    gd_hm_clear(&s->recmap);
    gd_hm_clear(&s->rectail);
    gd_hm_clear(&s->rcache);
    s->rec_gen = gen->num;
    uint8_t type;
    uint64_t v[9] = {0};
    for (size_t pos = 0; next_record(gen->sync, gen->nsync, &pos, &type, v);)
        if (type == GT_SYNC_WAIT && keep_wait(s, gen, v, gd_ticks_to_ns(gen, v[0]))) return -1;
    for (size_t pos = 0; next_record(gen->sync, gen->nsync, &pos, &type, v);)
        if (type == GT_SYNC_RELEASE && keep_release(s, gen, v, gd_ticks_to_ns(gen, v[0])))
            return -1;
    for (size_t pos = 0; next_record(gen->sync, gen->nsync, &pos, &type, v);)
        if (type >= GT_SYNC_ORDER && keep_lock_rec(s, gen, type, v)) return -1;
    for (size_t i = 0; i < s->ntouched; i++)
        if (sort_releases(&s->objs[s->touched[i]])) return -1;
    return 0;
}

/* The wait record of thread m's GoBlock at t, or NULL. */
static struct hd_rec *record_of(struct hd *s, uint64_t m, int64_t t)
{
    uint32_t *head = gd_hm_get(&s->recmap, m);
    for (uint32_t j = head ? *head : HD_NONE; j != HD_NONE; j = s->recs[j].next) {
        struct hd_rec *r = &s->recs[j];
        if (r->used) continue;
        if (r->t > t + MATCH_NS) return NULL;
        if (r->t >= t - MATCH_NS) {
            r->used = 1;
            *head = r->next; /* earlier ones will not match any more */
            return r;
        }
    }
    return NULL;
}

/* ---- callbacks ---- */

/* Whether waits are followed yet: with holders_only, from the trace's first records on, or
 * from the start in a merged trace (a process's waits on shared condvars and semaphores,
 * which have no records, are ended by another process's thread: gotrace merge). */
static int following(const struct hd *s)
{
    return !s->holders_only || s->any_records || s->a.multi;
}

static void on_slice(struct gd_ana *a, const struct gd_ana_g *g, uint8_t state, int64_t start,
                     int64_t end)
{
    struct hd *s = a->user;
    uint32_t gi = (uint32_t)(g - a->gs);
    int pw = state == GS_WAITING && GD_WAKER_IS_G(g->ended_by) ? hd_process_wait(s, g->reason) : 0;
    if (pw) gblame(s, (uint64_t)gi << 32 | g->reason, g->ended_by, end - start);
    uint64_t cpid = pw == 1 ? a->gs[g->ended_by].pid : 0;
    if (cpid && !gd_hm_get(&s->exitwait, cpid)) gd_hm_put(&s->exitwait, cpid, gi);
    if (!following(s)) return; /* nothing to blame yet */
    struct hd_g *x = gx_of(s, gi);
    if (!x) return;
    if (state == GS_WAITING || state == GS_SYSCALL) {
        x->lw_state = state;
        x->lw_on = 0;
        x->lw_reason = state == GS_WAITING ? g->reason : 0;
        x->lw_begin = start;
        x->lw_end = end;
    }
    uint32_t obj = HD_NONE, holder = HD_NONE;
    if (state == GS_WAITING && x->waiting && x->since == start) {
        obj = x->obj;
        holder = x->holder;
        if (obj != HD_NONE) wait_ended(s, obj, x, g, (uint64_t)gi << 32 | g->reason, start, end);
        if (obj != HD_NONE && !s->finishing) { /* it got the object (hd_holder_at) */
            s->objs[obj].acq_g = gi;
            s->objs[obj].acq_t = end;
        }
        x->waiting = s->finishing; /* a wait open at the end stays described (hangs) */
    }
    if (!s->want_intervals || s->iv_over) return;
    if (s->iv_budget && s->niv >= s->iv_budget) { /* too many: the critical path is off */
        s->iv_over = 1;
        for (size_t i = 0; i < s->gxcap; i++) {
            free(s->gx[i].iv);
            s->gx[i].iv = NULL;
            s->gx[i].niv = s->gx[i].ivcap = 0;
        }
        return;
    }
    if (x->niv == x->ivcap && gd_grow((void **)&x->iv, &x->ivcap, x->niv + 1, sizeof(*x->iv)))
        return;
    x->iv[x->niv++] = (struct hd_iv){
        start,  end,  HD_NONE, obj, g->since_stack, state == GS_WAITING ? g->reason : 0,
        holder, state};
    s->niv++;
}

static void on_wake(struct gd_ana *a, const struct gd_ana_g *waker, const struct gd_ana_g *wakee,
                    int64_t t, uint64_t flow)
{
    (void)flow;
    struct hd *s = a->user;
    if (!s->want_intervals) return;
    struct hd_g *x = gx_of(s, (uint32_t)(wakee - a->gs));
    if (x && x->niv && x->iv[x->niv - 1].end == t)
        x->iv[x->niv - 1].waker = (uint32_t)(waker - a->gs);
}

static void on_region(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_open_region *r,
                      int64_t end)
{
    struct hd *s = a->user;
    if (!s->region_name || strcmp(a->str.s[r->name], s->region_name)) return;
    if (s->region.g == HD_NONE || end - r->start > s->region.end - s->region.start)
        s->region = (struct hd_region){(uint32_t)(g - a->gs), r->start, end};
}

/* The chained analysis' callback, with its user (hd_chain). */
#define NEXT(a, name, ...)                                                                         \
    do {                                                                                           \
        struct hd *s_ = (a)->user;                                                                 \
        if (s_->next && s_->next->name) {                                                          \
            (a)->user = s_->next_user;                                                             \
            s_->next->name((a), __VA_ARGS__);                                                      \
            (a)->user = s_;                                                                        \
        }                                                                                          \
    } while (0)

static void chain_slice(struct gd_ana *a, const struct gd_ana_g *g, uint8_t state, int64_t start,
                        int64_t end)
{
    on_slice(a, g, state, start, end);
    NEXT(a, slice, g, state, start, end);
}
static void chain_wake(struct gd_ana *a, const struct gd_ana_g *waker, const struct gd_ana_g *wakee,
                       int64_t t, uint64_t flow)
{
    on_wake(a, waker, wakee, t, flow);
    NEXT(a, wake, waker, wakee, t, flow);
}
static void chain_flow_end(struct gd_ana *a, const struct gd_ana_g *wakee, int64_t t, uint64_t flow)
{
    NEXT(a, flow_end, wakee, t, flow);
}
static void chain_region(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_open_region *r,
                         int64_t end)
{
    on_region(a, g, r, end);
    NEXT(a, region, g, r, end);
}
static void chain_log(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_tev *ev,
                      const struct gd_gen *gen)
{
    NEXT(a, log, g, ev, gen);
}
static void chain_sample(struct gd_ana *a, const struct gd_ana_g *g, int64_t t, uint32_t stack)
{
    NEXT(a, sample, g, t, stack);
}

static const struct gd_ana_cb callbacks = {.slice = on_slice, .wake = on_wake, .region = on_region};
static const struct gd_ana_cb chained = {.slice = chain_slice,
                                         .wake = chain_wake,
                                         .flow_end = chain_flow_end,
                                         .region = chain_region,
                                         .log = chain_log,
                                         .sample = chain_sample};

void hd_chain(struct hd *s)
{
    s->next = s->a.cb;
    s->next_user = s->a.user;
    s->a.cb = &chained;
    s->a.user = s;
    s->a.want_stacks = 1;
}

/* A UserLog ev of goroutine gi in a merged trace: a gotrace.fork or gotrace.spawn log ("pid
 * 1234": docs/blocking.md "Across processes") is kept until the child's first thread shows. */
static int fork_log(struct hd *s, uint32_t gi, const struct gd_tev *ev, const struct gd_gen *gen)
{
    uint32_t kl = 0, vl = 0;
    const char *key = gd_str(gen, ev->args[1], &kl), *val = gd_str(gen, ev->args[2], &vl);
    if (!key || !val || vl < 5 || memcmp(val, "pid ", 4) ||
        !((kl == 12 && !memcmp(key, "gotrace.fork", 12)) ||
          (kl == 13 && !memcmp(key, "gotrace.spawn", 13))))
        return 0;
    uint64_t pid = 0;
    for (uint32_t k = 4; k < vl && val[k] >= '0' && val[k] <= '9' && pid < 1ull << 40; k++)
        pid = pid * 10 + (uint64_t)(val[k] - '0');
    if (gd_grow((void **)&s->forks, &s->forkcap, s->nforks + 1, sizeof(*s->forks))) return -1;
    s->forks[s->nforks].g = gi;
    s->forks[s->nforks].t = ev->time;
    return gd_hm_put(&s->forkmap, pid, (uint32_t)s->nforks++) ? -1 : 0;
}

/* A UserLog ev: a gotrace.deadlock log of the live check's waits across processes (its text
 * ends in "[reader TID; waiting ...]") is kept (hangs.c). 0, or -1 when out of memory. */
static int deadlock_log(struct hd *s, const struct gd_tev *ev, const struct gd_gen *gen)
{
    uint32_t kl = 0, vl = 0;
    const char *key = gd_str(gen, ev->args[1], &kl), *val = gd_str(gen, ev->args[2], &vl);
    if (!key || !val || kl != 16 || memcmp(key, "gotrace.deadlock", 16) || !vl ||
        val[vl - 1] != ']' || !memmem(val, vl, " [reader ", 9))
        return 0;
    if (gd_grow((void **)&s->dlogs, &s->dlogcap, s->ndlogs + 1, sizeof(*s->dlogs))) return -1;
    char *text = malloc(vl + 1);
    if (!text) return -1;
    memcpy(text, val, vl);
    text[vl] = 0;
    s->dlogs[s->ndlogs++] = (struct hd_dlog){ev->time, text};
    return 0;
}

/* Goroutine ni (x) was created by no goroutine: the first thread of a process another one
 * forked (a merged trace's gotrace.fork log of its pid, fork_log) has the forker, at the
 * fork, as its creator: critical-path walks on from a child's start into its parent. */
static void forked(struct hd *s, uint32_t ni, struct hd_g *x)
{
    uint64_t pid = ni < s->a.ngs ? s->a.gs[ni].pid : 0;
    uint32_t *v = pid ? gd_hm_get(&s->forkmap, pid) : NULL;
    if (!v) return;
    x->creator = s->forks[*v].g;
    x->created = s->forks[*v].t;
    gd_hm_del(&s->forkmap, pid);
}

/* After the analysis took ev: threads, creations, tasks, the object of a GoBlock, and (in a
 * merged trace) the forks. */
static int after_event(struct hd *s, const struct gd_tev *ev, const struct gd_gen *gen)
{
    /* Before the first records, holders only: every generation states the threads that run
     * (GoStatus with their M) before its records, which then find their holders. */
    if (!following(s)) return 0;
    /* The goroutine each thread runs changes only at these (hashing every event is slow). */
    uint64_t m = GD_NONE, on = 0;
    if (ev->type == GO_EV_GO_START || ev->type == GO_EV_GO_CREATE_SYSCALL)
        m = ev->m, on = ev->args[0];
    else if ((ev->type == GO_EV_GO_STATUS || ev->type == GO_EV_GO_STATUS_STACK))
        m = ev->args[1], on = ev->args[0];
    if (m != GD_NONE) {
        unsigned k = (unsigned)(m & 255);
        if (s->mlast[k].m == m && s->mlast[k].gid == on) return 0; /* no change */
        uint32_t gi = g_index(s, on);
        if (gi == HD_NONE) return 0;
        s->mlast[k].m = m;
        s->mlast[k].gid = on;
        return gd_hm_put(&s->mmap, m, gi) ? -1 : 0;
    }
    if (ev->type != GO_EV_GO_CREATE && ev->type != GO_EV_GO_CREATE_BLOCKED &&
        ev->type != GO_EV_USER_TASK_BEGIN && ev->type != GO_EV_USER_TASK_END &&
        ev->type != GO_EV_GO_BLOCK && ev->type != GO_EV_USER_LOG)
        return 0;
    uint32_t gi = ev->g != GD_NONE ? g_index(s, ev->g) : HD_NONE;
    struct hd_g *gx = gi != HD_NONE && ev->type != GO_EV_GO_BLOCK ? gx_of(s, gi) : NULL;
    if (gx && gx->lw_end && ev->time >= gx->lw_end) gx->lw_on = 1; /* it went on after its wait */
    if (ev->type == GO_EV_USER_LOG) {
        if (deadlock_log(s, ev, gen)) return -1;
        return s->a.multi && gi != HD_NONE ? fork_log(s, gi, ev, gen) : 0;
    }
    if (ev->type == GO_EV_GO_CREATE || ev->type == GO_EV_GO_CREATE_BLOCKED) {
        uint32_t ni = g_index(s, ev->args[0]);
        struct hd_g *x = gx_of(s, ni);
        if (x && gi != HD_NONE) {
            x->creator = gi;
            x->created = ev->time;
        } else if (x && s->nforks) {
            forked(s, ni, x);
        }
    } else if (ev->type == GO_EV_USER_TASK_BEGIN && s->task && ev->args[0] == s->task) {
        s->task_begin = ev->time;
    } else if (ev->type == GO_EV_USER_TASK_END && s->task && ev->args[0] == s->task) {
        s->task_end = ev->time;
        s->task_g = gi;
    } else if (ev->type == GO_EV_GO_BLOCK && gi != HD_NONE) {
        struct hd_g *x = gx_of(s, gi);
        if (!x) return -1;
        struct hd_rec *r = s->nrecs && ev->m != GD_NONE ? record_of(s, ev->m, ev->time) : NULL;
        x->waiting = 1;
        x->since = ev->time;
        x->holder_m = r && !(r->holder & GT_SYNC_HOLDER_G) ? r->holder : 0;
        x->holder = x->holder_m      ? hd_g_of_m(s, x->holder_m)
                    : r && r->holder ? g_index(s, r->holder & ~GT_SYNC_HOLDER_G)
                                     : HD_NONE;
        uint32_t rl = 0, *cached = gd_hm_get(&s->rcache, ev->args[0]);
        const char *reason = cached ? NULL : gd_gen_str(gen, ev->args[0], &rl);
        x->obj = cached ? *cached - 1 : reason ? obj_of_reason(s, reason, rl, x->holder) : HD_NONE;
        if (!cached && (rl != 10 || memcmp(reason, "sync: join", 10)) && /* a join: its holder */
            gd_hm_put(&s->rcache, ev->args[0], x->obj + 1))
            return -1;
        if (r && x->obj != HD_NONE) gd_hm_put(&s->addrmap, r->addr, x->obj);
        if (x->obj != HD_NONE && s->objs[x->obj].kind != HD_LOCK) { /* nothing holds it */
            x->holder = HD_NONE;
            x->holder_m = 0;
        }
    }
    return 0;
}

void hd_init(struct hd *s, int want_intervals)
{
    memset(s, 0, sizeof(*s));
    for (size_t i = 0; i < 256; i++)
        s->mlast[i].m = GD_NONE;
    gd_ana_init(&s->a, &callbacks, s);
    s->a.want_stacks = 1;
    s->want_intervals = want_intervals;
    s->region.g = HD_NONE;
    s->task_g = HD_NONE;
    s->task_begin = s->task_end = INT64_MIN;
    s->rec_gen = UINT64_MAX;
}

void hd_free(struct hd *s)
{
    for (size_t i = 0; i < s->nobjs; i++) {
        free(s->objs[i].sites);
        free(s->objs[i].holders);
        free(s->objs[i].rel);
    }
    for (size_t i = 0; i < s->gxcap; i++)
        free(s->gx[i].iv);
    free(s->objs);
    free(s->gx);
    free(s->recs);
    gd_hm_free(&s->objmap);
    gd_hm_free(&s->forkmap);
    gd_hm_free(&s->exitwait);
    for (size_t i = 0; i < s->ndlogs; i++)
        free(s->dlogs[i].text);
    free(s->dlogs);
    free(s->forks);
    gd_hm_free(&s->addrmap);
    gd_hm_free(&s->mmap);
    gd_hm_free(&s->recmap);
    gd_hm_free(&s->rectail);
    free(s->touched);
    gd_hm_free(&s->sitemap);
    gd_hm_free(&s->siteheld);
    gd_hm_free(&s->gheldmap);
    free(s->gheld);
    free(s->held);
    gd_hm_free(&s->freedmap);
    free(s->freed);
    gd_hm_free(&s->rcache);
    lg_free(&s->lg);
    gd_ana_free(&s->a);
}

int hd_run(struct hd *s, struct gd_dec *d, const char *file, int64_t stop)
{
    struct gd_tev ev;
    int rc, first = 1;
    while ((rc = gd_dec_next(d, &ev)) > 0) {
        if (first) s->t0 = ev.time, first = 0;
        if (stop != INT64_MAX && ev.time - s->t0 > stop) break;
        if ((d->gen.num != s->rec_gen && read_records(s, &d->gen)) ||
            gd_ana_event(&s->a, &ev, &d->gen) || after_event(s, &ev, &d->gen)) {
            fprintf(stderr, "gotrace: %s: out of memory\n", file);
            return -2;
        }
    }
    if (rc == -1) {
        gd_err_print(&d->err, file, stderr);
        return -1;
    }
    for (size_t i = 0; i < s->a.ngs; i++) {
        struct hd_g *x = gx_of(s, (uint32_t)i);
        if (!x) return -2;
        x->state_since = s->a.gs[i].since;
    }
    s->finishing = 1;
    if (rc == 0) gd_ana_finish(&s->a);
    s->nevents = d->nevents;
    s->ngens = d->ngens;
    return 0;
}

int hd_parse_time(const char *text, int64_t *ns)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || v < 0) return -1;
    double mul = 1;
    if (!strcmp(end, "s"))
        mul = 1e9;
    else if (!strcmp(end, "ms"))
        mul = 1e6;
    else if (!strcmp(end, "us"))
        mul = 1e3;
    else if (*end && strcmp(end, "ns"))
        return -1;
    if (v * mul > 9e18) return -1;
    *ns = (int64_t)(v * mul);
    return 0;
}

const char *hd_stack_func(const char *stack, char *buf, size_t n)
{
    static const char *const skip[] = {"pthread_", "sem_", "__pthread", NULL};
    buf[0] = 0;
    for (const char *p = stack; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *sp = memchr(p, ' ', len);
        size_t fl = sp ? (size_t)(sp - p) : len;
        int lib = 0;
        for (int k = 0; skip[k]; k++)
            lib |= !strncmp(p, skip[k], strlen(skip[k]));
        if (!lib) {
            snprintf(buf, n, "%.*s", (int)fl, p);
            return buf;
        }
        p = e ? e + 1 : NULL;
    }
    return buf;
}

uint8_t hd_kind_of(const char *name)
{
    static const struct {
        const char *prefix;
        uint8_t kind;
    } kinds[] = {{"condvar", HD_CONDVAR},
                 {"semaphore", HD_SEMAPHORE},
                 {"barrier", HD_BARRIER},
                 {"omp barrier", HD_BARRIER},
                 {"futex", HD_FUTEX}};
    if (!strncmp(name, "sync: ", 6)) name += 6;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (named_as(name, kinds[k].prefix)) return kinds[k].kind;
    return HD_LOCK;
}

/* Each kind's words (hd_kind_by, hd_kind_at), by kind. */
static const char *const words[][2] = {[HD_LOCK] = {"held by", "released"},
                                       [HD_CONDVAR] = {"signalled by", "signalled"},
                                       [HD_SEMAPHORE] = {"posted by", "posted"},
                                       [HD_BARRIER] = {"arrived last", "arrived"},
                                       [HD_FUTEX] = {"woken by", "woke it"}};

const char *hd_kind_by(uint8_t kind)
{
    return words[kind <= HD_FUTEX ? kind : HD_LOCK][0];
}

const char *hd_kind_at(uint8_t kind)
{
    return words[kind <= HD_FUTEX ? kind : HD_LOCK][1];
}

const char *hd_who(const struct hd *s, uint8_t kind, uint32_t g, char *buf)
{
    if (g < s->a.ngs || kind == HD_LOCK) return hd_gname(s, g, buf);
    return strcpy(buf, g == HD_STILL ? "(still waiting at trace end)"
                                     : "(ended itself: no waker recorded)");
}

const char *hd_phrase(const struct hd *s, uint8_t kind, uint32_t g, int with_id, char *buf,
                      size_t n)
{
    char nb[GD_NAME_MAX];
    const char *who =
        g < s->a.ngs ? gd_ana_name(&s->a, &s->a.gs[g], with_id, nb) : hd_who(s, kind, g, nb);
    if (g >= s->a.ngs && kind != HD_LOCK)
        snprintf(buf, n, "%s", who); /* ended itself, still waiting: no one to name */
    else if (kind == HD_BARRIER)
        snprintf(buf, n, "%s arrived last", who);
    else
        snprintf(buf, n, "%s %s", hd_kind_by(kind), who);
    return buf;
}
