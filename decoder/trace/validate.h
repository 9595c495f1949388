/* validate.h: Go's trace validator (internal/trace/testtrace/validation.go) over ordered
 * events (their state transitions: transition.h). The ordering engine accepts what the runtime
 * can write; the validator is Go's stricter second look at the result (gotracevalidate), and
 * `gotrace check` promises gotracevalidate's verdict, so both run on every event.
 * Invariants: a goroutine or proc executing is bound to exactly one thread; ranges are keyed by
 * (scope, name hash); the validator never allocates per event except for new resources. */
#ifndef GOTRACE_DECODER_VALIDATE_H
#define GOTRACE_DECODER_VALIDATE_H

#include "hmap.h"
#include "order.h"
#include "reader.h"
#include "transition.h"

/* A goroutine or proc as the validator sees it. */
struct gd_vres {
    uint8_t state, bound; /* state: GS_* or PS_*; bound: executing on thread bm */
    uint64_t bm;          /* thread the resource is bound to */
};

/* The ranges active on one resource: their names (hashes, see validate.c), in begin order. */
struct gd_vrl {
    uint64_t *names;
    uint32_t n, cap;
};

struct gd_valid {
    /* id -> index: goroutines and procs into res, threads into ms, the range lists of
     * goroutines and procs into rl (one map per kind: a goroutine and a proc may share an id) */
    struct gd_hmap gmap, pmap, mmap, grmap, prmap;
    struct gd_vres *res; /* Gs and Ps */
    size_t nres, rescap;
    struct {
        uint64_t g, p; /* executing on this thread, or GD_NONE */
    } * ms;
    size_t nms, mscap;
    struct gd_vrl *rl; /* range lists of Gs and Ps */
    size_t nrl, rlcap;
    struct gd_vrl global; /* ranges of no resource: the GC mark phase */
    int seen_sync;        /* past the first generation: nothing may be Undetermined any more */
};

/* An empty validator, before the first event. */
void gd_valid_init(struct gd_valid *v);
/* Frees its tables; v is then empty again. */
void gd_valid_free(struct gd_valid *v);
/* Checks one event, in the order the decoder returns them (after its table-id checks and time
 * fix-up): 0, or -1 with err->msg set (the location is left to the caller). */
int gd_valid_event(struct gd_valid *v, const struct gd_tev *ev, const struct gd_gen *g,
                   struct gd_err *err);

#endif
