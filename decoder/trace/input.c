/* input.c: buffered reads from a descriptor (see input.h for the invariants). */
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
