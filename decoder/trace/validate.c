/* validate.c: the validator's rules (see validate.h). Messages follow Go's.
 * Ported: state transitions (each move starts where the last one of its resource ended; nothing
 * Undetermined after the first Sync; executing goroutines and procs bound to one thread each),
 * ranges (no second begin, no end without begin, no goroutine dying inside one), labels and
 * task ids. Go gathers every error of an event and joins them; this stops at the first, which
 * gives the same verdict.
 * Left out because they cannot fail on what reaches them:
 * - timestamp order: decode.c already makes times strictly increasing, as Go's reader does;
 * - checkStack: in Go 1.23 it inspects no frame (its counter never leaves 0), so only its table
 *   lookups could fail, and decode.c refuses an undefined stack id first (reader.c an
 *   undefined func or file string);
 * - metric names and values: the three metric events have fixed names and uint64 values;
 * - a task begun under the background task: order.c turns parent 0 into "no parent";
 * - a task end's type against its begin's: order.c hands the end its begin's name, and both
 *   keep the same set of active tasks;
 * - StateTransition.Stack against Event.Stack when a goroutine stops: equal for every 1.22/1.23
 *   event type;
 * - a proc dying with active ranges: no proc transition ends in NotExist. */
#include "validate.h"

#include "evspec.h"
#include "go_wire.h"
#include "grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE GD_NONE

void gd_valid_init(struct gd_valid *v)
{
    memset(v, 0, sizeof(*v));
}

void gd_valid_free(struct gd_valid *v)
{
    for (size_t i = 0; i < v->nrl; i++)
        free(v->rl[i].names);
    free(v->global.names);
    free(v->rl);
    free(v->res);
    free(v->ms);
    gd_hm_free(&v->gmap);
    gd_hm_free(&v->pmap);
    gd_hm_free(&v->mmap);
    gd_hm_free(&v->grmap);
    gd_hm_free(&v->prmap);
    memset(v, 0, sizeof(*v));
}

/* The goroutine or proc id of map m; when absent and create is set, a new one in state st.
 * NULL when absent (create 0) or out of memory (create 1). */
static struct gd_vres *res_get(struct gd_valid *v, struct gd_hmap *m, uint64_t id, int create,
                               uint8_t st)
{
    uint32_t *i = gd_hm_get(m, id);
    if (i) return &v->res[*i];
    if (!create || gd_grow((void **)&v->res, &v->rescap, v->nres + 1, sizeof(*v->res)) ||
        gd_hm_put(m, id, (uint32_t)v->nres))
        return NULL;
    v->res[v->nres] = (struct gd_vres){st, 0, 0};
    return &v->res[v->nres++];
}

/* Index in v->ms of thread m, created with nothing executing (Go's getOrCreateThread); -1
 * when out of memory. Threads are never removed, so a bound resource's bm always has one. */
static int thread(struct gd_valid *v, uint64_t m)
{
    uint32_t *i = gd_hm_get(&v->mmap, m);
    if (i) return (int)*i;
    if (gd_grow((void **)&v->ms, &v->mscap, v->nms + 1, sizeof(*v->ms)) ||
        gd_hm_put(&v->mmap, m, (uint32_t)v->nms))
        return -1;
    v->ms[v->nms].g = v->ms[v->nms].p = NONE;
    return (int)v->nms++;
}

/* The range list of resource (scope, id): Go's ranges map keyed by ResourceID. TR_NONE is
 * the global scope. NULL when absent (create 0) or out of memory. */
static struct gd_vrl *rlist(struct gd_valid *v, int scope, uint64_t id, int create)
{
    if (scope == TR_NONE) return &v->global;
    struct gd_hmap *m = scope == TR_G ? &v->grmap : &v->prmap;
    uint32_t *i = gd_hm_get(m, id);
    if (i) return &v->rl[*i];
    if (!create || gd_grow((void **)&v->rl, &v->rlcap, v->nrl + 1, sizeof(*v->rl)) ||
        gd_hm_put(m, id, (uint32_t)v->nrl))
        return NULL;
    memset(&v->rl[v->nrl], 0, sizeof(v->rl[0]));
    return &v->rl[v->nrl++];
}

/* Position of name in l (NULL: an empty list), or -1. Lists hold a handful of entries. */
static int rl_find(const struct gd_vrl *l, uint64_t name)
{
    for (uint32_t i = 0; l && i < l->n; i++)
        if (l->names[i] == name) return (int)i;
    return -1;
}

/* Go's EventStateTransition case, for goroutines and procs alike (Go has two copies of it).
 * A resource executes while a goroutine is Running or in a Syscall, or a proc is Running; it
 * is then bound to the event's thread, which must not execute another one of its kind. It is
 * unbound by the move that stops it, on the thread it was bound to, wherever the event was
 * written (a ProcSteal stops another thread's proc). */
static int transition(struct gd_valid *v, const struct gd_tev *ev, struct gd_err *err)
{
    struct gd_trans t;
    if (!gd_transition(ev, &t)) return 0;
    int isg = t.kind == TR_G;
    const char *what = isg ? "goroutine" : "proc";
    uint8_t undet = isg ? GS_UNDET : PS_UNDET, notexist = isg ? GS_NOTEXIST : PS_NOTEXIST;
    if (t.new == undet)
        return gd_fail(err, "transition to undetermined state for %s %lld", what, (long long)t.id);
    if (v->seen_sync && t.old == undet)
        return gd_fail(err, "undetermined %s %lld after first global sync", what, (long long)t.id);
    if (t.new == notexist && isg) {
        struct gd_vrl *l = rlist(v, TR_G, t.id, 0);
        if (l && l->n)
            return gd_fail(err, "goroutine %lld died with active ranges", (long long)t.id);
    }
    struct gd_hmap *m = isg ? &v->gmap : &v->pmap;
    struct gd_vres *s = res_get(v, m, t.id, 0, 0);
    if (s) {
        if (t.old != s->state)
            return gd_fail(err, "bad old state for %s %lld", what, (long long)t.id);
        s->state = t.new;
    } else {
        if (t.old != undet && t.old != notexist)
            return gd_fail(err, "bad old state for unregistered %s %lld", what, (long long)t.id);
        if (!(s = res_get(v, m, t.id, 1, t.new))) return gd_fail(err, "out of memory");
    }
    int exec_new = isg ? (t.new == GS_RUNNING || t.new == GS_SYSCALL) : t.new == PS_RUNNING;
    int exec_old = isg ? (t.old == GS_RUNNING || t.old == GS_SYSCALL) : t.old == PS_RUNNING;
    if (exec_new) {
        if (ev->m == NONE) return gd_fail(err, "must have thread, but thread ID is none");
        uint32_t sidx = (uint32_t)(s - v->res);
        int mi = thread(v, ev->m);
        if (mi < 0) return gd_fail(err, "out of memory");
        s = &v->res[sidx];
        uint64_t *slot = isg ? &v->ms[mi].g : &v->ms[mi].p;
        if (*slot != NONE && *slot != t.id)
            return gd_fail(
                err, "tried to run %s %lld when one was already executing (%lld) on thread %lld",
                what, (long long)t.id, (long long)*slot, (long long)ev->m);
        *slot = t.id;
        s->bound = 1;
        s->bm = ev->m;
    } else if (exec_old) {
        if (!s->bound)
            return gd_fail(err, "stopping %s %lld not bound to any active context", what,
                           (long long)t.id);
        uint32_t *mi = gd_hm_get(&v->mmap, s->bm);
        uint64_t *slot = isg ? &v->ms[*mi].g : &v->ms[*mi].p;
        if (*slot != t.id)
            return gd_fail(err, "tried to stop %s %lld when it wasn't currently executing", what,
                           (long long)t.id);
        *slot = NONE;
        s->bound = 0;
    }
    return 0;
}

/* Go's EventRangeBegin/Active/End cases. Go names ranges by string ("GC concurrent mark
 * phase", "GC incremental sweep", "GC mark assist", "stop-the-world (KIND)"); the three fixed
 * names are the constants 1-3 here and an STW range is its kind's hash xor a tag, which meets
 * them only by a 2^-64 chance (two kinds with one hash would count as one range). The scope is
 * where Go's Event.Range puts it: GC is global, a sweep is on the event's proc (even
 * GCSweepActive, whose argument Go overrides), an assist is on the event's goroutine or, for
 * GCMarkAssistActive, on the goroutine it names. An Active event adds the range when missing:
 * it restates a range begun before the trace (or the generation) started. */
static int range_ev(struct gd_valid *v, const struct gd_tev *ev, const struct gd_gen *g,
                    struct gd_err *err)
{
    int scope, kind; /* kind: 0 begin, 1 active, 2 end */
    uint64_t id = 0, name;
    switch (ev->type) {
    case GO_EV_STW_BEGIN:
    case GO_EV_STW_END: {
        /* STWEnd carries its begin's kind (order.c), an id that may come from an earlier
         * generation's table: Go's mustGet would panic on it, this reports it. */
        uint32_t len;
        const char *s = gd_gen_str(g, ev->args[0], &len);
        if (!s)
            return gd_fail(err, "found invalid string ID %llu for the stop-the-world kind",
                           (unsigned long long)ev->args[0]);
        name = gd_strhash(s, len) ^ 0x5354570000000000ULL;
        scope = TR_G;
        id = ev->g;
        kind = ev->type == GO_EV_STW_BEGIN ? 0 : 2;
        break;
    }
    case GO_EV_GC_BEGIN:
    case GO_EV_GC_ACTIVE:
    case GO_EV_GC_END:
        name = 1;
        scope = TR_NONE;
        kind = ev->type == GO_EV_GC_BEGIN ? 0 : ev->type == GO_EV_GC_ACTIVE ? 1 : 2;
        break;
    case GO_EV_GC_SWEEP_BEGIN:
    case GO_EV_GC_SWEEP_ACTIVE:
    case GO_EV_GC_SWEEP_END:
        name = 2;
        scope = TR_P;
        id = ev->p; /* Go scopes every sweep event to the event's proc */
        kind = ev->type == GO_EV_GC_SWEEP_BEGIN ? 0 : ev->type == GO_EV_GC_SWEEP_ACTIVE ? 1 : 2;
        break;
    case GO_EV_GC_MARK_ASSIST_BEGIN:
    case GO_EV_GC_MARK_ASSIST_ACTIVE:
    case GO_EV_GC_MARK_ASSIST_END:
        name = 3;
        scope = TR_G;
        id = ev->type == GO_EV_GC_MARK_ASSIST_ACTIVE ? ev->args[0] : ev->g;
        kind = ev->type == GO_EV_GC_MARK_ASSIST_BEGIN    ? 0
               : ev->type == GO_EV_GC_MARK_ASSIST_ACTIVE ? 1
                                                         : 2;
        break;
    default:
        return 0;
    }
    struct gd_vrl *l = rlist(v, scope, id, kind != 2);
    if (!l && kind != 2) return gd_fail(err, "out of memory");
    int at = rl_find(l, name);
    if (kind == 0 && at >= 0)
        return gd_fail(err, "already active range %s begun again", gd_ev_name(ev->type));
    if (kind == 2) { /* removed in place, keeping the others' order (Go's slices.Delete) */
        if (at < 0) return gd_fail(err, "inactive range %s ended", gd_ev_name(ev->type));
        memmove(&l->names[at], &l->names[at + 1], (l->n - (uint32_t)at - 1) * sizeof(uint64_t));
        l->n--;
        return 0;
    }
    if (at < 0) {
        size_t cap = l->cap;
        if (gd_grow((void **)&l->names, &cap, (size_t)l->n + 1, sizeof(uint64_t)))
            return gd_fail(err, "out of memory");
        l->cap = (uint32_t)cap;
        l->names[l->n++] = name;
    }
    return 0;
}

/* Go's Validator.Event. Labels: the string id is known to exist (decode.c checked it), so a
 * zero length means Go's empty label; the goroutine is the running one and must be known from
 * a transition. Task ids 0 (the background task) and GD_NONE (Go's NoTask) never name a task. */
int gd_valid_event(struct gd_valid *v, const struct gd_tev *ev, const struct gd_gen *g,
                   struct gd_err *err)
{
    switch (ev->type) {
    case GD_EV_SYNC:
        v->seen_sync = 1;
        return 0;
    case GO_EV_GO_LABEL: {
        uint32_t len = 0;
        gd_gen_str(g, ev->args[0], &len);
        if (len == 0) return gd_fail(err, "invalid label \"\"");
        if (!gd_hm_get(&v->gmap, ev->g))
            return gd_fail(err, "label for invalid goroutine %lld", (long long)ev->g);
        return 0;
    }
    case GO_EV_USER_TASK_BEGIN:
        if (ev->args[0] == 0 || ev->args[0] == NONE)
            return gd_fail(err, "found invalid task ID for task");
        return 0;
    }
    if (transition(v, ev, err)) return -1;
    return range_ev(v, ev, g, err);
}
