/* cmd_check.c: `gotrace check FILE` — full validation (format, ordering, state rules).
 * check has no rules of its own: the decoder's iterator (decode.h) applies Go's reader, its
 * ordering engine and its test validator to every event it yields, so reading the trace to its
 * end is the whole check, at the speed of the decoder and with its memory bound.
 * Invariants: the verdict is the iterator's: it accepts exactly when every event decodes,
 * orders and validates, so it agrees with gotracevalidate (test/decoder/mutate.py compares
 * them on thousands of damaged traces); a bad trace gets the decoder's located message (cli.c)
 * and status 1, an unreadable one status 3; the verdict goes through sink.c, so a verdict that
 * could not be written is status 3, not a silent success. */
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

/* What the verdict line needs (gd_sink_write's fill takes one context pointer). */
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
    while ((rc = gd_dec_next(&d, &ev)) > 0) /* each call checks its event; nothing to add */
        ;
    if (rc < 0) {
        rc = gd_cmd_fail(&d, &o);
    } else {
        /* Go's quirk, reproduced on purpose (docs/decoder.md, check): a table or frequency
         * batch that ends exactly where an entry should start reads in Go as a clean end of
         * the trace, dropping that generation. The verdict must agree with Go's (valid), but
         * the dropped generation deserves a word, with the place Go stopped at. */
        if (d.rd.has_go_eof) {
            fputs("gotrace: warning: the trace ends early; Go's reader also stops here:\n", stderr);
            gd_err_print(&d.rd.go_eof, o.file, stderr);
        }
        rc = verdict(&o, &d);
    }
    gd_dec_close(&d);
    return rc;
}
