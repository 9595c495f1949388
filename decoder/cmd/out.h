/* out.h: one big buffered output stream (stdout or a file) for the commands.
 * dump prints hundreds of millions of numbers for a large trace: output is one 1 MiB buffer
 * written with write(2) (no stdio locking or per-call flushing), and the hot helpers (gd_out_n,
 * gd_out_s, gd_out_c) are inline; gd_out_u formats without printf.
 * Invariants: nothing is written to the descriptor until the buffer is full or flushed; the
 * first write error is remembered (err), everything written after it is dropped, and
 * gd_out_flush reports it, so a command checks once at its end instead of after every write
 * (sink.c turns it into status 3); a single write call is never larger than the buffer. */
#ifndef GOTRACE_DECODER_OUT_H
#define GOTRACE_DECODER_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct gd_out {
    int fd;
    char *buf;
    size_t len, cap; /* bytes buffered, buffer size */
    int err;         /* errno of the first failed write (EIO for a write of 0 bytes), 0 none */
};

/* Writes n bytes of p to fd whole, in as many writes as the kernel wants (one write moves at
 * most about 2 GiB; a signal may cut it short); 0, or the errno of the first failed write
 * (EIO for a write of 0 bytes, which would loop forever). */
int gd_write_full(int fd, const void *p, size_t n);
/* Sets o up to write to fd (not owned: the caller closes it); 0, or -1 when out of memory. */
int gd_out_init(struct gd_out *o, int fd);
/* Writes out what is buffered; returns 0 or -1 if any write failed. */
int gd_out_flush(struct gd_out *o);
/* Frees the buffer without writing it (call gd_out_flush first to keep its content). */
void gd_out_free(struct gd_out *o);
/* Writes the buffer out to make room (callers never write more than the buffer at once). */
void gd_out_spill(struct gd_out *o);
/* printf-style text; one call writes at most 4095 bytes (the rest is cut). */
void gd_out_f(struct gd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Decimal integers, without printf. */
void gd_out_u(struct gd_out *o, uint64_t v);
void gd_out_i(struct gd_out *o, int64_t v);
/* JSON string body (no quotes) with escapes: valid JSON and valid UTF-8 whatever s holds
 * (well-formed UTF-8 passes, other bytes >= 0x80 become U+FFFD); html: '<', '>' and '&'
 * escaped too, for JSON inside an HTML <script> element. */
void gd_out_json(struct gd_out *o, const char *s, size_t n, int html);

/* n bytes of s (n at most the buffer's size), the C string s, the character c. */
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
