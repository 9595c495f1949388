/* validate.h: Go's trace validator (internal/trace/testtrace/validation.go) over ordered
 * events, plus the state-transition view of an event that the analyses share.
 * Invariants: a goroutine or proc executing is bound to exactly one thread; ranges are keyed by
 * (scope, name hash); the validator never allocates per event except for new resources. */
#ifndef GOTRACE_DECODER_VALIDATE_H
#define GOTRACE_DECODER_VALIDATE_H

#include "hmap.h"
#include "order.h"
#include "reader.h"

enum { TR_NONE, TR_G, TR_P };

struct gd_trans {
    int kind;
    uint64_t id;
    uint8_t old, new; /* GS_* or PS_* */
    uint64_t stack;   /* stack id of the transition (0 = none) */
    uint64_t reason;  /* string id of the reason (GoStop/GoBlock), else 0 */
};

/* Fills t for state-transition events; returns 0 (t->kind = TR_NONE) for the others. */
int gd_transition(const struct gd_tev *ev, struct gd_trans *t);

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
