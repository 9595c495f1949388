/* decode.h: the event iterator every command uses: reader -> per-thread cursors merged by
 * time -> ordering engine -> table-id checks -> monotonic time -> validator.
 * Invariants: events come out in Go's global order with strictly increasing times; only the
 * current generation is in memory; after an error no further events are produced. A Sync
 * event (GD_EV_SYNC) closes every generation. */
#ifndef GOTRACE_DECODER_DECODE_H
#define GOTRACE_DECODER_DECODE_H

#include "order.h"
#include "reader.h"
#include "validate.h"

struct gd_cursor {
    uint64_t m;
    size_t bi, bend; /* range in gd_dec.bidx */
    size_t off;      /* offset in the current batch */
    int64_t last_ts;
    struct gd_tev ev;
};

struct gd_dec {
    struct gd_reader rd;
    struct gd_gen gen;
    struct gd_order ord;
    struct gd_valid val;
    uint32_t *bidx;
    size_t bidxcap;
    struct gd_cursor *curs;
    size_t curcap;
    struct gd_cursor **front;
    size_t nfront, frontcap;
    size_t cpu_i;
    int emitted_sync, failed;
    int64_t last_ts;
    uint64_t nevents, ngens;
    struct gd_err err;
};

#define GD_DEFAULT_MAX_GEN_MEM ((size_t)1 << 30)

/* Opens path; on failure returns -1 with d->err set. */
int gd_dec_open(struct gd_dec *d, const char *path, size_t max_gen_mem);
int gd_dec_fdopen(struct gd_dec *d, int fd, size_t max_gen_mem);
void gd_dec_close(struct gd_dec *d);
/* Next event: 1, 0 at the end, -1 on a bad trace (d->err says where and why). */
int gd_dec_next(struct gd_dec *d, struct gd_tev *ev);

#endif
