/* regions.h: a thread's stack of open user regions (gotrace_region_begin/end), mirroring what
 * the trace holds, so that an end the program gets wrong never reaches the file (Go's reader
 * requires a region end to match the innermost open region of its goroutine).
 * Invariants: the stack holds exactly the regions whose begin was written and whose end was not,
 * innermost last; a begin that does not fit (GT_REGION_MAX open) is not written and only
 * counted in `lost`, and the next ends are charged to those lost begins first (not written
 * either). Owner thread only; no allocation, no locks. */
#ifndef GOTRACE_REGIONS_H
#define GOTRACE_REGIONS_H
#include <stdint.h>

#define GT_REGION_MAX 32

struct gt_regions {
    uint32_t depth; /* open regions written */
    uint32_t lost;  /* begins not written because the stack was full, not yet ended */
    struct {
        uint64_t task, name; /* name: string id */
    } open[GT_REGION_MAX];
};

enum region_end {
    REGION_END_MATCH,    /* ends the innermost open region: write it, then regions_pop */
    REGION_END_LOST,     /* ends a begin that was not written: write nothing (already counted) */
    REGION_END_MISMATCH, /* matches no open region: write nothing */
};

/* 1 if a new region fits (write its begin, then regions_push); 0: counted as lost. */
int regions_begin(struct gt_regions *rs);
void regions_push(struct gt_regions *rs, uint64_t task, uint64_t name);
/* Classifies an end; only REGION_END_LOST changes the stack (one lost begin fewer). */
enum region_end regions_end(struct gt_regions *rs, uint64_t task, uint64_t name);
void regions_pop(struct gt_regions *rs);
#endif
