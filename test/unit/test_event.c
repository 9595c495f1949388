/* test_event.c: the wire encoding: uvarints, events, batch headers. */
#include "event.h"
#include "go_wire.h"

#include <criterion/criterion.h>
#include <string.h>

static const uint64_t samples[] = {0, 1, 127, 128, 255, 300, 16383, 16384, 1ull << 32,
                                   (1ull << 63) - 1, 1ull << 63, UINT64_MAX};

Test(uvarint, round_trips_and_lengths)
{
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        uint8_t buf[16];
        size_t n = (size_t)(ev_put_uvarint(buf, samples[i]) - buf);
        cr_assert_eq(n, ev_uvarint_len(samples[i]), "length of %llu", (unsigned long long)samples[i]);
        uint64_t v = 0;
        cr_assert_eq(ev_get_uvarint(buf, n, &v), n);
        cr_assert_eq(v, samples[i]);
        for (size_t k = 0; k + 1 < n; k++) cr_assert(buf[k] & 0x80, "continuation bit");
        cr_assert_eq(buf[n - 1] & 0x80, 0);
    }
    cr_assert_eq(ev_uvarint_len(UINT64_MAX), 10);
}

Test(uvarint, known_bytes)
{
    uint8_t buf[4];
    cr_assert_eq(ev_put_uvarint(buf, 300) - buf, 2);
    cr_assert_eq(buf[0], 0xac);
    cr_assert_eq(buf[1], 0x02);
}

Test(uvarint, padded_and_truncated)
{
    uint64_t v;
    const uint8_t padded[] = {0x85, 0x80, 0x00}; /* 5 with a zero-padded width of 3 */
    cr_assert_eq(ev_get_uvarint(padded, 3, &v), 3);
    cr_assert_eq(v, 5);
    const uint8_t cut[] = {0x85, 0x80};
    cr_assert_eq(ev_get_uvarint(cut, 2, &v), 0);
    uint8_t eleven[11];
    memset(eleven, 0x80, sizeof eleven);
    cr_assert_eq(ev_get_uvarint(eleven, sizeof eleven, &v), 0, "over 10 bytes is rejected");
}

Test(event, encodes_type_dt_args)
{
    uint8_t buf[GT_EV_MAX];
    uint64_t args[] = {7, 200, 0};
    uint8_t *end = ev_encode(buf, GO_EV_GO_CREATE, 129, 3, args);
    const uint8_t want[] = {GO_EV_GO_CREATE, 0x81, 0x01, 7, 0xc8, 0x01, 0};
    cr_assert_eq(end - buf, (long)sizeof want);
    cr_assert_arr_eq(buf, want, sizeof want);
}

Test(event, worst_case_fits_the_bound)
{
    uint8_t buf[GT_EV_MAX + 8];
    uint64_t args[GT_EV_MAX_ARGS];
    for (int i = 0; i < GT_EV_MAX_ARGS; i++) args[i] = UINT64_MAX;
    uint8_t *end = ev_encode(buf, GO_EV_USER_LOG, UINT64_MAX, GT_EV_MAX_ARGS, args);
    cr_assert_eq(end - buf, GT_EV_MAX);
}

Test(batch, header_layout)
{
    uint8_t buf[GT_BATCH_HEADER_MAX];
    size_t n = ev_batch_header(buf, 3, GO_NO_THREAD, 1000, 65536);
    size_t off = 0;
    uint64_t v;
    cr_assert_eq(buf[off++], GO_EV_EVENT_BATCH);
    off += ev_get_uvarint(buf + off, n - off, &v);
    cr_assert_eq(v, 3);
    size_t k = ev_get_uvarint(buf + off, n - off, &v);
    cr_assert_eq(k, 10, "no thread is 2^64-1: ten bytes");
    cr_assert_eq(v, GO_NO_THREAD);
    off += k;
    off += ev_get_uvarint(buf + off, n - off, &v);
    cr_assert_eq(v, 1000);
    off += ev_get_uvarint(buf + off, n - off, &v);
    cr_assert_eq(v, 65536);
    cr_assert_eq(off, n);
}
