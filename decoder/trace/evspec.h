/* evspec.h: the Go 1.22/1.23 event table (names, arguments, which arguments are stack or
 * string ids), mirroring src/internal/trace/event/go122/event.go.
 * Invariants: indexed by event type; types without a name are invalid; args exclude dt. */
#ifndef GOTRACE_DECODER_EVSPEC_H
#define GOTRACE_DECODER_EVSPEC_H

#include <stdint.h>

#define GD_NSPECS 137
#define GD_MAX_ARGS 4
#define GD_EV_SYNC 255 /* synthetic: end of a generation */
#define GD_EV_CPU 7    /* GO_EV_CPU_SAMPLE, emitted as a timed event */

struct gd_evspec {
    const char *name;
    uint8_t nargs, timed;
    uint8_t nstk, stk[2]; /* arg indices holding stack ids, checked in this order */
    uint8_t nstr, str[2]; /* arg indices holding string ids */
    const char *argn[GD_MAX_ARGS];
};

extern const struct gd_evspec gd_specs[GD_NSPECS];

/* The event's name, "Sync" for GD_EV_SYNC, or "Invalid". */
const char *gd_ev_name(unsigned typ);

#endif
