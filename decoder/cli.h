/* cli.h: what every command shares: option helpers, opening a trace, reporting a bad trace,
 * and resolving strings and stack frames of the current generation.
 * Invariants: exit status 0 ok, 1 bad trace, 2 bad usage, 3 input or output error. */
#ifndef GOTRACE_DECODER_CLI_H
#define GOTRACE_DECODER_CLI_H

#include "analysis.h"
#include "decode.h"
#include "out.h"

/* GD_EXIT_IO: the trace could not be read (missing, a directory, a read error) or the output
 * could not be written (full disk, closed pipe, ...): nothing is wrong with the trace. */
enum { GD_EXIT_OK = 0, GD_EXIT_BAD_TRACE = 1, GD_EXIT_USAGE = 2, GD_EXIT_IO = 3 };

struct gd_cmd_opts {
    const char *file;
    const char *out; /* -o */
    const char *format;
    size_t max_gen_mem;
    int stacks;
    long top;
    /* locks, critical-path, hangs (syncana.h): --holders; the target (--thread NAME|G<id>,
     * --region NAME, --task ID) and times (ns from the trace's start; -1 when not given). */
    int holders;
    const char *thread, *region;
    uint64_t task;
    int64_t from, to, at;
};

/* Parses the options shared by the commands (flags: "stacks", "top", "o", "format", "holders",
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
/* The start of the analysing commands (summary, contention): gd_cmd_parse, gd_cmd_open, then
 * the whole trace analysed into *a (no callbacks). Returns 1 with *a and *d ready (the caller
 * frees both), or 0 with *status the command's exit status (--help, bad usage, bad trace). */
int gd_cmd_analyse(int argc, char **argv, const char *allowed, const char *usage,
                   struct gd_cmd_opts *o, struct gd_dec *d, struct gd_ana *a, int *status);
/* What an analysing command writes from: its options, the decoder and the analysis. */
struct gd_analysed {
    struct gd_cmd_opts o;
    struct gd_dec d;
    struct gd_ana a;
};
/* A whole analysing command: gd_cmd_analyse, then write(out, x) to stdout (through sink.c;
 * write returns 0, or its exit status after a message), then frees it all. Its exit status. */
int gd_cmd_analyse_write(int argc, char **argv, const char *allowed, const char *usage,
                         int (*write)(struct gd_out *out, struct gd_analysed *x));

/* The same for the commands on syncana (locks, critical-path, hangs; summary, contention): the
 * trace analysed into a struct sa (syncana.h; flags: GD_SYNC_INTERVALS keeps the intervals,
 * GD_SYNC_HOLDERS_ONLY wants only holders; events up to --at only when "at" is allowed),
 * then write(out, o, s). */
struct sa;
enum { GD_SYNC_INTERVALS = 1, GD_SYNC_HOLDERS_ONLY = 2 };
int gd_cmd_sync_write(int argc, char **argv, const char *allowed, const char *usage, int flags,
                      int (*write)(struct gd_out *out, const struct gd_cmd_opts *o, struct sa *s));

/* A string of the current generation ("" when undefined). */
const char *gd_str(const struct gd_gen *g, uint64_t id, uint32_t *len);
/* Writes the frames of stk, one "\t\tfunc file:line" line each. */
void gd_out_stack(struct gd_out *o, const struct gd_gen *g, uint64_t stk, const char *indent);

#endif
