/* decode.h: the event iterator every command uses: reader -> per-thread cursors merged by
 * time -> ordering engine -> table-id checks -> monotonic time -> validator (Go's reader.go
 * ReadEvent, with gotracevalidate's checks run on each event as it comes out).
 * Invariants: events come out in Go's global order with strictly increasing times; only the
 * current generation is in memory; after an error no further events are produced. A Sync
 * event (GD_EV_SYNC) closes every generation. */
#ifndef GOTRACE_DECODER_DECODE_H
#define GOTRACE_DECODER_DECODE_H

#include "order.h"
#include "reader.h"
#include "validate.h"

/* One thread's stream in the current generation (Go's batchCursor): its batches, in file
 * order, and the next event, decoded but not yet accepted by the ordering engine. */
struct gd_cursor {
    uint64_t m;
    size_t bi, bend; /* range in gd_dec.bidx */
    size_t off;      /* offset in the current batch */
    int64_t last_ts; /* time of the previous event in the batch, ns; 0: start from the batch's */
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
    /* The frontier: the cursors that have an event left, a min-heap on that event's time;
     * the array has room for as many again, the scratch of sort_front. */
    struct gd_cursor **front;
    size_t nfront, frontcap;
    size_t cpu_i; /* next CPU sample of the generation (gen.cpu) */
    /* emitted_sync: the Sync closing the generation was returned (set at first, so no Sync
     * precedes the first generation); failed: an error was returned, later calls return -1 */
    int emitted_sync, failed;
    int64_t last_ts; /* time of the last event returned, for the strictly increasing times */
    uint64_t nevents, ngens;
    struct gd_err err;
};

#define GD_DEFAULT_MAX_GEN_MEM ((size_t)1 << 30)

/* Opens path ("-" = stdin) and reads the trace's header; on failure returns -1 with d->err
 * set (d->err.io for a file that cannot be read). d must be closed either way. */
int gd_dec_open(struct gd_dec *d, const char *path, size_t max_gen_mem);
/* gd_dec_open on an open descriptor, which d then owns. */
int gd_dec_fdopen(struct gd_dec *d, int fd, size_t max_gen_mem);
/* Frees everything and closes the file. */
void gd_dec_close(struct gd_dec *d);
/* Next event: 1, 0 at the end, -1 on a bad trace (d->err says where and why). A failed read of
 * the file is reported as such (d->err.io), never as the damage it would look like. ev's
 * strings (xname) are valid until the next call. */
int gd_dec_next(struct gd_dec *d, struct gd_tev *ev);

#endif
