/* evspec.h: the Go 1.22/1.23 event table (names, arguments, which arguments are stack or
 * string ids), mirroring src/internal/trace/event/go122/event.go. Go 1.22 and 1.23 traces share
 * it: 1.23 only added types (GoSwitch, GoCreateBlocked, GoStatusStack, the experiments).
 * Invariants: indexed by event type; types without a name are invalid; args exclude dt, so
 * argument i here is Go's Args[i+1] and Go's 1-based StackIDs/StringIDs are one higher. */
#ifndef GOTRACE_DECODER_EVSPEC_H
#define GOTRACE_DECODER_EVSPEC_H

#include <stdint.h>

#define GD_NSPECS 137 /* types 0..136; 136 is the last experimental (AllocFree) event */
#define GD_MAX_ARGS 4
#define GD_EV_SYNC 255 /* synthetic: end of a generation (Go's evSync, never on the wire) */
/* GO_EV_CPU_SAMPLE, emitted as a timed event: samples come from their own batches with
 * absolute times, not from a thread's stream, and decode.c merges them by time (Go: the
 * StackSample event kind). */
#define GD_EV_CPU 7

struct gd_evspec {
    const char *name;
    uint8_t nargs, timed; /* timed: begins with dt, may appear in an event batch */
    /* Arg indices holding stack ids, checked in this order; the first is the event's own stack
     * (Go's Event.Stack), so GoCreate lists its stack before the new goroutine's. */
    uint8_t nstk, stk[2];
    uint8_t nstr, str[2];          /* arg indices holding string ids */
    const char *argn[GD_MAX_ARGS]; /* argument names, for messages and the dump */
};

extern const struct gd_evspec gd_specs[GD_NSPECS];

/* The event's name, "Sync" for GD_EV_SYNC, or "Invalid". */
const char *gd_ev_name(unsigned typ);

#endif
