/* event.c: Go 1.23 wire encoding. See event.h for the invariants. */
#include "event.h"

#include "go_wire.h"

size_t ev_uvarint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t ev_get_uvarint(const uint8_t *p, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < n && i < GO_MAX_UVARINT_LEN; i++) {
        x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

size_t ev_batch_header(uint8_t *out, uint64_t gen, uint64_t m, uint64_t ts, uint64_t size)
{
    uint8_t *p = out;
    *p++ = GO_EV_EVENT_BATCH;
    p = ev_put_uvarint(p, gen);
    p = ev_put_uvarint(p, m);
    p = ev_put_uvarint(p, ts);
    p = ev_put_uvarint(p, size);
    return (size_t)(p - out);
}
