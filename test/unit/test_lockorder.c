/* test_lockorder.c: lock tracking's tables (preload/writer/lockorder.c), without a tracer: the
 * edge set claims a pair once (and a -> b apart from b -> a), the hold table counts
 * acquisitions, owner changes, total and longest exactly and reports each changed lock once per
 * flusher pass, and the held-at-exit queue hands each entry to the flusher once.
 * Invariant: each test uses lock addresses of its own (the tables live for the process). */
#include "lockorder.h"
#include "strtab.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

static void init(void)
{
    cr_assert_eq(str_init(), 0);
    lo_init(1, 1, str_intern_cstr("sync: mutex"), str_intern_cstr("sync: rwlock write"));
}

Test(lockorder, an_edge_is_claimed_once_each_way, .init = init)
{
    static char a, b, c, many[1000];
    cr_assert_eq(lo_edge_claim(&a, &b), 1);
    cr_assert_eq(lo_edge_claim(&a, &b), 0);
    cr_assert_eq(lo_edge_claim(&b, &a), 1, "b -> a is another edge than a -> b");
    cr_assert_eq(lo_edge_claim(&b, &a), 0);
    cr_assert_eq(lo_edge_claim(&a, &c), 1);
    for (int i = 0; i < 1000; i++) /* many distinct pairs: each new once */
        cr_assert_eq(lo_edge_claim(&many[i], &a), 1);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(lo_edge_claim(&many[i], &a), 0);
}

struct seen {
    uintptr_t addr;
    uint64_t v[7];
    int times;
};

static void hold_seen(void *ctx, const uint64_t v[7])
{
    struct seen *s = ctx;
    if (v[0] != s->addr) return;
    memcpy(s->v, v, sizeof s->v);
    s->times++;
}

Test(lockorder, holds_count_exactly_and_report_once_per_change, .init = init)
{
    static pthread_mutex_t m;
    /* thread 7 twice, then 8, 7: 4 acquisitions, 3 owner changes (the first counts) */
    cr_assert_eq(lo_hold_done(&m, LO_MUTEX, 7, 100), 1, "the first hold is the longest so far");
    cr_assert_eq(lo_hold_done(&m, LO_MUTEX, 7, 50), 0);
    cr_assert_eq(lo_hold_done(&m, LO_MUTEX, 8, 300), 1);
    cr_assert_eq(lo_hold_done(&m, LO_MUTEX, 7, 300), 0, "as long as the longest: not longer");
    lo_hold_stack(&m, 42);
    struct seen s = {(uintptr_t)&m, {0}, 0};
    lo_foreach_changed(1, hold_seen, &s);
    cr_assert_eq(s.times, 1);
    cr_assert_neq(s.v[1], 0, "the lock has a name (placeholder) string");
    cr_assert_eq(s.v[2], 4, "acquisitions");
    cr_assert_eq(s.v[3], 3, "owner changes");
    cr_assert_eq(s.v[4], 750, "total");
    cr_assert_eq(s.v[5], 300, "longest");
    cr_assert_eq(s.v[6], 42, "the longest's stack");
    lo_foreach_changed(2, hold_seen, &s);
    cr_assert_eq(s.times, 1, "unchanged since: not reported again");
    cr_assert_eq(lo_hold_done(&m, LO_READ, 8, 1), 0);
    lo_foreach_changed(3, hold_seen, &s);
    cr_assert_eq(s.times, 2);
    cr_assert_eq(s.v[2], 5, "cumulative acquisitions");
    cr_assert_eq(s.v[3], 4, "8 after 7: an owner change");
}

static void exit_seen(void *ctx, const struct lo_exit *e)
{
    (*(int *)ctx)++;
    (void)e;
}

Test(lockorder, nothing_to_drain_without_exits, .init = init)
{
    int n = 0;
    lo_exits_drain(exit_seen, &n);
    cr_assert_eq(n, 0);
    uint64_t held, edges, locks;
    lo_lost(&held, &edges, &locks);
    cr_assert_eq(held + edges + locks, 0, "nothing lost in a fresh process");
}
