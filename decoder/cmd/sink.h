/* sink.h: where a command's output goes: stdout, or a named file that is written whole or not
 * at all.
 * Invariants: a named regular file is written to a temporary file next to it and renamed into
 * place only by gd_sink_close(ok = 1) after every byte was written; a failed command leaves the
 * old file (or none) and no temporary file; the output is never the input trace (the same file,
 * also through a symbolic or hard link); devices and FIFOs are written directly; every failed
 * write or rename is reported with its own message and GD_EXIT_IO. */
#ifndef GOTRACE_DECODER_SINK_H
#define GOTRACE_DECODER_SINK_H

#include "out.h"

/* Between gd_sink_open and gd_sink_close the command writes to out (export keeps a copy of it
 * in its own state and hands it back before closing). */
struct gd_sink {
    struct gd_out out;
    const char *name; /* the path as given, or "standard output": for messages */
    char *dest, *tmp; /* the final path and the temporary file; NULL when written directly */
};

/* Opens path (NULL or "-": stdout) for the output of a command reading input ("-": stdin).
 * Returns 0, or after a message GD_EXIT_USAGE (path is the input) or GD_EXIT_IO. */
int gd_sink_open(struct gd_sink *s, const char *path, const char *input);
/* Ends the output. ok: writes out the rest and puts the file in place; returns 0, or
 * GD_EXIT_IO after a message. !ok (the command failed): removes the temporary file (stdout
 * keeps what was written so far) and returns 0. */
int gd_sink_close(struct gd_sink *s, int ok);
/* gd_sink_open, fill(out, ctx) (0 = all written, else the command failed), gd_sink_close:
 * the exit status (0, GD_EXIT_USAGE or GD_EXIT_IO after a message, or fill's failure). */
int gd_sink_write(const char *path, const char *input, int (*fill)(struct gd_out *o, void *ctx),
                  void *ctx);

#endif
