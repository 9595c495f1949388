/* test_regions.c: the per-thread region stack keeps exactly the written, not yet ended
 * regions: matching ends pop innermost first, mismatched ends change nothing, begins beyond
 * GT_REGION_MAX are lost and their ends are absorbed before any written region is ended. */
#include "regions.h"

#include <criterion/criterion.h>

static void begin(struct gt_regions *rs, uint64_t task, uint64_t name)
{
    cr_assert_eq(regions_begin(rs), 1);
    regions_push(rs, task, name);
}

Test(regions, nested_ends_match_innermost_first)
{
    struct gt_regions rs = {0};
    begin(&rs, 1, 10);
    begin(&rs, 1, 11);
    cr_assert_eq(regions_end(&rs, 1, 10), REGION_END_MISMATCH, "outer end while inner open");
    cr_assert_eq(rs.depth, 2);
    cr_assert_eq(regions_end(&rs, 1, 11), REGION_END_MATCH);
    regions_pop(&rs);
    cr_assert_eq(regions_end(&rs, 1, 10), REGION_END_MATCH);
    regions_pop(&rs);
    cr_assert_eq(rs.depth, 0);
}

Test(regions, task_and_name_both_count)
{
    struct gt_regions rs = {0};
    begin(&rs, 1, 10);
    cr_assert_eq(regions_end(&rs, 2, 10), REGION_END_MISMATCH, "other task");
    cr_assert_eq(regions_end(&rs, 1, 12), REGION_END_MISMATCH, "other name");
    cr_assert_eq(regions_end(&rs, 1, 10), REGION_END_MATCH);
}

Test(regions, end_with_nothing_open_is_a_mismatch)
{
    struct gt_regions rs = {0};
    cr_assert_eq(regions_end(&rs, 0, 0), REGION_END_MISMATCH);
    cr_assert_eq(rs.depth, 0);
    cr_assert_eq(rs.lost, 0);
}

Test(regions, overflow_is_lost_and_absorbed_first)
{
    struct gt_regions rs = {0};
    for (int i = 0; i < GT_REGION_MAX; i++)
        begin(&rs, 0, (uint64_t)i + 1);
    cr_assert_eq(regions_begin(&rs), 0, "full");
    cr_assert_eq(regions_begin(&rs), 0, "still full");
    cr_assert_eq(rs.lost, 2);
    cr_assert_eq(regions_end(&rs, 0, 999), REGION_END_LOST);
    cr_assert_eq(regions_end(&rs, 0, 999), REGION_END_LOST);
    cr_assert_eq(rs.lost, 0);
    cr_assert_eq(rs.depth, GT_REGION_MAX, "written regions untouched");
    cr_assert_eq(regions_end(&rs, 0, GT_REGION_MAX), REGION_END_MATCH);
    regions_pop(&rs);
    cr_assert_eq(regions_begin(&rs), 1, "room again");
}
