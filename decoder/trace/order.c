/* order.c: the ordering state machine, a port of Go 1.23's internal/trace/order.go: one
 * handler per event type (the handlers table below is Go's orderingDispatch), the goroutine,
 * proc, thread and task states, the GC state, and the queue of accepted events.
 * Invariants: see order.h. A handler either returns 0 without touching any state, or applies
 * the whole transition; -1 leaves the state undefined (the trace is rejected). Pointers into
 * the state arrays are re-fetched after anything that may grow them.
 *
 * Why an event waits (returns 0): it is not orderable yet, because it depends on an event of
 * another thread that has not been accepted, one that a sequence number or a state puts first. A
 * GoStart needs the GoCreate or GoUnblock, written by some other thread, that made its goroutine
 * Runnable; a ProcStart needs the P's status or the ProcStop that left it Idle; a
 * GoSyscallEndBlocked needs the ProcSteal that took its P. decode.c then offers the other threads'
 * next events, earliest first; when none can go, the trace is broken ("failed to advance"). An
 * event that concerns only what its own thread holds (GoBlock, GoSyscallEnd, ProcStop...) can never
 * become right by waiting, so a wrong state there is an error at once.
 *
 * Sequence numbers are per generation: a status or a creation sets a goroutine's or proc's counter
 * to (generation, 0), and the next seq'd event must carry exactly 1 in the same generation
 * (succeeds). So the first seq'd event of a resource in a new generation waits for that resource's
 * status in the generation, and a stale event from an earlier generation can never match. At the
 * start of each generation the runtime writes a status for every goroutine and proc it will
 * mention: for a known one it must repeat the state the engine already has (a fix-up that moves
 * nothing but the counter), a goroutine never seen is allowed only in the first generation (later
 * ones are born through GoCreate*), a proc may appear at any time. */
#include "order.h"

#include "evspec.h"
#include "go_wire.h"
#include "grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE GD_NONE
enum { MAY = 0, MUST = 1, MUSTNOT = 2 }; /* a context requirement: Go's event.SchedReqs */
/* Undetermined: the trace started while GC may have been running; the first GC event says. */
enum { GC_UNDET, GC_NOTRUNNING, GC_RUNNING };

/* A scheduling context (Go's schedCtx): the thread, and the proc and goroutine it holds. */
struct ctx {
    uint64_t m, p, g;
};

/* The wire statuses' names as Go prints them in its messages. */
static const char *gstatus_name(uint64_t s)
{
    static const char *n[] = {"Bad", "Runnable", "Running", "Syscall", "Waiting"};
    return s < 5 ? n[s] : "Bad";
}

static const char *pstatus_name(uint64_t s)
{
    static const char *n[] = {"Bad", "Running", "Idle", "Syscall", "SyscallAbandoned"};
    return s < 5 ? n[s] : "Bad";
}

uint64_t gd_strhash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
    return h;
}

void gd_order_init(struct gd_order *o)
{
    memset(o, 0, sizeof(*o));
}

void gd_order_free(struct gd_order *o)
{
    for (size_t i = 0; i < o->ngs; i++) {
        free(o->gs[i].ranges);
        free(o->gs[i].regions);
    }
    for (size_t i = 0; i < o->nps; i++)
        free(o->ps[i].ranges);
    for (size_t i = 0; i < o->ntasks; i++)
        free(o->tasks[i].name);
    free(o->gs);
    free(o->gfree);
    free(o->ps);
    free(o->ms);
    free(o->tasks);
    free(o->tfree);
    free(o->tname);
    gd_hm_free(&o->gmap);
    gd_hm_free(&o->pmap);
    gd_hm_free(&o->mmap);
    gd_hm_free(&o->tmap);
    memset(o, 0, sizeof(*o));
}

/* gget, pget, mget: the state with this id, or NULL; the pointer is valid until the next
 * gnew, pnew or mnew of its kind, which may move the array. */
static struct gd_gstate *gget(struct gd_order *o, uint64_t id)
{
    uint32_t *i = gd_hm_get(&o->gmap, id);
    return i ? &o->gs[*i] : NULL;
}

/* A new goroutine in status st with its counter at (gen, 0), in a freed slot if there is one:
 * the slot keeps its ranges and regions arrays (emptied) for reuse. NULL when out of memory. */
static struct gd_gstate *gnew(struct gd_order *o, uint64_t id, uint8_t st, uint64_t gen)
{
    uint32_t idx;
    if (o->ngfree) {
        idx = o->gfree[--o->ngfree];
    } else {
        if (gd_grow((void **)&o->gs, &o->gcap, o->ngs + 1, sizeof(*o->gs))) return NULL;
        idx = (uint32_t)o->ngs++;
        memset(&o->gs[idx], 0, sizeof(o->gs[idx]));
    }
    if (gd_hm_put(&o->gmap, id, idx)) return NULL;
    struct gd_gstate *s = &o->gs[idx];
    s->id = id;
    s->status = st;
    s->seqgen = gen;
    s->seq = 0;
    s->nranges = s->nregions = 0;
    return s;
}

/* Forgets a goroutine that ended (Go deletes it from gStates): its id may be created again,
 * and its slot goes to the free list. 0, or -1 when out of memory. */
static int gdel(struct gd_order *o, uint64_t id)
{
    uint32_t *i = gd_hm_get(&o->gmap, id);
    if (!i) return 0;
    uint32_t idx = *i;
    gd_hm_del(&o->gmap, id);
    if (gd_grow((void **)&o->gfree, &o->gfcap, o->ngfree + 1, sizeof(*o->gfree))) return -1;
    o->gfree[o->ngfree++] = idx;
    return 0;
}

static struct gd_pstate *pget(struct gd_order *o, uint64_t id)
{
    uint32_t *i = gd_hm_get(&o->pmap, id);
    return i ? &o->ps[*i] : NULL;
}

static struct gd_pstate *pnew(struct gd_order *o, uint64_t id, uint8_t st, uint64_t gen)
{
    if (gd_grow((void **)&o->ps, &o->pcap, o->nps + 1, sizeof(*o->ps)) ||
        gd_hm_put(&o->pmap, id, (uint32_t)o->nps))
        return NULL;
    struct gd_pstate *s = &o->ps[o->nps++];
    memset(s, 0, sizeof(*s));
    s->id = id;
    s->status = st;
    s->seqgen = gen;
    return s;
}

static struct gd_mstate *mget(struct gd_order *o, uint64_t id)
{
    uint32_t *i = gd_hm_get(&o->mmap, id);
    return i ? &o->ms[*i] : NULL;
}

/* Procs and threads are never removed (Go keeps them too): a new one is appended. */
static struct gd_mstate *mnew(struct gd_order *o, uint64_t id, uint64_t g, uint64_t p)
{
    if (gd_grow((void **)&o->ms, &o->mcap, o->nms + 1, sizeof(*o->ms)) ||
        gd_hm_put(&o->mmap, id, (uint32_t)o->nms))
        return NULL;
    struct gd_mstate *s = &o->ms[o->nms++];
    *s = (struct gd_mstate){id, g, p};
    return s;
}

/* Go's seqCounter.succeeds: (gen, seq) comes right after (sgen, sseq). Equal generations are
 * required: counters restart at every generation's status, so a number from another
 * generation says nothing about this one. */
static int succeeds(uint64_t gen, uint64_t seq, uint64_t sgen, uint64_t sseq)
{
    return gen == sgen && seq == sseq + 1;
}

/* Queues a copy of ev in context c. Handlers pass the context the event happened in (the
 * thread's before it), not the one it leaves, as Go queues curCtx and returns newCtx. */
static void push(struct gd_order *o, const struct gd_tev *ev, struct ctx c)
{
    struct gd_tev *d = &o->q[(o->qhead + o->qlen++) % 4];
    *d = *ev;
    d->m = c.m;
    d->p = c.p;
    d->g = c.g;
}

/* Queues an event the engine makes up (Go's makeEvent: GoSwitch's block, destroy and start),
 * at the time and file offset of the event it comes from, so a dump or an error points there. */
static void push_syn(struct gd_order *o, const struct gd_tev *ev, struct ctx c, uint8_t typ,
                     uint64_t a0, uint64_t a1)
{
    struct gd_tev s = {.type = typ, .time = ev->time, .args = {a0, a1}, .off = ev->off};
    push(o, &s, c);
}

int gd_order_pop(struct gd_order *o, struct gd_tev *ev)
{
    if (!o->qlen) return 0;
    *ev = o->q[o->qhead];
    o->qhead = (o->qhead + 1) % 4;
    o->qlen--;
    return 1;
}

/* Go's validateCtx: each of thread, proc and goroutine MUST, MAY or MUSTNOT be in c. A miss
 * is an error, not a wait: the context is what the thread's own earlier events left, and where
 * another thread's event must come first (a ProcSteal), the handler waits before checking. */
static int check_ctx(struct ctx c, int th, int pr, int go, struct gd_err *err)
{
    if (th == MUST && c.m == NONE) return gd_fail(err, "expected a thread but didn't have one");
    if (th == MUSTNOT && c.m != NONE) return gd_fail(err, "expected no thread but had one");
    if (pr == MUST && c.p == NONE) return gd_fail(err, "expected a proc but didn't have one");
    if (pr == MUSTNOT && c.p != NONE) return gd_fail(err, "expected no proc but had one");
    if (go == MUST && c.g == NONE) return gd_fail(err, "expected a goroutine but didn't have one");
    if (go == MUSTNOT && c.g != NONE) return gd_fail(err, "expected no goroutine but had one");
    return 0;
}
/* Go's event.UserGoReqs: a thread, its proc and a goroutine running on it. */
#define USERGO(c, err) check_ctx(c, MUST, MUST, MUST, err)
#define OOMERR(err) gd_fail(err, "out of memory")

/* Ranges (GC sweep on Ps; STW and mark assist on Gs): spans of time begun and ended by a
 * pair of events, possibly in different generations, and restated by an Active event at the
 * start of each generation while in flight. A range is known by its Begin's type, which this
 * maps an Active or End type to (Go's Spec.StartEv). */
static uint8_t range_start(uint8_t typ)
{
    switch (typ) {
    case GO_EV_STW_END:
        return GO_EV_STW_BEGIN;
    case GO_EV_GC_ACTIVE:
    case GO_EV_GC_END:
        return GO_EV_GC_BEGIN;
    case GO_EV_GC_SWEEP_ACTIVE:
    case GO_EV_GC_SWEEP_END:
        return GO_EV_GC_SWEEP_BEGIN;
    case GO_EV_GC_MARK_ASSIST_ACTIVE:
    case GO_EV_GC_MARK_ASSIST_END:
        return GO_EV_GC_MARK_ASSIST_BEGIN;
    }
    return typ;
}

static int has_range(struct gd_range *r, uint32_t n, struct gd_range t)
{
    for (uint32_t i = 0; i < n; i++)
        if (r[i].typ == t.typ && r[i].desc == t.desc) return 1;
    return 0;
}

static int range_add(struct gd_range **r, uint32_t *n, uint32_t *cap, struct gd_range t)
{
    size_t c = *cap;
    if (gd_grow((void **)r, &c, (size_t)*n + 1, sizeof(**r))) return -1;
    *cap = (uint32_t)c;
    (*r)[(*n)++] = t;
    return 0;
}

static int range_begin(struct gd_range **r, uint32_t *n, uint32_t *cap, struct gd_range t,
                       struct gd_err *err)
{
    if (has_range(*r, *n, t))
        return gd_fail(err, "discovered event already in-flight for when starting event %s",
                       gd_ev_name(t.typ));
    return range_add(r, n, cap, t) ? OOMERR(err) : 0;
}

/* In the first generation an Active event is the first news of a range that began before
 * the trace, so it records it; later, the engine has seen every begin, so it must be in flight. */
static int range_active(struct gd_range **r, uint32_t *n, uint32_t *cap, struct gd_range t,
                        int initial, struct gd_err *err)
{
    if (initial) {
        if (has_range(*r, *n, t))
            return gd_fail(err, "found named active range already in first gen: %s",
                           gd_ev_name(t.typ));
        return range_add(r, n, cap, t) ? OOMERR(err) : 0;
    }
    if (!has_range(*r, *n, t))
        return gd_fail(err, "resource is missing active range: %s", gd_ev_name(t.typ));
    return 0;
}

/* Ends the in-flight range of End type typ (swap-remove, like Go) and gives its desc: STWEnd
 * has no kind argument, it takes its begin's. */
static int range_end(struct gd_range *r, uint32_t *n, uint8_t typ, uint64_t *desc,
                     struct gd_err *err)
{
    uint8_t st = range_start(typ);
    for (uint32_t i = 0; i < *n; i++) {
        if (r[i].typ == st) {
            *desc = r[i].desc;
            r[i] = r[--*n];
            return 0;
        }
    }
    return gd_fail(err, "tried to end event %s, but not in-flight", gd_ev_name(st));
}

/* Each handler: 1 accepted (*nc = new context of this M), 0 not yet, -1 error. g is the
 * generation being ordered (its number, and its string table for names); c is the context of
 * the thread whose stream holds ev.
 *
 * ProcStatus restates a P's status at a generation start (or the first time it is seen), so
 * it never waits. A known P must repeat its status, with one exception: SyscallAbandoned is
 * what the runtime writes for a P in a syscall whose thread it cannot vouch for, because the
 * P is about to be stolen and the status comes from the stealer, not from the owner. If the
 * engine has it in Syscall, nothing was lost: the status is promoted to Syscall (the API sees
 * Running -> Running) and, Running being bound to a thread, the event is put in the context
 * of the thread that holds the P. Abandoned twice, the thread is lost and the P reads Idle. A
 * new P is Undetermined in the first generation (it existed before the trace), else NotExist.
 * Running and Syscall bind the P to the writing thread. */
static int proc_status(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                       struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    static const uint8_t to_state[] = {PS_UNDET, PS_RUNNING, PS_IDLE, PS_RUNNING, PS_IDLE};
    uint64_t pid = ev->args[0], st = ev->args[1];
    if (st >= 5)
        return gd_fail(err, "invalid status for proc %llu: %llu", (unsigned long long)pid,
                       (unsigned long long)st);
    uint8_t old = to_state[st];
    struct gd_pstate *s = pget(o, pid);
    if (s) {
        if (st == GO_P_SYSCALL_ABANDONED && s->status == GO_P_SYSCALL) {
            old = PS_RUNNING;
            ev->args[1] = GO_P_SYSCALL;
        } else if (st == GO_P_SYSCALL_ABANDONED && s->status == GO_P_SYSCALL_ABANDONED) {
            old = PS_IDLE;
        } else if (s->status != st) {
            return gd_fail(err, "inconsistent status for proc %llu: old %s vs. new %s",
                           (unsigned long long)pid, pstatus_name(s->status), pstatus_name(st));
        }
        s->seqgen = gen;
        s->seq = 0;
    } else {
        if (!pnew(o, pid, (uint8_t)st, gen)) return OOMERR(err);
        old = gen == o->initial_gen ? PS_UNDET : PS_NOTEXIST;
    }
    ev->extra = old;
    *nc = c;
    if (st == GO_P_RUNNING || st == GO_P_SYSCALL) nc->p = pid;
    if (st == GO_P_SYSCALL_ABANDONED && old == PS_RUNNING) {
        int found = 0;
        for (size_t i = 0; i < o->nms; i++) { /* the last holder (Go: any, in map order) */
            if (o->ms[i].p == pid) {
                c = (struct ctx){o->ms[i].id, pid, o->ms[i].g};
                found = 1;
            }
        }
        if (!found)
            return gd_fail(err,
                           "failed to find sched context for proc %llu that's about to be stolen",
                           (unsigned long long)pid);
    }
    push(o, ev, c);
    return 1;
}

/* ProcStart waits until the P is Idle with its counter one below p_seq in this generation
 * (its status, or the ProcStop or ProcSteal that idled it, may be on another thread), and
 * until this thread holds no P: a thread still holding its P in a syscall must first see that
 * P stolen (ProcSteal, another thread) before it can start one. It may have a goroutine: one
 * leaving a syscall reacquires a P. */
static int proc_start(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                      struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    uint64_t pid = ev->args[0];
    struct gd_pstate *s = pget(o, pid);
    if (!s || s->status != GO_P_IDLE || !succeeds(gen, ev->args[1], s->seqgen, s->seq) ||
        c.p != NONE)
        return 0;
    if (check_ctx(c, MUST, MUSTNOT, MAY, err)) return -1;
    s->status = GO_P_RUNNING;
    s->seqgen = gen;
    s->seq = ev->args[1];
    *nc = c;
    nc->p = pid;
    push(o, ev, c);
    return 1;
}

/* ProcStop: a thread stops its own P, so it is always orderable and needs no sequence number
 * (a P stopped from elsewhere is a ProcSteal). The P may be Running or in Syscall: the thread
 * may stop it while its goroutine is in a syscall. */
static int proc_stop(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                     struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    (void)gen;
    struct gd_pstate *s = pget(o, c.p);
    if (!s)
        return gd_fail(err, "event ProcStop for proc (%lld) that doesn't exist", (long long)c.p);
    if (s->status != GO_P_RUNNING && s->status != GO_P_SYSCALL)
        return gd_fail(err, "ProcStop event for proc that's not Running or Syscall");
    if (check_ctx(c, MUST, MUST, MAY, err)) return -1;
    s->status = GO_P_IDLE;
    *nc = c;
    nc->p = NONE;
    push(o, ev, c);
    return 1;
}

/* ProcSteal: a thread takes a P whose owner is blocked in a syscall (a stop-the-world, sysmon's
 * retake, or the owner itself on its way out of the syscall). It waits until the P is in Syscall
 * (or SyscallAbandoned) with p_seq next: p_seq ties the steal to the GoSyscallBegin that put the P
 * there, which timestamps alone could not (Go's go122-syscall-steal-proc-ambiguous test). extra
 * keeps the old status for the transition. From SyscallAbandoned the owner is unknown, so no thread
 * is touched. Stealing from itself acts like a ProcStop. Otherwise the victim thread loses its P,
 * which is what lets its GoSyscallEndBlocked advance. */
static int proc_steal(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                      struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    uint64_t pid = ev->args[0];
    struct gd_pstate *s = pget(o, pid);
    if (!s || (s->status != GO_P_SYSCALL && s->status != GO_P_SYSCALL_ABANDONED) ||
        !succeeds(gen, ev->args[1], s->seqgen, s->seq))
        return 0;
    if (check_ctx(c, MUST, MAY, MAY, err)) return -1;
    uint8_t old = s->status;
    ev->extra = old;
    s->status = GO_P_IDLE;
    s->seqgen = gen;
    s->seq = ev->args[1];
    *nc = c;
    if (old == GO_P_SYSCALL_ABANDONED) {
        push(o, ev, c);
        return 1;
    }
    uint64_t mid = ev->args[2];
    if (mid == c.m) {
        if (c.p != pid)
            return gd_fail(err,
                           "tried to self-steal proc %llu (thread %llu), but got proc %lld instead",
                           (unsigned long long)pid, (unsigned long long)mid, (long long)c.p);
        nc->p = NONE;
        push(o, ev, c);
        return 1;
    }
    struct gd_mstate *ms = mget(o, mid);
    if (!ms)
        return gd_fail(err, "stole proc from non-existent thread %llu", (unsigned long long)mid);
    if (ms->p != pid)
        return gd_fail(err, "tried to steal proc %llu from thread %llu, but got proc %lld instead",
                       (unsigned long long)pid, (unsigned long long)mid, (long long)ms->p);
    ms->p = NONE;
    push(o, ev, c);
    return 1;
}

/* GoStatus(Stack) restates a goroutine's status at a generation start, so it never waits: a
 * known goroutine must repeat its status (its counter restarts), an unknown one is allowed in
 * the first generation only (Undetermined: it existed before the trace). Running binds it to
 * the writing thread. Syscall names the thread it is in (the m argument): on the writing thread
 * it binds there, and after the first generation it must already be bound there (a status in
 * every generation carried the binding). On another thread the goroutine has sat in a syscall
 * for the whole generation, without a P (the runtime takes every P back at a generation
 * start): a known thread must hold it, an unknown one is created holding it, and the event is
 * put in that thread's context (Go leaves the context's goroutine as it was in the latter
 * case, as the event is the binding itself). */
static int go_status(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                     struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    static const uint8_t to_state[] = {GS_UNDET, GS_RUNNABLE, GS_RUNNING, GS_SYSCALL, GS_WAITING};
    uint64_t gid = ev->args[0], mid = ev->args[1], st = ev->args[2];
    if (st >= 5)
        return gd_fail(err, "invalid status for goroutine %llu: %llu", (unsigned long long)gid,
                       (unsigned long long)st);
    uint8_t old = to_state[st];
    struct gd_gstate *s = gget(o, gid);
    if (s) {
        if (s->status != st)
            return gd_fail(err, "inconsistent status for goroutine %llu: old %s vs. new %s",
                           (unsigned long long)gid, gstatus_name(s->status), gstatus_name(st));
        s->seqgen = gen;
        s->seq = 0;
    } else if (gen == o->initial_gen) {
        if (!gnew(o, gid, (uint8_t)st, gen)) return OOMERR(err);
        old = GS_UNDET;
    } else {
        return gd_fail(err,
                       "found goroutine status for new goroutine after the first generation: "
                       "id=%llu status=%s",
                       (unsigned long long)gid, gstatus_name(st));
    }
    ev->extra = old;
    *nc = c;
    if (st == GO_G_RUNNING) {
        nc->g = gid;
    } else if (st == GO_G_SYSCALL) {
        if (mid == NONE)
            return gd_fail(err, "found goroutine %llu in syscall without a thread",
                           (unsigned long long)gid);
        if (mid == c.m) {
            if (gen != o->initial_gen && c.g != gid)
                return gd_fail(err,
                               "inconsistent thread for syscalling goroutine %llu: thread has "
                               "goroutine %lld",
                               (unsigned long long)gid, (long long)c.g);
            nc->g = gid;
        } else {
            struct gd_mstate *ms = mget(o, mid);
            if (ms) {
                if (ms->g != gid)
                    return gd_fail(err,
                                   "inconsistent thread for syscalling goroutine %llu: thread has "
                                   "goroutine %lld",
                                   (unsigned long long)gid, (long long)ms->g);
                c.g = ms->g; /* a Syscall -> Syscall restatement on that thread */
            } else if (!mnew(o, mid, gid, NONE)) {
                return OOMERR(err);
            }
            c.m = mid; /* the event belongs to the thread the goroutine is in */
        }
    }
    push(o, ev, c);
    return 1;
}

/* GoCreate, GoCreateBlocked: goroutines are created on a running P, by a running goroutine
 * or by the runtime without one. The new one is Runnable (Waiting for GoCreateBlocked: an
 * iter.Pull coroutine), its counter at (gen, 0) so that its first GoStart carries 1. An id
 * still alive cannot be created again. Never waits: the creator is this thread's own. */
static int go_create(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                     struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    if (check_ctx(c, MUST, MUST, MAY, err)) return -1;
    struct gd_gstate *cur = gget(o, c.g);
    if (cur && cur->status != GO_G_RUNNING)
        return gd_fail(err, "%s event for goroutine that's not Running", gd_ev_name(ev->type));
    if (gget(o, ev->args[0]))
        return gd_fail(err, "tried to create goroutine (%llu) that already exists",
                       (unsigned long long)ev->args[0]);
    uint8_t st = ev->type == GO_EV_GO_CREATE_BLOCKED ? GO_G_WAITING : GO_G_RUNNABLE;
    if (!gnew(o, ev->args[0], st, gen)) return OOMERR(err);
    *nc = c;
    push(o, ev, c);
    return 1;
}

/* GoDestroy, GoStop, GoBlock: the goroutine running on this thread ends, yields or blocks and
 * leaves the thread. A running goroutine is bound to its thread, so these are always
 * orderable; they carry no sequence number. */
static int go_stop_exec(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                        struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    (void)gen;
    if (USERGO(c, err)) return -1;
    struct gd_gstate *s = gget(o, c.g);
    if (!s)
        return gd_fail(err, "event %s for goroutine (%lld) that doesn't exist",
                       gd_ev_name(ev->type), (long long)c.g);
    if (s->status != GO_G_RUNNING)
        return gd_fail(err, "%s event for goroutine that's not Running", gd_ev_name(ev->type));
    *nc = c;
    nc->g = NONE;
    if (ev->type == GO_EV_GO_DESTROY) {
        if (gdel(o, c.g)) return OOMERR(err);
    } else {
        s->status = ev->type == GO_EV_GO_STOP ? GO_G_RUNNABLE : GO_G_WAITING;
    }
    push(o, ev, c);
    return 1;
}

/* GoStart waits until the goroutine is Runnable with g_seq next in this generation: the
 * GoCreate, GoUnblock or status that made it so may be on another thread, not yet ordered. A
 * goroutine runs on a thread with a P and no other goroutine. */
static int go_start(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                    struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    struct gd_gstate *s = gget(o, ev->args[0]);
    if (!s || s->status != GO_G_RUNNABLE || !succeeds(gen, ev->args[1], s->seqgen, s->seq))
        return 0;
    if (check_ctx(c, MUST, MUST, MUSTNOT, err)) return -1;
    s->status = GO_G_RUNNING;
    s->seqgen = gen;
    s->seq = ev->args[1];
    *nc = c;
    nc->g = ev->args[0];
    push(o, ev, c);
    return 1;
}

/* GoUnblock waits like GoStart, for the goroutine to be Waiting with g_seq next (the GoBlock or
 * status that made it so may be on another thread). Its context is not checked: anything may wake a
 * goroutine (sysmon, a thread without a P, the stream of no thread). */
static int go_unblock(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                      struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    (void)err;
    struct gd_gstate *s = gget(o, ev->args[0]);
    if (!s || s->status != GO_G_WAITING || !succeeds(gen, ev->args[1], s->seqgen, s->seq)) return 0;
    s->status = GO_G_RUNNABLE;
    s->seqgen = gen;
    s->seq = ev->args[1];
    *nc = c;
    push(o, ev, c);
    return 1;
}

/* GoSwitch, GoSwitchDestroy (coroutines, Go 1.23): three events in one. The running goroutine
 * hands the thread to the Waiting goroutine it names: the switch itself (read as that one's
 * unblock), then the running one's GoBlock or GoDestroy, then the named one's GoStart, in a
 * context without goroutine. Like a GoStart it waits for the named goroutine's g_seq; the
 * running one must be there at once (it is this thread's). */
static int go_switch(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                     struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    if (USERGO(c, err)) return -1;
    struct gd_gstate *cs = gget(o, c.g);
    if (!cs)
        return gd_fail(err, "event %s for goroutine (%lld) that doesn't exist",
                       gd_ev_name(ev->type), (long long)c.g);
    if (cs->status != GO_G_RUNNING)
        return gd_fail(err, "%s event for goroutine that's not Running", gd_ev_name(ev->type));
    uint64_t next = ev->args[0];
    struct gd_gstate *ns = gget(o, next);
    if (!ns || ns->status != GO_G_WAITING || !succeeds(gen, ev->args[1], ns->seqgen, ns->seq))
        return 0;
    push(o, ev, c); /* the switch first: it is the named goroutine's unblock */
    if (ev->type == GO_EV_GO_SWITCH) {
        cs->status = GO_G_WAITING;
        push_syn(o, ev, c, GO_EV_GO_BLOCK, 0, 0);
    } else {
        if (gdel(o, c.g)) return OOMERR(err);
        push_syn(o, ev, c, GO_EV_GO_DESTROY, 0, 0);
    }
    ns->status = GO_G_RUNNING;
    ns->seqgen = gen;
    ns->seq = ev->args[1];
    *nc = c;
    nc->g = next;
    struct ctx sc = c;
    sc.g = NONE;
    push_syn(o, ev, sc, GO_EV_GO_START, next, ev->args[1]);
    return 1;
}

/* GoSyscallBegin: the running goroutine enters a syscall and its P with it (P Syscall, still
 * bound to the thread until stolen). Always orderable. Its p_seq is checked, not waited for: it
 * exists only so that a later ProcSteal names this syscall, and the P is running here, so no
 * event of another thread can be pending on it; a wrong number is an error. */
static int syscall_begin(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g,
                         struct ctx c, struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    if (USERGO(c, err)) return -1;
    struct gd_gstate *s = gget(o, c.g);
    if (!s)
        return gd_fail(err, "event GoSyscallBegin for goroutine (%lld) that doesn't exist",
                       (long long)c.g);
    if (s->status != GO_G_RUNNING)
        return gd_fail(err, "GoSyscallBegin event for goroutine that's not Running");
    s->status = GO_G_SYSCALL;
    struct gd_pstate *ps = pget(o, c.p);
    if (!ps)
        return gd_fail(err, "uninitialized proc %lld found during GoSyscallBegin", (long long)c.p);
    ps->status = GO_P_SYSCALL;
    if (!succeeds(gen, ev->args[0], ps->seqgen, ps->seq))
        return gd_fail(err,
                       "failed to advance GoSyscallBegin: can't make sequence: %llu (gen=%llu) -> "
                       "%llu (gen=%llu)",
                       (unsigned long long)ps->seq, (unsigned long long)ps->seqgen,
                       (unsigned long long)ev->args[0], (unsigned long long)gen);
    ps->seqgen = gen;
    ps->seq = ev->args[0];
    *nc = c;
    push(o, ev, c);
    return 1;
}

/* GoSyscallEnd: the syscall returns on the thread it began on, the goroutine never left that
 * thread, so it is always orderable. Its P must still be in Syscall: had the P been taken, the
 * runtime would have written GoSyscallEndBlocked. */
static int syscall_end(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                       struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    (void)gen;
    if (USERGO(c, err)) return -1;
    struct gd_gstate *s = gget(o, c.g);
    if (!s)
        return gd_fail(err, "event GoSyscallEnd for goroutine (%lld) that doesn't exist",
                       (long long)c.g);
    if (s->status != GO_G_SYSCALL)
        return gd_fail(err, "GoSyscallEnd event for goroutine that's not Syscall");
    s->status = GO_G_RUNNING;
    struct gd_pstate *ps = pget(o, c.p);
    if (!ps)
        return gd_fail(err, "uninitialized proc %lld found during GoSyscallEnd", (long long)c.p);
    if (ps->status != GO_P_SYSCALL)
        return gd_fail(err, "expected proc %lld in state Syscall, but got %s instead",
                       (long long)c.p, pstatus_name(ps->status));
    ps->status = GO_P_RUNNING;
    *nc = c;
    push(o, ev, c);
    return 1;
}

/* GoSyscallEndBlocked: the syscall returns after the goroutine's P was taken (a ProcSteal by
 * another thread, or its own ProcStop). It waits while this thread still holds a P in Syscall:
 * the event says that P will be lost, so the steal must be ordered first. Holding no P, or a
 * new one already started after the steal, is fine. The goroutine becomes Runnable and leaves
 * the thread: it has to be scheduled again. */
static int syscall_end_blocked(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g,
                               struct ctx c, struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    (void)gen;
    if (c.p != NONE) {
        struct gd_pstate *ps = pget(o, c.p);
        if (!ps)
            return gd_fail(err, "uninitialized proc %lld found during GoSyscallEndBlocked",
                           (long long)c.p);
        if (ps->status == GO_P_SYSCALL) return 0;
    }
    if (check_ctx(c, MUST, MAY, MUST, err)) return -1;
    struct gd_gstate *s = gget(o, c.g);
    if (!s)
        return gd_fail(err, "event GoSyscallEndBlocked for goroutine (%lld) that doesn't exist",
                       (long long)c.g);
    if (s->status != GO_G_SYSCALL)
        return gd_fail(err, "GoSyscallEndBlocked event for goroutine that's not Syscall");
    *nc = c;
    nc->g = NONE;
    s->status = GO_G_RUNNABLE;
    push(o, ev, c);
    return 1;
}

/* GoCreateSyscall: a C thread calls into Go (a cgo callback) and gets a goroutine, born in
 * the syscall state and bound to that thread, which must not run another one. */
static int create_syscall(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g,
                          struct ctx c, struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    if (check_ctx(c, MUST, MAY, MUSTNOT, err)) return -1;
    if (gget(o, ev->args[0]))
        return gd_fail(err, "tried to create goroutine (%llu) in syscall that already exists",
                       (unsigned long long)ev->args[0]);
    if (!gnew(o, ev->args[0], GO_G_SYSCALL, gen)) return OOMERR(err);
    *nc = c;
    nc->g = ev->args[0];
    push(o, ev, c);
    return 1;
}

/* GoDestroySyscall: a callback's goroutine goes away (the callback returned, or its C thread
 * exits). A P the thread still holds is given up now, as SyscallAbandoned: the OS may reuse
 * the thread id, and a new thread with that id must not find this P bound to it (or steal it
 * from itself; Go's go122-create-syscall-reuse-thread-id test). A self-ProcSteal is queued
 * before the event, with old status Syscall, so the API sees that P go Running -> Idle. */
static int destroy_syscall(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g,
                           struct ctx c, struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    (void)gen;
    if (check_ctx(c, MUST, MAY, MUST, err)) return -1;
    struct gd_gstate *s = gget(o, c.g);
    if (!s)
        return gd_fail(err, "event GoDestroySyscall for goroutine (%lld) that doesn't exist",
                       (long long)c.g);
    if (s->status != GO_G_SYSCALL)
        return gd_fail(err, "GoDestroySyscall event for goroutine that's not Syscall");
    if (gdel(o, c.g)) return OOMERR(err);
    *nc = c;
    nc->g = NONE;
    if (c.p != NONE) {
        struct gd_pstate *ps = pget(o, c.p);
        if (!ps)
            return gd_fail(err, "found invalid proc %lld during GoDestroySyscall", (long long)c.p);
        if (ps->status != GO_P_SYSCALL)
            return gd_fail(err, "proc %lld in unexpected state %s during GoDestroySyscall",
                           (long long)c.p, pstatus_name(ps->status));
        ps->status = GO_P_SYSCALL_ABANDONED;
        nc->p = NONE;
        struct gd_tev st = {.type = GO_EV_PROC_STEAL,
                            .time = ev->time,
                            .args = {c.p},
                            .extra = GO_P_SYSCALL, /* old status: the move is Running -> Idle */
                            .off = ev->off};
        push(o, &st, c);
    }
    push(o, ev, c);
    return 1;
}

/* UserTaskBegin. Tasks need no begin for an end, may end more than once, and their ids may be
 * reused after an end, so the only rule is no second begin of an active id. Parent 0 means "no
 * parent" (not the background task, which only regions attach to) and becomes GD_NONE, Go's
 * NoTask. The name is kept for the end (struct gd_task). As in Go, the task is recorded before
 * the context is checked (a failure ends decoding anyway). */
static int task_begin(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                      struct ctx *nc, struct gd_err *err)
{
    uint64_t id = ev->args[0];
    if (gd_hm_get(&o->tmap, id))
        return gd_fail(err, "task ID conflict: %llu", (unsigned long long)id);
    if (ev->args[1] == 0) ev->args[1] = NONE; /* no parent, as Go rewrites it */
    uint32_t len;
    const char *name = gd_gen_str(g, ev->args[2], &len);
    if (!name)
        return gd_fail(err, "invalid string ID %llu for UserTaskBegin event",
                       (unsigned long long)ev->args[2]);
    uint32_t idx;
    if (o->ntfree) {
        idx = o->tfree[--o->ntfree];
    } else {
        if (gd_grow((void **)&o->tasks, &o->tcap, o->ntasks + 1, sizeof(*o->tasks)))
            return OOMERR(err);
        idx = (uint32_t)o->ntasks++;
    }
    struct gd_task *t = &o->tasks[idx];
    t->name = malloc(len + 1);
    if (!t->name || gd_hm_put(&o->tmap, id, idx)) return OOMERR(err);
    memcpy(t->name, name, len);
    t->name[len] = 0;
    t->len = len;
    t->parent = ev->args[1];
    if (USERGO(c, err)) return -1;
    *nc = c;
    push(o, ev, c);
    return 1;
}

/* UserTaskEnd: hands the end its task's parent (extra) and name (xname), then forgets the
 * task; an end without a known begin gets GD_NONE and "". The name stays allocated in o->tname
 * until the next UserTaskEnd, so the event's xname outlives this call (the caller pops the
 * event later, and reads it until it asks for the next one). */
static int task_end(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                    struct ctx *nc, struct gd_err *err)
{
    (void)g;
    uint32_t *i = gd_hm_get(&o->tmap, ev->args[0]);
    free(o->tname);
    o->tname = NULL;
    ev->xname = "";
    ev->xlen = 0;
    ev->extra = NONE;
    if (i) {
        struct gd_task *t = &o->tasks[*i];
        ev->extra = t->parent;
        o->tname = t->name;
        ev->xname = t->name;
        ev->xlen = t->len;
        t->name = NULL;
        if (gd_grow((void **)&o->tfree, &o->tfcap, o->ntfree + 1, sizeof(*o->tfree)))
            return OOMERR(err);
        o->tfree[o->ntfree++] = *i;
        gd_hm_del(&o->tmap, ev->args[0]);
    }
    if (USERGO(c, err)) return -1;
    *nc = c;
    push(o, ev, c);
    return 1;
}

/* UserRegionBegin/End on the running goroutine's region stack. An end must match the
 * innermost (task, name), unless the stack is empty: the region began before the trace did,
 * which Go accepts. */
static int region(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                  struct ctx *nc, struct gd_err *err)
{
    if (USERGO(c, err)) return -1;
    uint32_t len;
    const char *name = gd_gen_str(g, ev->args[1], &len);
    if (!name)
        return gd_fail(err, "invalid string ID %llu for %s event", (unsigned long long)ev->args[1],
                       gd_ev_name(ev->type));
    struct gd_gstate *s = gget(o, c.g);
    if (!s)
        return gd_fail(err, "encountered Ev%s without known state for current goroutine %lld",
                       gd_ev_name(ev->type), (long long)c.g);
    uint64_t h = gd_strhash(name, len);
    if (ev->type == GO_EV_USER_REGION_BEGIN) {
        size_t cap = s->regcap;
        if (gd_grow((void **)&s->regions, &cap, (size_t)s->nregions + 1, sizeof(*s->regions)))
            return OOMERR(err);
        s->regcap = (uint32_t)cap;
        s->regions[s->nregions].task = ev->args[0];
        s->regions[s->nregions++].name = h;
    } else if (s->nregions) {
        if (s->regions[s->nregions - 1].task != ev->args[0] ||
            s->regions[s->nregions - 1].name != h)
            return gd_fail(err,
                           "misuse of region in goroutine %llu: region end {%llu %.*s} does not "
                           "match the inner-most active region (task %llu)",
                           (unsigned long long)c.g, (unsigned long long)ev->args[0], (int)len, name,
                           (unsigned long long)s->regions[s->nregions - 1].task);
        s->nregions--;
    }
    *nc = c;
    push(o, ev, c);
    return 1;
}

/* GCActive, GCBegin, GCEnd. GC cycles carry a global gc_seq because a cycle may begin and end
 * on different threads: the number is an explicit edge between them, so broken timestamps
 * cannot order the end of another cycle in between. Each waits for gc_seq next, except the
 * events that establish an unknown state: GCActive in the first generation (a cycle running
 * when the trace started; it must be the first GC event) and GCBegin while undetermined. Those
 * skip the context check, as in Go; the others check it after the state update, as Go does. */
static int gc_event(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                    struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    uint64_t seq = ev->args[0];
    *nc = c;
    if (ev->type == GO_EV_GC_ACTIVE && gen == o->initial_gen) {
        if (o->gcstate != GC_UNDET)
            return gd_fail(err, "GCActive in the first generation isn't first GC event");
        o->gcseq = seq;
        o->gcstate = GC_RUNNING;
        push(o, ev, c);
        return 1;
    }
    if (ev->type == GO_EV_GC_BEGIN && o->gcstate == GC_UNDET) {
        o->gcseq = seq;
        o->gcstate = GC_RUNNING;
        push(o, ev, c);
        return 1;
    }
    if (seq != o->gcseq + 1) return 0; /* not this cycle's turn: an earlier event is pending */
    if (ev->type == GO_EV_GC_ACTIVE && o->gcstate != GC_RUNNING)
        return gd_fail(err, "encountered GCActive while GC was not in progress");
    if (ev->type == GO_EV_GC_BEGIN && o->gcstate == GC_RUNNING)
        return gd_fail(err, "encountered GCBegin while GC was already in progress");
    if (ev->type == GO_EV_GC_END && o->gcstate == GC_NOTRUNNING)
        return gd_fail(err, "encountered GCEnd when GC was not in progress");
    if (ev->type == GO_EV_GC_END && o->gcstate == GC_UNDET)
        return gd_fail(err, "encountered GCEnd when GC was in an undetermined state");
    o->gcseq = seq;
    o->gcstate = ev->type == GO_EV_GC_END ? GC_NOTRUNNING : GC_RUNNING;
    if (USERGO(c, err)) return -1;
    push(o, ev, c);
    return 1;
}

/* STW, sweep and mark-assist ranges; never wait. A sweep is bound to the thread's P (no
 * goroutine needed); GCSweepActive names its P by argument. GCMarkAssistActive names its
 * goroutine, which need not be running (like a status: no context is checked). STW and mark
 * assist begin and end on the running goroutine. STWEnd gets its begin's kind in args[0], as
 * Go smuggles it there, so the range's name can be built from the end alone. */
static int ranges(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                  struct ctx *nc, struct gd_err *err)
{
    uint64_t gen = g->num;
    uint8_t t = ev->type;
    struct gd_range rt = {range_start(t), t == GO_EV_STW_BEGIN ? ev->args[0] : 0};
    int initial = gen == o->initial_gen;
    *nc = c;
    if (t == GO_EV_GC_SWEEP_BEGIN || t == GO_EV_GC_SWEEP_END) {
        if (check_ctx(c, MUST, MUST, MAY, err)) return -1;
        struct gd_pstate *ps = pget(o, c.p);
        if (!ps)
            return gd_fail(err, "uninitialized proc %lld found during %s", (long long)c.p,
                           gd_ev_name(t));
        uint64_t d;
        if (t == GO_EV_GC_SWEEP_BEGIN ? range_begin(&ps->ranges, &ps->nranges, &ps->rcap, rt, err)
                                      : range_end(ps->ranges, &ps->nranges, t, &d, err))
            return -1;
    } else if (t == GO_EV_GC_SWEEP_ACTIVE) {
        struct gd_pstate *ps = pget(o, ev->args[0]);
        if (!ps)
            return gd_fail(err, "encountered GCSweepActive for unknown proc %llu",
                           (unsigned long long)ev->args[0]);
        if (range_active(&ps->ranges, &ps->nranges, &ps->rcap, rt, initial, err)) return -1;
    } else if (t == GO_EV_GC_MARK_ASSIST_ACTIVE) {
        struct gd_gstate *gs = gget(o, ev->args[0]);
        if (!gs)
            return gd_fail(err, "uninitialized goroutine %llu found during GCMarkAssistActive",
                           (unsigned long long)ev->args[0]);
        if (range_active(&gs->ranges, &gs->nranges, &gs->rcap, rt, initial, err)) return -1;
    } else { /* STWBegin/End, GCMarkAssistBegin/End: ranges on the running G */
        if (USERGO(c, err)) return -1;
        struct gd_gstate *gs = gget(o, c.g);
        if (!gs)
            return gd_fail(err,
                           "encountered event of type %d without known state for current "
                           "goroutine %lld",
                           t, (long long)c.g);
        if (t == GO_EV_STW_BEGIN || t == GO_EV_GC_MARK_ASSIST_BEGIN) {
            if (range_begin(&gs->ranges, &gs->nranges, &gs->rcap, rt, err)) return -1;
        } else {
            uint64_t d;
            if (range_end(gs->ranges, &gs->nranges, t, &d, err)) return -1;
            if (t == GO_EV_STW_END) ev->args[0] = d;
        }
    }
    push(o, ev, c);
    return 1;
}

/* Events that change no state, only need a context: the thread, proc and goroutine each MUST,
 * MAY or MUSTNOT be there (Go's order.go: validateCtx with its event's requirements). */
static int simple(struct gd_order *o, struct gd_tev *ev, struct ctx c, struct ctx *nc,
                  struct gd_err *err, int th, int pr, int go)
{
    if (check_ctx(c, th, pr, go, err)) return -1;
    *nc = c;
    push(o, ev, c);
    return 1;
}

/* ProcsChange, GoLabel, UserLog: on a running goroutine. */
static int on_goroutine(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                        struct ctx *nc, struct gd_err *err)
{
    (void)g;
    return simple(o, ev, c, nc, err, MUST, MUST, MUST);
}

/* HeapAlloc, HeapGoal: on a proc, with or without a goroutine. */
static int on_proc(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                   struct ctx *nc, struct gd_err *err)
{
    (void)g;
    return simple(o, ev, c, nc, err, MUST, MUST, MAY);
}

/* Experimental events (128-136: Go 1.23's allocation-free events): on a thread. */
static int experimental(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                        struct ctx *nc, struct gd_err *err)
{
    (void)g;
    return simple(o, ev, c, nc, err, MUST, MAY, MAY);
}

typedef int (*order_fn)(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, struct ctx c,
                        struct ctx *nc, struct gd_err *err);

/* The handler of each event type (Go's order.go orderingDispatch); NULL: not a known event.
 * Structural types never get here: decode.c refuses an untimed event in an event batch. */
static const order_fn handlers[256] = {
    [GO_EV_PROCS_CHANGE] = on_goroutine,
    [GO_EV_GO_LABEL] = on_goroutine,
    [GO_EV_USER_LOG] = on_goroutine,
    [GO_EV_HEAP_ALLOC] = on_proc,
    [GO_EV_HEAP_GOAL] = on_proc,
    [GO_EV_PROC_START] = proc_start,
    [GO_EV_PROC_STOP] = proc_stop,
    [GO_EV_PROC_STEAL] = proc_steal,
    [GO_EV_PROC_STATUS] = proc_status,
    [GO_EV_GO_CREATE] = go_create,
    [GO_EV_GO_CREATE_BLOCKED] = go_create,
    [GO_EV_GO_CREATE_SYSCALL] = create_syscall,
    [GO_EV_GO_START] = go_start,
    [GO_EV_GO_DESTROY] = go_stop_exec,
    [GO_EV_GO_STOP] = go_stop_exec,
    [GO_EV_GO_BLOCK] = go_stop_exec,
    [GO_EV_GO_DESTROY_SYSCALL] = destroy_syscall,
    [GO_EV_GO_UNBLOCK] = go_unblock,
    [GO_EV_GO_SYSCALL_BEGIN] = syscall_begin,
    [GO_EV_GO_SYSCALL_END] = syscall_end,
    [GO_EV_GO_SYSCALL_END_BLOCKED] = syscall_end_blocked,
    [GO_EV_GO_STATUS] = go_status,
    [GO_EV_GO_STATUS_STACK] = go_status,
    [GO_EV_STW_BEGIN] = ranges,
    [GO_EV_STW_END] = ranges,
    [GO_EV_GC_SWEEP_ACTIVE] = ranges,
    [GO_EV_GC_SWEEP_BEGIN] = ranges,
    [GO_EV_GC_SWEEP_END] = ranges,
    [GO_EV_GC_MARK_ASSIST_ACTIVE] = ranges,
    [GO_EV_GC_MARK_ASSIST_BEGIN] = ranges,
    [GO_EV_GC_MARK_ASSIST_END] = ranges,
    [GO_EV_GC_ACTIVE] = gc_event,
    [GO_EV_GC_BEGIN] = gc_event,
    [GO_EV_GC_END] = gc_event,
    [GO_EV_USER_TASK_BEGIN] = task_begin,
    [GO_EV_USER_TASK_END] = task_end,
    [GO_EV_USER_REGION_BEGIN] = region,
    [GO_EV_USER_REGION_END] = region,
    [GO_EV_GO_SWITCH] = go_switch,
    [GO_EV_GO_SWITCH_DESTROY] = go_switch,
    [128] = experimental,
    [129] = experimental,
    [130] = experimental,
    [131] = experimental,
    [132] = experimental,
    [133] = experimental,
    [134] = experimental,
    [135] = experimental,
    [136] = experimental,
};

/* The context of thread m: the proc and goroutine it had after its last accepted event (none
 * for a thread not seen yet, or m == NONE: an event with no thread). A thread seen for the first
 * time gets its state now, as in Go. 0, or -1 when out of memory. */
static int thread_ctx(struct gd_order *o, uint64_t m, struct ctx *c)
{
    *c = (struct ctx){m, NONE, NONE};
    if (m == NONE) return 0;
    struct gd_mstate *ms = mget(o, m);
    if (!ms && !(ms = mnew(o, m, NONE, NONE))) return -1;
    c->p = ms->p;
    c->g = ms->g;
    return 0;
}

/* Go's ordering.Advance. The first generation it sees is the initial one (order.h). */
int gd_order_advance(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, uint64_t m,
                     struct gd_err *err)
{
    if (o->initial_gen == 0) o->initial_gen = g->num;
    struct ctx c, nc;
    if (thread_ctx(o, m, &c)) return OOMERR(err);
    order_fn h = handlers[ev->type];
    if (!h) return gd_fail(err, "bad event type found while ordering: %u", ev->type);
    nc = c;
    int rc = h(o, ev, g, c, &nc, err);
    /* An accepted event moves its thread to the new context (a handler that waits, 0, or
     * fails, -1, leaves it). The M entry exists: thread_ctx made it, and no handler removes
     * Ms. */
    if (rc == 1 && m != NONE) {
        struct gd_mstate *ms = mget(o, m);
        ms->p = nc.p;
        ms->g = nc.g;
    }
    return rc;
}
