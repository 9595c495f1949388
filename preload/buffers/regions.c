/* regions.c: the per-thread stack of open user regions. See regions.h for the invariants. */
#include "regions.h"

int regions_begin(struct gt_regions *rs)
{
    if (rs->depth < GT_REGION_MAX && !rs->lost) return 1;
    rs->lost++; /* also once lost begins are open: their ends come first */
    return 0;
}

void regions_push(struct gt_regions *rs, uint64_t task, uint64_t name)
{
    rs->open[rs->depth].task = task;
    rs->open[rs->depth].name = name;
    rs->depth++;
}

enum region_end regions_end(struct gt_regions *rs, uint64_t task, uint64_t name)
{
    if (rs->lost) {
        rs->lost--;
        return REGION_END_LOST;
    }
    if (rs->depth && rs->open[rs->depth - 1].task == task && rs->open[rs->depth - 1].name == name)
        return REGION_END_MATCH;
    return REGION_END_MISMATCH;
}

void regions_pop(struct gt_regions *rs)
{
    rs->depth--;
}
