/* cli.h: what every command shares: option helpers, opening a trace, reporting a bad trace,
 * and printing a stack text.
 * Invariants: exit status 0 ok, 1 bad trace, 2 bad usage, 3 input or output error. */
#ifndef GOTRACE_DECODER_CLI_H
#define GOTRACE_DECODER_CLI_H

#include "analysis.h"
#include "decode.h"
#include "exitcode.h"
#include "out.h"

struct gd_cmd_opts {
    const char *file;
    const char *out; /* -o */
    const char *format;
    size_t max_gen_mem;
    int stacks;
    long top;
    /* locks, critical-path, hangs (holders.h): --holders; the target (--thread NAME|G<id>,
     * --region NAME, --task ID) and times (ns from the trace's start; -1 when not given). */
    int holders;
    int order, holds; /* locks: --order (lock-order inversions), --holds (hold times) */
    const char *thread, *region;
    uint64_t task;
    int64_t from, to, at;
};

/* Parses the options shared by the commands (flags: "stacks", "top", "o", "format", "holders",
 * "order", "holds",
 * "thread", "region", "task", "from", "to", "at" allowed as listed in allowed,
 * comma-separated). Prints usage and returns GD_EXIT_USAGE on error, 0 ok,
 * or -1 after printing help. */
int gd_cmd_parse(int argc, char **argv, const char *allowed, const char *usage,
                 struct gd_cmd_opts *o);
/* Opens the trace or reports why not (returns gd_cmd_status). */
int gd_cmd_open(struct gd_dec *d, const struct gd_cmd_opts *o);
/* Reports d->err for o->file; returns GD_EXIT_IO for a failed read, else GD_EXIT_BAD_TRACE. */
int gd_cmd_fail(struct gd_dec *d, const struct gd_cmd_opts *o);
/* The exit status of the failure in d->err (GD_EXIT_IO or GD_EXIT_BAD_TRACE). */
int gd_cmd_status(const struct gd_dec *d);
/* A whole command on the holders analysis (locks, critical-path, hangs; summary, contention):
 * gd_cmd_parse, gd_cmd_open, the trace analysed into a struct hd (holders.h; flags:
 * GD_SYNC_INTERVALS keeps the intervals, GD_SYNC_HOLDERS_ONLY wants only holders; events up to --at
 * only when "at" is allowed), then write(out, o, s). */
struct hd;
enum { GD_SYNC_INTERVALS = 1, GD_SYNC_HOLDERS_ONLY = 2 };
int gd_cmd_sync_write(int argc, char **argv, const char *allowed, const char *usage, int flags,
                      int (*write)(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s));

/* The locks threads held when they exited at or before upto (ns, the trace's clock), from lock
 * tracking's records (lockgraph.h): a "held at thread exit: N" section, one line each with the
 * thread, when, the lock and the site that took it; nothing when there are none. */
void gd_out_lock_exits(struct gd_out *out, const struct hd *s, int64_t upto);

/* The words of `hangs` and of the report's Hangs section, for thread g of report r of s
 * (hangs.h), into buf (n bytes) or a constant: gd_hang_blocked, a blocked thread as its line
 * says it ("in a system call", "waiting on mutex m", "waiting (sleep)"); gd_hang_doing, what a
 * thread does at T ("running", "runnable", "in a system call (read)", "sleeping", "waiting on
 * mutex m", "exited at 21.30ms"); gd_hang_why, why a blocked thread may still move (HG_WHY_*;
 * "" for none). */
struct hg_report;
const char *gd_hang_blocked(const struct hd *s, const struct hg_report *r, uint32_t g, char *buf,
                            size_t n);
const char *gd_hang_doing(const struct hd *s, const struct hg_report *r, uint32_t g, char *buf,
                          size_t n);
const char *gd_hang_why(int why);
/* Who holds what blocked thread g waits on and what that holder does, as `hangs` says it under
 * the thread: "held by X, in a system call (read)", "held by X since T (Y released it then),
 * running", "held by X, exited at T holding it (deadlock)", or "holder: ..." (released and not
 * known to be taken since; unknown; none: a condvar, a semaphore). */
const char *gd_hang_holder(const struct hd *s, const struct hg_report *r, uint32_t g, char *buf,
                           size_t n);

/* Writes a stack text (stacktext.h), one frame a line after indent: its first max frames (0:
 * all); a text with no frames as indent "(no stack)" when no_stack, else as nothing. */
void gd_out_stack(struct gd_out *o, const char *text, const char *indent, unsigned max,
                  int no_stack);

#endif
