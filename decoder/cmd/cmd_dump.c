/* cmd_dump.c: `gotrace dump [--stacks] FILE` — one line per event in global order.
 * Line: TIME_NS M=m P=p G=g Name arg=value...; strings are resolved and quoted, statuses named,
 * "-" stands for no thread/proc/goroutine. Invariant: output is buffered; nothing is printed
 * after a decoding error except the error itself (on stderr). */
#include "cli.h"
#include "cmds.h"
#include "sink.h"
#include "evspec.h"
#include "go_wire.h"

#include <stdio.h>

static const char usage[] =
    "usage: gotrace dump [--stacks] [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Prints every event in Go's global order: time (ns), thread, proc, goroutine, event name\n"
    "and its arguments, with strings and statuses resolved. --stacks prints the symbolized\n"
    "stack (innermost first: function file:line, or function (module) for a frame without a\n"
    "line) under each event that has one.\n";

static void id(struct gd_out *o, const char *k, uint64_t v)
{
    gd_out_s(o, k);
    if (v == GD_NONE)
        gd_out_c(o, '-');
    else
        gd_out_u(o, v);
}

static void quoted(struct gd_out *o, const char *s, uint32_t len)
{
    gd_out_c(o, '"');
    gd_out_json(o, s, len, 0);
    gd_out_c(o, '"');
}

static const char *gstatus(uint64_t s)
{
    static const char *n[] = {"Bad", "Runnable", "Running", "Syscall", "Waiting"};
    return s < 5 ? n[s] : "Bad";
}

static const char *pstatus(uint64_t s)
{
    static const char *n[] = {"Bad", "Running", "Idle", "Syscall", "SyscallAbandoned"};
    return s < 5 ? n[s] : "Bad";
}

static int is_in(const uint8_t *v, unsigned n, unsigned i)
{
    for (unsigned k = 0; k < n; k++)
        if (v[k] == i) return 1;
    return 0;
}

/* Writes the frames of stack stk of g, each after a tab (text: the scratch to build it in). */
static void stack(struct gd_out *o, const struct gd_gen *g, uint64_t stk,
                  struct gd_stack_text *text)
{
    gd_out_stack(o, gd_stack_text(g, stk, text), "\t", 0, 0);
}

/* Writes ev, and with stacks (the scratch for their texts; NULL: none) its stacks below it. */
static void event(struct gd_out *o, const struct gd_gen *g, const struct gd_tev *ev,
                  struct gd_stack_text *stacks)
{
    gd_out_i(o, ev->time);
    id(o, " M=", ev->m);
    id(o, " P=", ev->p);
    id(o, " G=", ev->g);
    gd_out_c(o, ' ');
    gd_out_s(o, gd_ev_name(ev->type));
    if (ev->type == GD_EV_SYNC) {
        gd_out_s(o, " gen=");
        gd_out_u(o, g->num);
        gd_out_c(o, '\n');
        return;
    }
    const struct gd_evspec *s = &gd_specs[ev->type];
    for (unsigned i = 0; i < s->nargs; i++) {
        uint64_t v = ev->args[i];
        gd_out_c(o, ' ');
        gd_out_s(o, s->argn[i]);
        gd_out_c(o, '=');
        if (is_in(s->str, s->nstr, i)) {
            uint32_t len;
            const char *str = gd_str(g, v, &len);
            quoted(o, str, len);
        } else if (ev->type == GO_EV_GO_STATUS || ev->type == GO_EV_GO_STATUS_STACK) {
            if (i == 2)
                gd_out_s(o, gstatus(v));
            else if (v == GD_NONE)
                gd_out_c(o, '-');
            else
                gd_out_u(o, v);
        } else if (ev->type == GO_EV_PROC_STATUS && i == 1) {
            gd_out_s(o, pstatus(v));
        } else if (v == GD_NONE && (s->argn[i][0] == 'm' || s->argn[i][0] == 'p')) {
            gd_out_c(o, '-');
        } else {
            gd_out_u(o, v);
        }
    }
    if (ev->type == GO_EV_USER_TASK_END) {
        gd_out_s(o, " name=");
        quoted(o, ev->xname, ev->xlen);
    }
    gd_out_c(o, '\n');
    if (!stacks) return;
    if (ev->type == GD_EV_CPU) {
        stack(o, g, ev->args[3], stacks);
        return;
    }
    for (unsigned k = s->nstk; k-- > 0;) {
        if (s->nstk > 1 && ev->args[s->stk[k]]) { /* GoCreate: name the two stacks */
            gd_out_c(o, '\t');
            gd_out_s(o, s->argn[s->stk[k]]);
            gd_out_s(o, ":\n");
        }
        stack(o, g, ev->args[s->stk[k]], stacks);
    }
}

int gd_cmd_dump(int argc, char **argv)
{
    struct gd_cmd_opts o;
    int rc = gd_cmd_parse(argc, argv, "stacks", usage, &o);
    if (rc) return rc < 0 ? GD_EXIT_OK : rc;
    struct gd_dec d;
    if ((rc = gd_cmd_open(&d, &o))) return rc;
    struct gd_sink sink;
    if ((rc = gd_sink_open(&sink, NULL, o.file))) {
        gd_dec_close(&d);
        return rc;
    }
    struct gd_tev ev;
    struct gd_stack_text text = {0};
    while (!sink.out.err && (rc = gd_dec_next(&d, &ev)) > 0)
        event(&sink.out, &d.gen, &ev, o.stacks ? &text : NULL);
    gd_stack_text_free(&text);
    /* The events before the damage are written, then the error (a write error wins). */
    int wrc = gd_sink_close(&sink, 1);
    rc = rc < 0 ? gd_cmd_fail(&d, &o) : GD_EXIT_OK;
    gd_dec_close(&d);
    return wrc ? wrc : rc;
}
