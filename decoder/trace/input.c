/* input.c: buffered reads from a descriptor (see input.h for the invariants).
 * One buffer of GD_IN_BUF bytes, refilled by read(2) only when empty: multi-GB traces are read
 * in few system calls, and every byte read is counted in off, so errors can name the byte
 * offset of the damage. Nothing here knows about batches or generations. */
#include "input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GD_IN_BUF (1u << 20)

int gd_in_init(struct gd_in *in, int fd)
{
    memset(in, 0, sizeof(*in));
    in->fd = fd;
    in->buf = malloc(GD_IN_BUF);
    in->cap = GD_IN_BUF;
    return in->buf ? 0 : -1;
}

void gd_in_free(struct gd_in *in)
{
    free(in->buf);
    in->buf = NULL;
}

/* Makes at least one byte available: 1, or 0 at end of input or on a read error (ioerr set).
 * A read interrupted by a signal (EINTR) is retried: it is not the end of the trace. */
static int refill(struct gd_in *in)
{
    if (in->pos < in->len) return 1;
    in->pos = in->len = 0;
    for (;;) {
        ssize_t n = read(in->fd, in->buf, in->cap);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) in->ioerr = errno;
        if (n <= 0) return 0;
        in->len = (size_t)n;
        return 1;
    }
}

int gd_in_byte(struct gd_in *in)
{
    if (in->pos >= in->len && !refill(in)) return -1;
    in->off++;
    return in->buf[in->pos++];
}

/* Go's binary.ReadUvarint on a byte reader: the 10th byte may only carry the 64th bit (0 or 1);
 * anything more overflows 64 bits and is refused, as Go does, rather than silently truncated. */
int gd_in_uvarint(struct gd_in *in, uint64_t *v)
{
    uint64_t x = 0;
    unsigned s = 0;
    for (int i = 0;; i++) {
        int b = gd_in_byte(in);
        if (b < 0) return i == 0 ? GD_UV_EOF : GD_UV_SHORT;
        if (i == 9 && b > 1) return GD_UV_OVERFLOW;
        if (b < 0x80) {
            *v = x | (uint64_t)b << s;
            return GD_UV_OK;
        }
        x |= (uint64_t)(b & 0x7f) << s;
        s += 7;
    }
}

/* Copies from the buffer, refilling as often as needed: a 64 KiB batch payload may straddle a
 * refill. A short count means end of input (or a read error, see ioerr). */
size_t gd_in_read(struct gd_in *in, uint8_t *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (in->pos >= in->len && !refill(in)) break;
        size_t k = in->len - in->pos;
        if (k > n - got) k = n - got;
        memcpy(dst + got, in->buf + in->pos, k);
        in->pos += k;
        in->off += (int64_t)k;
        got += k;
    }
    return got;
}
