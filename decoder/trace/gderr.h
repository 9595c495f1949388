/* gderr.h: the decoder's error record.
 * Invariants: an error names where it happened (generation, thread, event, byte offset) when
 * known; fields that are unknown are flagged off and left out of the message. A bad trace and
 * an unreadable file are told apart by io, because they exit differently (1 and 3).
 * The record is a plain value: the reader copies it to defer an error (reader.h), so it holds
 * no pointer but ev, which points at static strings (event names, fixed labels). */
#ifndef GOTRACE_DECODER_GDERR_H
#define GOTRACE_DECODER_GDERR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GD_NONE UINT64_MAX /* no thread / proc / goroutine: Go's NoThread etc. on the wire */

struct gd_err {
    char msg[512]; /* the message proper, Go's wording where Go has one; truncated if longer */
    uint64_t gen, m;
    const char *ev;     /* event name or NULL */
    int64_t off;        /* byte offset or -1 */
    int has_gen, has_m; /* m is known (it may be GD_NONE: printed "thread none") */
    int io;             /* errno when the file could not be read (not a bad trace), else 0 */
};

/* Sets err's message (printf-style) and location. gen 0 and off -1 mean unknown. */
void gd_errf(struct gd_err *err, uint64_t gen, int has_m, uint64_t m, const char *ev, int64_t off,
             const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Sets only err's message (the caller adds the location); returns -1. */
int gd_fail(struct gd_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records a failed read (errno e) of the trace at byte offset off. */
void gd_err_io(struct gd_err *err, int e, int64_t off);
/* Prints "gotrace: FILE: generation G, thread M, event E at byte offset O: message", or for a
 * failed read "gotrace: FILE: cannot read (at byte offset O): strerror". */
void gd_err_print(const struct gd_err *err, const char *file, FILE *to);

#endif
