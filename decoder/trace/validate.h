/* validate.h: Go's trace validator (internal/trace/testtrace/validation.go) over ordered
 * events (their state transitions: transition.h).
 * Invariants: a goroutine or proc executing is bound to exactly one thread; ranges are keyed by
 * (scope, name hash); the validator never allocates per event except for new resources. */
#ifndef GOTRACE_DECODER_VALIDATE_H
#define GOTRACE_DECODER_VALIDATE_H

#include "hmap.h"
#include "order.h"
#include "reader.h"
#include "transition.h"

struct gd_vres {
    uint8_t state, bound;
    uint64_t bm; /* thread the resource is bound to */
};

struct gd_vrl {
    uint64_t *names;
    uint32_t n, cap;
};

struct gd_valid {
    struct gd_hmap gmap, pmap, mmap, grmap, prmap;
    struct gd_vres *res; /* Gs and Ps */
    size_t nres, rescap;
    struct {
        uint64_t g, p;
    } * ms;
    size_t nms, mscap;
    struct gd_vrl *rl; /* range lists of Gs and Ps */
    size_t nrl, rlcap;
    struct gd_vrl global;
    int seen_sync;
};

void gd_valid_init(struct gd_valid *v);
void gd_valid_free(struct gd_valid *v);
/* Checks one event; 0 or -1 with err->msg set. */
int gd_valid_event(struct gd_valid *v, const struct gd_tev *ev, const struct gd_gen *g,
                   struct gd_err *err);

#endif
