/* event.h: the Go 1.23 wire encoding: unsigned LEB128 varints, timed events and batch headers.
 * Invariants: pure functions on caller-provided memory; no state, no allocation; an encoded
 * event never exceeds GT_EV_MAX bytes, so a writer that keeps that much room never overflows. */
#ifndef GOTRACE_EVENT_H
#define GOTRACE_EVENT_H
#include <stddef.h>
#include <stdint.h>

#define GT_EV_MAX_ARGS 5
/* type + dt + args, each varint at most 10 bytes */
#define GT_EV_MAX (1 + 10 * (1 + GT_EV_MAX_ARGS))
/* type + gen + m + ts + size */
#define GT_BATCH_HEADER_MAX (1 + 4 * 10)

static inline uint8_t *ev_put_uvarint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

size_t ev_uvarint_len(uint64_t v);
/* Decodes a varint from p[0..n); returns bytes consumed, 0 if truncated or over 10 bytes. */
size_t ev_get_uvarint(const uint8_t *p, size_t n, uint64_t *v);
/* Encodes a timed event: type, dt, args. Returns the end of the written bytes. Inline: it is
 * the writers' hot path. */
static inline uint8_t *ev_encode(uint8_t *p, uint8_t type, uint64_t dt, int nargs,
                                 const uint64_t *args)
{
    *p++ = type;
    p = ev_put_uvarint(p, dt);
#pragma GCC unroll 8
    for (int i = 0; i < nargs; i++)
        p = ev_put_uvarint(p, args[i]);
    return p;
}
/* Encodes an EventBatch header for a payload of size bytes; returns its length. */
size_t ev_batch_header(uint8_t *out, uint64_t gen, uint64_t m, uint64_t ts, uint64_t size);
#endif
