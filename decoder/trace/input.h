/* input.h: buffered sequential byte input from a file descriptor, with the absolute offset, and
 * the uvarint decoding every layer above uses (in a stream and in memory).
 * Invariants: reads never block on more than one refill; off is the offset of the next byte;
 * uvarints follow Go's encoding/binary rules (at most 10 bytes, the 10th at most 1), so a value
 * Go's reader refuses as an overflow is refused here too, and zero-padded encodings (a size
 * field the writer reserved with a fixed width) are accepted as Go accepts them.
 * A failed read looks like the end of input to the callers; it is kept in ioerr so that the
 * decoder reports an unreadable file, not a truncated trace (decode.c's read_failed). */
#ifndef GOTRACE_DECODER_INPUT_H
#define GOTRACE_DECODER_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct gd_in {
    int fd;
    uint8_t *buf;
    size_t pos, len, cap; /* next byte buf[pos], valid bytes buf[0..len), buffer size cap */
    int64_t off;          /* absolute offset of buf[pos] */
    int ioerr;            /* errno of a failed read, or 0 */
};

/* Results of a uvarint read. EOF (no byte at all) and SHORT (cut inside the varint) are kept
 * apart because Go's reader treats them differently: io.EOF where a value should start ends a
 * table batch as if the file had ended (reader.c, GO_EOF), io.ErrUnexpectedEOF is an error. */
enum { GD_UV_OK = 0, GD_UV_EOF = 1, GD_UV_SHORT = 2, GD_UV_OVERFLOW = 3 };

/* Reads fd (not taken over: the caller closes it) through a 1 MiB buffer; 0, or -1 when the
 * buffer cannot be allocated. */
int gd_in_init(struct gd_in *in, int fd);
/* Frees the buffer; the descriptor stays open. */
void gd_in_free(struct gd_in *in);
/* Next byte, or -1 at end of input. */
int gd_in_byte(struct gd_in *in);
/* Reads a uvarint; returns GD_UV_*. EOF means no byte was available. */
int gd_in_uvarint(struct gd_in *in, uint64_t *v);
/* Copies up to n bytes into dst; returns the number copied (less only at end of input). */
size_t gd_in_read(struct gd_in *in, uint8_t *dst, size_t n);

/* Decodes a uvarint from p[0..len); returns bytes used, 0 if too short, -1 on overflow: Go's
 * binary.Uvarint, for payloads already in memory (event arguments, table entries). */
static inline int gd_uvarint(const uint8_t *p, size_t len, uint64_t *v)
{
    uint64_t x = 0;
    unsigned s = 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t b = p[i];
        if (i == 9 && b > 1) return -1;
        if (b < 0x80) {
            *v = x | (uint64_t)b << s;
            return (int)i + 1;
        }
        x |= (uint64_t)(b & 0x7f) << s;
        s += 7;
        if (i == 9) return -1;
    }
    return 0;
}

#endif
