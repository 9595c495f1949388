/* hangs.c: the threads at T and the deadlocks (hangs.h has the rules). In four steps over the
 * threads: judge each one (what it does, what it waits on, who holds that, whether it is
 * stuck); find the cycles of stuck threads through the holders (each thread's holder is one
 * thread, so following them from any thread ends in a cycle or at a thread with no holder:
 * one walk per thread, each thread entered once); group the waiters of locks whose holder
 * exited; then the threads behind those, and what is left when every live thread is stuck.
 * Why each rule is as strict as it is: a verdict must never be given for a program that would
 * have gone on (a condvar another process can signal, a timed wait, a holder that is not
 * known), so a doubt always counts as "could still move". */
#include "hangs.h"

#include "grow.h"

#include <stdlib.h>
#include <string.h>

const char *hg_call(const char *stack, char *buf, size_t n)
{
    size_t len = strcspn(stack, " @\n");
    if (len >= n) len = n - 1;
    memcpy(buf, stack, len);
    buf[len] = 0;
    return buf;
}

/* The sync objects judged, by the first word(s) of their names (holders.c names them from the
 * tracer's reasons: "mutex ledger_lock", "join worker (G4)", "omp barrier"): the calls that
 * wait on them without a timeout; whether they have an owner (a lock, the joined thread);
 * whether every waiting call is untimed (no timed variant exists); whether the object is
 * private to the process whatever its name (an OpenMP team's barrier). */
static const struct kind {
    const char *word, *untimed[2];
    int owned, any_call, private_always;
} kinds[] = {
    {"mutex", {"pthread_mutex_lock"}, 1, 0, 0},
    {"rwlock", {"pthread_rwlock_rdlock", "pthread_rwlock_wrlock"}, 1, 0, 0},
    {"join", {"pthread_join"}, 1, 0, 0},
    {"condvar", {"pthread_cond_wait"}, 0, 0, 0},
    {"semaphore", {"sem_wait"}, 0, 0, 0},
    {"barrier", {"pthread_barrier_wait"}, 0, 1, 0},
    {"omp barrier", {NULL}, 0, 1, 1},
};

/* The kind of an object named name, NULL for one not judged (futex, OpenMP critical / lock). */
static const struct kind *kind_of(const char *name)
{
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t n = strlen(kinds[k].word);
        if (!strncmp(name, kinds[k].word, n) && (!name[n] || name[n] == ' ')) return &kinds[k];
    }
    return NULL;
}

/* Whether the object named name lies in the program's static storage: named by a symbol
 * (holders.c's "mutex ledger_lock", "condvar queue.ready", "barrier tab+0x10"), not by an
 * address ("0x5602... from f (f.c:3)", "0x7f... first waited in g") nor generic ("condvar").
 * Static storage is never shared with another process. */
static int in_static_storage(const struct kind *k, const char *name)
{
    const char *p = name + strlen(k->word);
    return *p == ' ' && p[1] && strncmp(p + 1, "0x", 2);
}

/* Why thread t (blocked on t->obj since `since`) is not stuck at `at`, HG_WHY_NONE if it is;
 * fills t->hold for an owned object. A doubt is a reason: see the top of hangs.h. */
static int why_not(const struct hd *s, struct hg_thread *t, const struct hd_g *x, int64_t at)
{
    const char *name = s->a.str.s[s->objs[t->obj].name];
    const struct kind *k = kind_of(name);
    hd_holder_at(s, t->obj, x->holder, x->since, at, &t->hold); /* a futex's too, if recorded */
    if (!k) return HG_WHY_UNOWNED;
    t->owned = (uint8_t)k->owned;
    char call[128];
    hg_call(t->stack, call, sizeof call);
    if (strstr(call, "timed") || strstr(call, "clock")) return HG_WHY_TIMED;
    int untimed = k->any_call;
    for (int i = 0; i < 2 && k->untimed[i]; i++)
        untimed |= !strcmp(call, k->untimed[i]);
    if (!untimed) return HG_WHY_CALL;
    if (k->owned) {
        int known =
            t->hold.g != HD_NONE && (t->hold.how == HD_HOLD_BLOCK || t->hold.how == HD_HOLD_HANDED);
        int exited = known && s->a.gs[t->hold.g].state == GS_NOTEXIST;
        if (!known || (exited && !strncmp(name, "join", 4))) return HG_WHY_HOLDER;
    } else if (!k->private_always && !in_static_storage(k, name)) {
        return HG_WHY_SHARED;
    }
    return at - x->since < HG_SETTLE_NS ? HG_WHY_RECENT : HG_WHY_NONE;
}

/* Fills r->t[g]: what thread g does at `at` and, blocked on an object, whether it is stuck. */
static void judge(const struct hd *s, uint32_t g, int64_t at, struct hg_thread *t)
{
    const struct gd_ana_g *ag = &s->a.gs[g];
    const struct hd_g *x = g < s->gxcap ? &s->gx[g] : NULL;
    *t = (struct hg_thread){.obj = HD_NONE, .hold = {HD_HOLD_UNKNOWN, HD_NONE, HD_NONE, 0}};
    t->since = x ? x->state_since : ag->since;
    t->stack = ag->since_stack ? s->a.str.s[ag->since_stack] : "";
    const char *reason = ag->reason ? s->a.str.s[ag->reason] : "";
    switch (ag->state) {
    case GS_RUNNING:
        t->doing = HG_RUNNING;
        return;
    case GS_RUNNABLE:
        t->doing = HG_RUNNABLE;
        return;
    case GS_SYSCALL:
        t->doing = HG_SYSCALL;
        return;
    case GS_NOTEXIST:
        t->doing = HG_EXITED;
        return;
    case GS_WAITING:
        t->doing = strcmp(reason, "sleep") ? HG_WAITING : HG_SLEEPING;
        break;
    default:
        t->doing = HG_UNKNOWN;
        return;
    }
    if (!x || !x->waiting || x->obj == HD_NONE) return;
    t->obj = x->obj;
    t->why = (uint8_t)why_not(s, t, x, at);
    t->stuck = t->why == HG_WHY_NONE;
}

/* The thread whose object stuck thread g waits for: its holder at T when that holder is alive
 * (a cycle goes through it), else HD_NONE. */
static uint32_t next_of(const struct hg_report *r, uint32_t g)
{
    const struct hg_thread *t = &r->t[g];
    if (!t->stuck || !t->owned || t->hold.g == HD_NONE) return HD_NONE;
    return r->t[t->hold.g].doing == HG_EXITED ? HD_NONE : t->hold.g;
}

/* Appends v to the list (*p, *n, *cap); 0 or -1. */
static int push(uint32_t **p, size_t *n, size_t *cap, uint32_t v)
{
    if (gd_grow((void **)p, cap, *n + 1, sizeof(**p))) return -1;
    (*p)[(*n)++] = v;
    return 0;
}

/* A new deadlock of kind; its index, or -1 when out of memory. */
static long new_deadlock(struct hg_report *r, int kind, uint32_t holder, uint32_t obj)
{
    if (gd_grow((void **)&r->d, &r->dcap, r->nd + 1, sizeof(*r->d))) return -1;
    r->d[r->nd] = (struct hg_deadlock){.kind = kind, .holder = holder, .obj = obj};
    return (long)r->nd++;
}

/* The cycles of next_of: a walk from each stuck thread not yet entered marks the threads it
 * enters with its own number; meeting its own mark closes a cycle, which is then listed from
 * its first thread (in order of appearance) on. 0 or -1. */
static int cycles(struct hg_report *r, uint32_t *mark)
{
    for (uint32_t g0 = 0; g0 < r->nt; g0++) {
        uint32_t g = g0;
        if (!r->t[g0].stuck || mark[g0]) continue;
        while (g != HD_NONE && !mark[g]) {
            mark[g] = g0 + 1;
            g = next_of(r, g);
        }
        if (g == HD_NONE || mark[g] != g0 + 1) continue; /* ends elsewhere */
        uint32_t first = g;
        for (uint32_t h = next_of(r, g); h != g; h = next_of(r, h))
            first = h < first ? h : first;
        long d = new_deadlock(r, HG_CYCLE, HD_NONE, HD_NONE);
        if (d < 0) return -1;
        uint32_t h = first;
        do {
            if (push(&r->d[d].g, &r->d[d].n, &r->d[d].cap, h)) return -1;
            r->t[h].dl = (uint32_t)d + 1;
            h = next_of(r, h);
        } while (h != first);
    }
    return 0;
}

/* The stuck waiters of locks whose holder exited, one deadlock per (object, holder). 0 or -1. */
static int exited_holders(struct hg_report *r)
{
    for (uint32_t g = 0; g < r->nt; g++) {
        struct hg_thread *t = &r->t[g];
        if (!t->stuck || !t->owned || t->dl || t->hold.g == HD_NONE ||
            r->t[t->hold.g].doing != HG_EXITED)
            continue;
        long d = 0;
        while ((size_t)d < r->nd && (r->d[d].kind != HG_EXITED_HOLDER || r->d[d].obj != t->obj ||
                                     r->d[d].holder != t->hold.g))
            d++;
        if ((size_t)d == r->nd && (d = new_deadlock(r, HG_EXITED_HOLDER, t->hold.g, t->obj)) < 0)
            return -1;
        if (push(&r->d[d].g, &r->d[d].n, &r->d[d].cap, g)) return -1;
        t->dl = (uint32_t)d + 1;
    }
    return 0;
}

/* The stuck threads whose holders lead into a deadlock: behind it. res[g] memoizes where g's
 * chain ends (a deadlock's index + 1, UINT32_MAX nowhere, 0 not yet known); path holds one
 * chain. Chains end: every cycle of next_of is a deadlock already. 0 or -1. */
static int behind(struct hg_report *r, uint32_t *res, uint32_t *path)
{
    for (uint32_t g = 0; g < r->nt; g++) {
        size_t n = 0;
        uint32_t h = g, end;
        while (h != HD_NONE && !res[h] && !r->t[h].dl) {
            path[n++] = h;
            h = next_of(r, h);
        }
        end = h == HD_NONE ? UINT32_MAX : res[h] ? res[h] : r->t[h].dl;
        while (n)
            res[path[--n]] = end;
    }
    for (uint32_t g = 0; g < r->nt; g++) {
        struct hg_thread *t = &r->t[g];
        if (!t->stuck || t->dl || res[g] == UINT32_MAX || !res[g]) continue;
        struct hg_deadlock *d = &r->d[res[g] - 1];
        if (push(&d->behind, &d->nbehind, &d->bcap, g)) return -1;
        t->dl = res[g];
        t->behind = 1;
    }
    return 0;
}

/* Every live thread stuck: the ones in no deadlock yet are one more. 0 or -1. */
static int all_stuck(struct hg_report *r)
{
    r->all_stuck = r->nlive > 0 && r->nstuck == r->nlive;
    long d = -1;
    for (uint32_t g = 0; r->all_stuck && g < r->nt; g++) {
        if (!r->t[g].stuck || r->t[g].dl) continue;
        if (d < 0 && (d = new_deadlock(r, HG_ALL_STUCK, HD_NONE, HD_NONE)) < 0) return -1;
        if (push(&r->d[d].g, &r->d[d].n, &r->d[d].cap, g)) return -1;
        r->t[g].dl = (uint32_t)d + 1;
    }
    return 0;
}

/* ---- deadlocks across processes (hg_xproc) ---- */

/* Whether thread g, named by the log of time t, was in a wait or system call at t that lasted
 * until `at` or until it ended without doing anything after it (hd_g lw_on: a thread whose
 * wait ended writes a log, a creation, a new wait or system call as it goes on). */
static int xp_held(const struct hd *s, const struct hg_report *r, uint32_t g, int64_t t)
{
    const struct hd_g *x = g < s->gxcap ? &s->gx[g] : NULL;
    uint8_t doing = r->t[g].doing;
    if (doing == HG_SYSCALL || doing == HG_WAITING) return r->t[g].since <= t;
    return doing == HG_EXITED && x && x->lw_state && x->lw_begin <= t && !x->lw_on;
}

/* The deadlock of log l, if the trace still shows it at `at`: its threads into *x. 1 yes, 0
 * no, -1 out of memory. */
static int xp_judge(const struct hd *s, const struct hg_report *r, const struct hd_dlog *l,
                    struct hg_xproc *x)
{
    const char *facts = strstr(l->text, " [reader ");
    const char *p = facts + 9;
    int reader = 1;
    size_t cap = 0;
    *x = (struct hg_xproc){.t = l->t};
    while (*p >= '0' && *p <= '9') {
        char *end;
        uint64_t tid = strtoull(p, &end, 10);
        uint32_t g = hd_g_of_m(s, tid);
        if (g == HD_NONE && reader) return 0; /* the reader's own trace holds the log */
        if (g != HD_NONE && (g >= r->nt || !xp_held(s, r, g, l->t))) return 0;
        if (g != HD_NONE && push(&x->g, &x->n, &cap, g)) return -1;
        reader = 0;
        p = end;
        if (!strncmp(p, "; waiting", 9)) p += 9;
        while (*p == ' ')
            p++;
    }
    return *p == ']';
}

/* The deadlocks across processes of the logs up to `at`. 0 or -1. */
static int xprocs(const struct hd *s, struct hg_report *r)
{
    for (size_t i = 0; i < s->ndlogs && s->dlogs[i].t <= r->at; i++) {
        struct hg_xproc x;
        int ok = xp_judge(s, r, &s->dlogs[i], &x);
        if (ok > 0 && !gd_grow((void **)&r->x, &r->xcap, r->nx + 1, sizeof(*r->x))) {
            x.text = s->dlogs[i].text;
            r->x[r->nx++] = x;
            continue;
        }
        free(x.g);
        if (ok) return -1;
    }
    return 0;
}

int hg_compute(const struct hd *s, int64_t at, struct hg_report *r)
{
    memset(r, 0, sizeof(*r));
    r->at = at;
    r->nt = s->a.ngs;
    r->t = calloc(r->nt + 1, sizeof(*r->t));
    uint32_t *scratch = calloc(3 * (r->nt + 1), sizeof(*scratch));
    int rc = r->t && scratch ? 0 : -1;
    for (uint32_t g = 0; !rc && g < r->nt; g++) {
        judge(s, g, at, &r->t[g]);
        int live = r->t[g].doing != HG_EXITED && r->t[g].doing != HG_UNKNOWN;
        r->nlive += live;
        r->nstuck += live && r->t[g].stuck;
    }
    /* scratch: the cycles' marks, then behind's memo and path (each nt + 1 long). */
    if (!rc) rc = cycles(r, scratch);
    if (!rc) rc = exited_holders(r);
    if (!rc) rc = behind(r, scratch + r->nt + 1, scratch + 2 * (r->nt + 1));
    if (!rc) rc = all_stuck(r);
    if (!rc) rc = xprocs(s, r);
    free(scratch);
    if (rc) hg_free(r);
    return rc;
}

void hg_free(struct hg_report *r)
{
    for (size_t i = 0; i < r->nd; i++) {
        free(r->d[i].g);
        free(r->d[i].behind);
    }
    free(r->d);
    for (size_t i = 0; i < r->nx; i++)
        free(r->x[i].g);
    free(r->x);
    free(r->t);
    memset(r, 0, sizeof(*r));
}
