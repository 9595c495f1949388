/* gderr.c: the decoder's error record: setting and printing it (see gderr.h).
 * Errors are set deep in the reader, the ordering engine or the validator, where the location
 * may not be known (gd_fail), and completed by the caller that knows it; only the first error
 * is kept, since decoding stops there. */
#include "gderr.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Generation 0 never names a real generation (the reader refuses it, as Go does: the runtime
 * uses 0 as a sentinel), so gen 0 can stand for "unknown" without a separate flag. */
void gd_errf(struct gd_err *err, uint64_t gen, int has_m, uint64_t m, const char *ev, int64_t off,
             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    err->gen = gen;
    err->has_gen = gen != 0;
    err->m = m;
    err->has_m = has_m;
    err->ev = ev;
    err->off = off;
    err->io = 0;
}

void gd_err_io(struct gd_err *err, int e, int64_t off)
{
    gd_errf(err, 0, 0, 0, NULL, off, "%s", strerror(e));
    err->io = e;
}

/* The location is built piece by piece into loc; snprintf returns the length it wanted, so n
 * may pass the buffer's size, and each later piece is written only while room is left. The
 * separator after the last piece (", " or " ") is trimmed before ": message". */
void gd_err_print(const struct gd_err *err, const char *file, FILE *to)
{
    if (err->io) {
        if (err->off > 0)
            fprintf(to, "gotrace: %s: cannot read at byte offset %lld: %s\n", file,
                    (long long)err->off, err->msg);
        else
            fprintf(to, "gotrace: %s: cannot read: %s\n", file, err->msg);
        return;
    }
    char loc[256];
    size_t n = 0;
    loc[0] = 0;
    if (err->has_gen)
        n += snprintf(loc + n, sizeof(loc) - n, "generation %llu, ", (unsigned long long)err->gen);
    if (err->has_m && err->m == GD_NONE)
        n += snprintf(loc + n, sizeof(loc) - n, "thread none, ");
    else if (err->has_m)
        n += snprintf(loc + n, sizeof(loc) - n, "thread %llu, ", (unsigned long long)err->m);
    if (err->ev && n < sizeof(loc)) n += snprintf(loc + n, sizeof(loc) - n, "event %s ", err->ev);
    if (err->off >= 0 && n < sizeof(loc))
        n += snprintf(loc + n, sizeof(loc) - n, "%sbyte offset %lld, ", err->ev ? "at " : "",
                      (long long)err->off);
    if (n >= sizeof(loc)) n = sizeof(loc) - 1;
    while (n > 0 && (loc[n - 1] == ' ' || loc[n - 1] == ','))
        loc[--n] = 0;
    fprintf(to, "gotrace: %s: %s%s%s\n", file, loc, n ? ": " : "", err->msg);
}

/* The location fields are left as they were: the caller (decode.c's at_event) sets them with
 * the event's generation, thread and offset, which the handler that failed does not know. */
int gd_fail(struct gd_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return -1;
}
