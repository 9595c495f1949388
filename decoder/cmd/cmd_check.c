/* cmd_check.c: `gotrace check FILE` — full validation (format, ordering, state rules).
 * Invariant: the verdict is the iterator's: it accepts exactly when every event decodes,
 * orders and validates. */
#include "cli.h"
#include "cmds.h"
#include "sink.h"

#include <stdio.h>

static const char usage[] =
    "usage: gotrace check [--max-gen-mem BYTES] FILE\n"
    "\n"
    "Validates FILE with the rules of Go's trace parser and validator: batch and generation\n"
    "structure, string and stack tables, per-thread streams merged by time and sequence\n"
    "numbers, and every goroutine/proc state transition. Prints a one-line verdict.\n"
    "Exit status: 0 valid, 1 invalid (the error names generation, thread, event, offset),\n"
    "3 FILE cannot be read or the verdict cannot be written.\n";

struct checked {
    const struct gd_cmd_opts *o;
    const struct gd_dec *d;
};

static int verdict_line(struct gd_out *out, void *ctx)
{
    const struct checked *c = ctx;
    gd_out_f(out, "%s: valid: %llu generations, %llu events\n", c->o->file,
             (unsigned long long)c->d->ngens, (unsigned long long)c->d->nevents);
    return 0;
}

/* Writes the verdict line; the exit status. */
static int verdict(const struct gd_cmd_opts *o, const struct gd_dec *d)
{
    struct checked c = {o, d};
    return gd_sink_write(NULL, o->file, verdict_line, &c);
}

int gd_cmd_check(int argc, char **argv)
{
    struct gd_cmd_opts o;
    int rc = gd_cmd_parse(argc, argv, "", usage, &o);
    if (rc) return rc < 0 ? GD_EXIT_OK : rc;
    struct gd_dec d;
    if ((rc = gd_cmd_open(&d, &o))) return rc;
    struct gd_tev ev;
    while ((rc = gd_dec_next(&d, &ev)) > 0)
        ;
    if (rc < 0) {
        rc = gd_cmd_fail(&d, &o);
    } else {
        if (d.rd.has_go_eof) {
            fputs("gotrace: warning: the trace ends early; Go's reader also stops here:\n", stderr);
            gd_err_print(&d.rd.go_eof, o.file, stderr);
        }
        rc = verdict(&o, &d);
    }
    gd_dec_close(&d);
    return rc;
}
