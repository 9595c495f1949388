/* out.h: one big buffered output stream (stdout or a file) for the commands.
 * Invariants: nothing is written to the descriptor until the buffer is full or flushed; a
 * write error is remembered and reported by gd_out_flush. Number formatting avoids printf. */
#ifndef GOTRACE_DECODER_OUT_H
#define GOTRACE_DECODER_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct gd_out {
    int fd;
    char *buf;
    size_t len, cap;
    int err;
};

int gd_out_init(struct gd_out *o, int fd);
/* Writes out what is buffered; returns 0 or -1 if any write failed. */
int gd_out_flush(struct gd_out *o);
void gd_out_free(struct gd_out *o);
/* Writes the buffer out (callers never write more than the buffer at once). */
void gd_out_spill(struct gd_out *o);
void gd_out_f(struct gd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gd_out_u(struct gd_out *o, uint64_t v);
void gd_out_i(struct gd_out *o, int64_t v);
/* JSON string body (no quotes) with escapes. */
void gd_out_json(struct gd_out *o, const char *s, size_t n);

static inline void gd_out_n(struct gd_out *o, const char *s, size_t n)
{
    if (o->len + n > o->cap) gd_out_spill(o);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}
static inline void gd_out_s(struct gd_out *o, const char *s)
{
    gd_out_n(o, s, strlen(s));
}
static inline void gd_out_c(struct gd_out *o, char c)
{
    if (o->len + 1 > o->cap) gd_out_spill(o);
    o->buf[o->len++] = c;
}

#endif
