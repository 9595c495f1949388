/* cmd_hangs.c: `gotrace hangs [--at TIME] FILE` — at the end of the trace (or TIME after its
 * start) every thread that is blocked: what it waits on, who holds that (the holder at block
 * time, unless the holder released it since), since when, with stacks; cycles in the
 * wait-for graph (a thread waits for an object whose holder waits, ...) are deadlocks.
 * Invariants: a thread is listed once; each cycle is reported once, from its member that
 * waited longest. */
#include "cli.h"
#include "cmds.h"
#include "holders.h"

#include <inttypes.h>
#include <stdlib.h>

static const char usage[] =
    "usage: gotrace hangs [--at TIME] [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Lists the threads blocked at the end of the trace (or TIME after its start: 1.5s,\n"
    "300ms, 20us, or ns): what each waits on, who holds it and what that holder does, since\n"
    "when, with stacks; a cycle of threads each waiting for an object the next holds is\n"
    "reported as a deadlock. Exit status 0 ok (hangs or not), 1 bad trace, 2 bad usage,\n"
    "3 input/output error.\n";

/* The goroutine holding what g waits on, HD_NONE if unknown or released since g blocked. */
static uint32_t holder_now(const struct hd *s, uint32_t g)
{
    const struct hd_g *x = g < s->gxcap ? &s->gx[g] : NULL;
    if (!x || !x->waiting || x->holder == HD_NONE || s->a.gs[g].state != GS_WAITING) return HD_NONE;
    if (x->obj != HD_NONE) {
        const struct hd_obj *o = &s->objs[x->obj];
        size_t first, end;
        hd_releases(o, x->since, INT64_MAX, &first, &end);
        for (size_t i = first; i < end; i++)
            if (o->rel[i].m == x->holder_m) return HD_NONE; /* released since */
    }
    return x->holder;
}

/* The stack of goroutine g's current interval, indented. */
static void stack_of(struct gd_out *out, const struct hd *s, uint32_t g)
{
    uint32_t stk = s->a.gs[g].since_stack;
    gd_out_stack(out, stk ? s->a.str.s[stk] : "", "      ", 0, 1);
}

static const char *what(const struct hd *s, uint32_t g, char *buf, size_t n)
{
    const struct gd_ana_g *ag = &s->a.gs[g];
    const struct hd_g *x = g < s->gxcap ? &s->gx[g] : NULL;
    if (ag->state == GS_SYSCALL) return "in a system call";
    if (ag->state != GS_WAITING) return "not blocked";
    if (x && x->waiting && x->obj != HD_NONE)
        snprintf(buf, n, "waiting on %s", s->a.str.s[s->objs[x->obj].name]);
    else
        snprintf(buf, n, "waiting (%s)", ag->reason ? s->a.str.s[ag->reason] : "no reason");
    return buf;
}

static int write_hangs(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s)
{
    int64_t at = o->at >= 0 ? s->t0 + o->at : s->a.tend;
    size_t ng = s->a.ngs, nblocked = 0, ncycles = 0;
    char *seen = calloc(ng + 1, 1);
    if (!seen) {
        fprintf(stderr, "gotrace: %s: out of memory\n", o->file);
        return GD_EXIT_BAD_TRACE;
    }
    char t1[32], t2[32], nb[GD_NAME_MAX], nb2[GD_NAME_MAX], w1[1300], w2[1300];
    for (size_t g = 0; g < ng; g++)
        nblocked += s->a.gs[g].state == GS_WAITING || s->a.gs[g].state == GS_SYSCALL;
    gd_out_f(out, "trace: %s: at %s: %zu threads blocked\n", o->file,
             gd_fmt_dur(at - s->t0, t1, sizeof t1), nblocked);
    /* Deadlocks: follow each blocked thread's holder chain; a chain that comes back. */
    for (size_t g0 = 0; g0 < ng; g0++) {
        if (seen[g0] || holder_now(s, (uint32_t)g0) == HD_NONE) continue;
        uint32_t g = holder_now(s, (uint32_t)g0);
        for (size_t steps = 0; g != HD_NONE && g != g0 && steps < ng; steps++)
            g = holder_now(s, g);
        if (g != g0) continue; /* not on a cycle (perhaps leading into one) */
        ncycles++;
        gd_out_s(out, "\ndeadlock:");
        do {
            seen[g] = 1;
            uint32_t h = holder_now(s, g);
            gd_out_f(out, " %s %s held by", hd_gname(s, g, nb), what(s, g, w1, sizeof w1));
            g = h;
        } while (g != g0);
        gd_out_f(out, " %s\n", hd_gname(s, g, nb));
    }
    for (size_t gi = 0; gi < ng; gi++) {
        const struct gd_ana_g *ag = &s->a.gs[gi];
        if (ag->state != GS_WAITING && ag->state != GS_SYSCALL) continue;
        uint32_t g = (uint32_t)gi;
        int64_t since = g < s->gxcap ? s->gx[g].state_since : ag->since;
        gd_out_f(out, "\n%s  %s  for %s (since %s)\n", hd_gname(s, g, nb),
                 what(s, g, w1, sizeof w1), gd_fmt_dur(at - since, t1, sizeof t1),
                 gd_fmt_dur(since - s->t0, t2, sizeof t2));
        stack_of(out, s, g);
        const struct hd_g *x = g < s->gxcap ? &s->gx[g] : NULL;
        uint32_t h = holder_now(s, g);
        if (h != HD_NONE) {
            gd_out_f(out, "  held by %s, %s%s\n", hd_gname(s, h, nb2), what(s, h, w2, sizeof w2),
                     seen[g] ? " (deadlock)" : "");
            if (s->a.gs[h].state == GS_WAITING) stack_of(out, s, h);
        } else if (x && x->waiting && x->holder != HD_NONE) {
            gd_out_f(out, "  holder: %s held it at block time and released it since\n",
                     hd_gname(s, x->holder, nb2));
        } else if (ag->state == GS_WAITING) {
            gd_out_s(out, "  holder: none known (no thread owns it: only a wake-up ends "
                          "this wait)\n");
        }
    }
    gd_out_f(out, "\n%zu deadlock%s\n", ncycles, ncycles == 1 ? "" : "s");
    free(seen);
    return 0;
}

int gd_cmd_hangs(int argc, char **argv)
{
    return gd_cmd_sync_write(argc, argv, "at", usage, 0, write_hangs);
}
