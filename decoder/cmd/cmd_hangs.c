/* cmd_hangs.c: `gotrace hangs [--at TIME] FILE` — at the end of the trace (or TIME after its
 * start: the events after it are not read, and the records after it not believed) every
 * thread that is blocked: what it waits on, since when, with its stack; who holds the object
 * at that time (hd_holder_at: the holder at block time unless it released it since; then the
 * thread it was handed to) and what that holder is doing (blocked in a system call, waiting
 * on another object, running, exited). The deadlocks (hangs.h: a cycle of holders, a holder
 * that exited holding the lock, every thread stuck) come first, each once, with the threads
 * stuck behind them; when some threads are stuck but not all, the threads that can still move.
 * Invariants: a thread is listed once; a thread belongs to at most one deadlock; "deadlock" is
 * said only of threads that can never move (hangs.h's rules). */
#include "cli.h"
#include "cmds.h"
#include "hangs.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: gotrace hangs [--at TIME] [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Lists the threads blocked at the end of the trace (or TIME after its start: 1.5s,\n"
    "300ms, 20us, or ns): what each waits on, who holds it and what that holder does, since\n"
    "when, with stacks; then the deadlocks: threads each waiting for an object the next holds,\n"
    "threads waiting for a lock whose holder exited holding it, or every thread waiting without\n"
    "a timeout for another (docs/locks.md). A trace made with GOTRACE_LOCK_ORDER=1 or\n"
    "GOTRACE_LOCK_HOLDS=1 also lists the locks threads held when they exited, and where they\n"
    "took them. Exit status 0 ok (hangs or not), 1 bad trace, 2 bad usage, 3 input/output\n"
    "error.\n";

/* What the write functions share: the analysis, its report at T, the output. */
struct ctx {
    struct gd_out *out;
    const struct hd *s;
    const struct hg_report *r;
};

/* The stack of the event that began thread g's state, indented. */
static void stack_of(const struct ctx *c, uint32_t g)
{
    gd_out_stack(c->out, c->r->t[g].stack, "      ", 0, 1);
}

/* " NAME WAITING held by NAME2" for a member of a deadlock (NAME2 omitted for no holder). */
static void member(const struct ctx *c, uint32_t g, int with_holder)
{
    char nb[GD_NAME_MAX], w[1300];
    gd_out_f(c->out, " %s %s", hd_gname(c->s, g, nb), gd_hang_blocked(c->s, c->r, g, w, sizeof w));
    uint32_t h = c->r->t[g].hold.g, obj = c->r->t[g].obj;
    int join = obj != HD_NONE && !strncmp(c->s->a.str.s[c->s->objs[obj].name], "join", 4);
    if (with_holder && c->r->t[g].owned && h != HD_NONE && !join) /* a join names its thread */
        gd_out_f(c->out, " held by %s", hd_gname(c->s, h, nb));
}

/* One deadlock: its line, then the threads behind it. */
static void deadlock(const struct ctx *c, const struct hg_deadlock *d)
{
    char nb[GD_NAME_MAX], t1[32];
    gd_out_s(c->out, "\ndeadlock:");
    if (d->kind == HG_CYCLE) { /* A waiting on X held by B waiting on Y held by A */
        for (size_t i = 0; i < d->n; i++) {
            member(c, d->g[i], 0);
            gd_out_s(c->out, " held by");
        }
        gd_out_f(c->out, " %s\n", hd_gname(c->s, d->g[0], nb));
    } else if (d->kind == HG_EXITED_HOLDER) {
        for (size_t i = 0; i < d->n; i++) {
            member(c, d->g[i], 0);
            if (i + 1 < d->n) gd_out_c(c->out, ';');
        }
        gd_out_f(c->out, " held by %s, which exited at %s holding it\n",
                 hd_gname(c->s, d->holder, nb),
                 gd_fmt_dur(c->r->t[d->holder].since - c->s->t0, t1, sizeof t1));
    } else {
        gd_out_s(c->out, " no thread can make progress:");
        for (size_t i = 0; i < d->n; i++) {
            member(c, d->g[i], 1);
            if (i + 1 < d->n) gd_out_c(c->out, ';');
        }
        gd_out_c(c->out, '\n');
    }
    for (size_t i = 0; i < d->nbehind; i++) {
        gd_out_s(c->out, "  behind it:");
        member(c, d->behind[i], 1);
        gd_out_c(c->out, '\n');
    }
}

/* A deadlock across processes (hangs.h hg_xproc): the live check's line, then each of its
 * threads in the trace with its wait. */
static void xproc(const struct ctx *c, const struct hg_xproc *x)
{
    char nb[GD_NAME_MAX], t1[32], w[1300];
    const char *facts = strstr(x->text, " [reader ");
    gd_out_f(c->out, "\ndeadlock: across processes, found live at %s: %.*s\n",
             gd_fmt_dur(x->t - c->s->t0, t1, sizeof t1), (int)(facts - x->text), x->text);
    for (size_t i = 0; i < x->n; i++) {
        uint32_t g = x->g[i];
        const struct hd_g *e = &c->s->gx[g];
        char what[600];
        if (e->lw_state == GS_SYSCALL)
            snprintf(what, sizeof what, "in a system call");
        else
            snprintf(what, sizeof what, "waiting (%s)", c->s->a.str.s[e->lw_reason]);
        if (c->r->t[g].doing == HG_EXITED)
            snprintf(w, sizeof w, "%s until it ended at %s", what,
                     gd_fmt_dur(c->r->t[g].since - c->s->t0, t1, sizeof t1));
        else
            snprintf(w, sizeof w, "%s at the end", what);
        gd_out_f(c->out, "  %s %s\n", hd_gname(c->s, g, nb), w);
    }
}

/* The holder line(s) of blocked thread g waiting on an object (hd_holder_at's cases). */
static void holder_lines(const struct ctx *c, uint32_t g)
{
    char line[3000];
    uint32_t h = c->r->t[g].hold.g;
    gd_out_f(c->out, "  %s\n", gd_hang_holder(c->s, c->r, g, line, sizeof line));
    if (h == HD_NONE) return;
    uint8_t doing = c->r->t[h].doing; /* its stack says where it is blocked */
    if (doing == HG_WAITING || doing == HG_SLEEPING || doing == HG_SYSCALL) stack_of(c, h);
}

/* Every blocked thread (waiting, or in a system call), in order of first appearance. */
static void blocked(const struct ctx *c)
{
    char t1[32], t2[32], nb[GD_NAME_MAX], w[1300];
    for (uint32_t g = 0; g < c->r->nt; g++) {
        const struct hg_thread *t = &c->r->t[g];
        if (t->doing != HG_WAITING && t->doing != HG_SLEEPING && t->doing != HG_SYSCALL) continue;
        gd_out_f(c->out, "\n%s  %s  for %s (since %s)\n", hd_gname(c->s, g, nb),
                 gd_hang_blocked(c->s, c->r, g, w, sizeof w),
                 gd_fmt_dur(c->r->at - t->since, t1, sizeof t1),
                 gd_fmt_dur(t->since - c->s->t0, t2, sizeof t2));
        stack_of(c, g);
        if (t->obj != HD_NONE)
            holder_lines(c, g);
        else if (t->doing == HG_WAITING) /* not a sync object (Go's waits, I/O readiness) */
            gd_out_s(c->out, "  holder: none known (no thread owns it: only a wake-up ends "
                             "this wait)\n");
    }
}

/* Why the program is not (wholly) stuck: the live threads that can still move, when some
 * threads are stuck; or that none can. */
static void progress(const struct ctx *c)
{
    const struct hg_report *r = c->r;
    char nb[GD_NAME_MAX], w[1300];
    int all_in_one = 0; /* the deadlocks name every stuck thread but in an HG_ALL_STUCK one */
    for (size_t i = 0; i < r->nd; i++)
        all_in_one |= r->d[i].kind == HG_ALL_STUCK;
    if (r->all_stuck && !all_in_one) {
        gd_out_f(c->out,
                 "\nno thread can make progress: the %zu live threads each wait, without "
                 "a timeout, for another\n",
                 r->nlive);
        return;
    }
    if (!r->nstuck || r->all_stuck) return;
    gd_out_f(c->out, "\n%snot every thread is stuck:", r->nd ? "" : "no deadlock: ");
    size_t shown = 0, movers = r->nlive - r->nstuck;
    for (uint32_t g = 0; g < r->nt && shown < 5; g++) {
        const struct hg_thread *t = &r->t[g];
        if (t->stuck || t->doing == HG_EXITED || t->doing == HG_UNKNOWN) continue;
        gd_out_f(c->out, "%s %s %s", shown++ ? ";" : "", hd_gname(c->s, g, nb),
                 gd_hang_doing(c->s, c->r, g, w, sizeof w));
        if (t->why) gd_out_f(c->out, " (%s)", gd_hang_why(t->why));
    }
    if (movers > shown) gd_out_f(c->out, "; and %zu more", movers - shown);
    gd_out_c(c->out, '\n');
}

static int write_hangs(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s)
{
    struct hg_report r;
    int64_t at = o->at >= 0 ? s->t0 + o->at : s->a.tend;
    if (hg_compute(s, at, &r)) {
        fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
        return GD_EXIT_BAD_TRACE;
    }
    struct ctx c = {out, s, &r};
    char t1[32];
    size_t nblocked = 0;
    for (size_t g = 0; g < r.nt; g++)
        nblocked += s->a.gs[g].state == GS_WAITING || s->a.gs[g].state == GS_SYSCALL;
    gd_out_f(out, "trace: %s: at %s: %zu threads blocked\n", o->file,
             gd_fmt_dur(at - s->t0, t1, sizeof t1), nblocked);
    for (size_t i = 0; i < r.nd; i++)
        deadlock(&c, &r.d[i]);
    for (size_t i = 0; i < r.nx; i++)
        xproc(&c, &r.x[i]);
    blocked(&c);
    progress(&c);
    gd_out_lock_exits(out, s, at); /* lock tracking's (docs/locks.md section 7) */
    gd_out_f(out, "\n%zu deadlock%s\n", r.nd + r.nx, r.nd + r.nx == 1 ? "" : "s");
    hg_free(&r);
    return 0;
}

int gd_cmd_hangs(int argc, char **argv)
{
    return gd_cmd_sync_write(argc, argv, "at", usage, 0, write_hangs);
}
