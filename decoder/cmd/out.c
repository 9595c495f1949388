/* out.c: buffered output (see out.h for why one buffer and no stdio).
 * Invariants: the buffer is empty after every write-out, written or not (a failed write drops
 * it: the output is lost anyway, and keeping it would make every later call retry); nothing
 * here allocates after gd_out_init. */
#include "out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define GD_OUT_BUF (1u << 20) /* few system calls, and small beside a generation's memory */

int gd_out_init(struct gd_out *o, int fd)
{
    o->fd = fd;
    o->len = 0;
    o->err = 0;
    o->cap = GD_OUT_BUF;
    o->buf = malloc(o->cap);
    return o->buf ? 0 : -1;
}

int gd_write_full(int fd, const void *p, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(fd, (const char *)p + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return k < 0 ? errno : EIO;
        done += (size_t)k;
    }
    return 0;
}

/* Writes the whole buffer, or up to the first error, which is kept in o->err (after which
 * nothing more is attempted: a full disk or a closed pipe does not get better). */
static void write_all(struct gd_out *o)
{
    if (!o->err) o->err = gd_write_full(o->fd, o->buf, o->len);
    o->len = 0;
}

void gd_out_spill(struct gd_out *o)
{
    write_all(o);
}

int gd_out_flush(struct gd_out *o)
{
    write_all(o);
    return o->err ? -1 : 0;
}

void gd_out_free(struct gd_out *o)
{
    free(o->buf);
    o->buf = NULL;
}

/* Formats into a stack buffer first: vsnprintf cannot write into o->buf without knowing the
 * length beforehand, and the callers' lines are short (a trace's strings are at most 1 KiB,
 * names at most GD_NAME_MAX), so the cut at 4095 bytes is never reached in practice. */
void gd_out_f(struct gd_out *o, const char *fmt, ...)
{
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0) return;
    gd_out_n(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Two digits per division, from a table of the pairs 00..99, written backwards into a
 * 24-byte buffer (2^64 has 20 digits): half the divisions of a digit-by-digit loop, which
 * matters to dump, whose output is mostly numbers. */
void gd_out_u(struct gd_out *o, uint64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                                "31323334353637383940414243444546474849505152535455565758596061"
                                "62636465666768697071727374757677787980818283848586878889909192"
                                "93949596979899";
    char tmp[24];
    int i = sizeof(tmp);
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        tmp[--i] = pairs[2 * r + 1];
        tmp[--i] = pairs[2 * r];
    }
    if (v >= 10) {
        tmp[--i] = pairs[2 * v + 1];
        tmp[--i] = pairs[2 * v];
    } else {
        tmp[--i] = (char)('0' + v);
    }
    gd_out_n(o, tmp + i, sizeof(tmp) - (size_t)i);
}

void gd_out_i(struct gd_out *o, int64_t v)
{
    if (v < 0) { /* negated as unsigned: -INT64_MIN overflows int64_t */
        gd_out_c(o, '-');
        gd_out_u(o, (uint64_t)0 - (uint64_t)v);
    } else {
        gd_out_u(o, (uint64_t)v);
    }
}

/* The length of the well-formed UTF-8 sequence at s[0] (of n bytes), from 2 to 4; 0 when there
 * is none (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] > 0xf4 || len == 0 || len > n) return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80) return 0;
    if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
    if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
    return len;
}

/* A trace's strings are bytes, not necessarily UTF-8 (Go does not check them), and the output
 * must parse whatever they hold. '"' and '\\' get a backslash and control characters become
 * \u00XX; a well-formed UTF-8 character passes as it is, so a thread named in another script
 * reads as named in Perfetto, `jq` or the report; a byte that starts no well-formed character
 * becomes U+FFFD (\ufffd), as a browser or a strict JSON reader would show it, so the output
 * is valid UTF-8 and valid JSON for any input. html: also '<', '>' and '&' as \u00XX, for JSON
 * inside an HTML <script> element (report_page.c): a string from the trace can then end neither
 * the element ("</script") nor start a comment ("<!--"); JSON.parse reads the same characters. */
void gd_out_json(struct gd_out *o, const char *s, size_t n, int html)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        size_t seq = c >= 0x80 ? utf8_seq(u + i, n - i) : 0;
        if (c == '"' || c == '\\') {
            gd_out_c(o, '\\');
            gd_out_c(o, (char)c);
        } else if (c < 0x20 || c == 0x7f || (html && (c == '<' || c == '>' || c == '&'))) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            gd_out_n(o, e, 6);
        } else if (c < 0x80) {
            gd_out_c(o, (char)c);
        } else if (seq) {
            gd_out_n(o, s + i, seq);
            i += seq - 1;
        } else {
            gd_out_s(o, "\\ufffd");
        }
    }
}
