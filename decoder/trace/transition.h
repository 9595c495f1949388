/* transition.h: the state-transition view of an ordered event (Go's internal/trace
 * StateTransition): which goroutine or proc it moves, from which state to which, with the
 * stack and reason of the move. The validator checks these moves; the analyses (per-goroutine
 * intervals, the report) are built from them, so all three read an event's effect one way.
 * Invariants: every event that changes a G or P state has exactly one transition, the others
 * none (TR_NONE); a status event's old state is the one the ordering engine found before it
 * (ev->extra), its new state the one it declares; a creation starts from GS_NOTEXIST. */
#ifndef GOTRACE_DECODER_TRANSITION_H
#define GOTRACE_DECODER_TRANSITION_H

#include "order.h"

#include <stdint.h>

enum { TR_NONE, TR_G, TR_P }; /* what moves: nothing, a goroutine, a proc */

struct gd_trans {
    int kind;
    uint64_t id;      /* the goroutine or proc that moves (not always the event's context) */
    uint8_t old, new; /* GS_* or PS_* */
    uint64_t stack;   /* stack id of the transition (0 = none) */
    uint64_t reason;  /* string id of the reason (GoStop/GoBlock), else 0 */
};

/* Fills t for state-transition events and returns 1; returns 0 (t->kind = TR_NONE) for the
 * others. ev must come from the ordering engine: it reads the old states order.c smuggled into
 * ev->extra and the context (ev->g, ev->p) order.c attached. */
int gd_transition(const struct gd_tev *ev, struct gd_trans *t);

#endif
