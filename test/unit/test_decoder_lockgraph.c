/* test_decoder_lockgraph.c: the lock-order graph's cycles (decoder/analysis/lockgraph.c) on
 * graphs whose elementary cycles are known by hand: none in a chain or a DAG with a diamond,
 * one per ABBA pair, one 3-cycle, both the pair and the triangle where they share locks, a
 * self-edge never, the budget of LG_CYCLES_MAX, and hold records replaced by the latest.
 * Invariant: each test builds its own graph. */
#include "lockgraph.h"

#include <criterion/criterion.h>
#include <stdio.h>

/* Adds the edges "from to" of pairs[0 .. 2n). */
static void edges(struct lg *g, const uint32_t *pairs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct lg_edge e = {.from = pairs[2 * i], .to = pairs[2 * i + 1], .m = 1};
        cr_assert_eq(lg_add_edge(g, &e), 0);
    }
}

/* The locks of cycle c in order, as text ("0 1 2"). */
static void cycle_text(const struct lg *g, size_t c, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < g->cycles[c].n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%u", k ? " " : "",
                                g->edges[g->cycles[c].edge[k]].from);
}

Test(lockgraph, chain_and_diamond_have_no_cycle)
{
    struct lg g = {0};
    const uint32_t p[] = {0, 1, 1, 2, 0, 3, 3, 2, 2, 4};
    edges(&g, p, 5);
    cr_assert_eq(lg_find_cycles(&g), 0);
    cr_assert_eq(g.ncycles, 0);
    lg_free(&g);
}

Test(lockgraph, abba_is_one_cycle_and_repeats_are_one_edge)
{
    struct lg g = {0};
    const uint32_t p[] = {3, 7, 7, 3, 3, 7, 7, 3};
    edges(&g, p, 4);
    cr_assert_eq(g.nedges, 2);
    cr_assert_eq(lg_find_cycles(&g), 0);
    cr_assert_eq(g.ncycles, 1);
    char t[64];
    cycle_text(&g, 0, t, sizeof t);
    cr_assert_str_eq(t, "3 7");
    lg_free(&g);
}

Test(lockgraph, three_cycle_once_from_its_smallest_lock)
{
    struct lg g = {0};
    const uint32_t p[] = {2, 0, 0, 1, 1, 2};
    edges(&g, p, 3);
    cr_assert_eq(lg_find_cycles(&g), 0);
    cr_assert_eq(g.ncycles, 1);
    char t[64];
    cycle_text(&g, 0, t, sizeof t);
    cr_assert_str_eq(t, "0 1 2");
    cr_assert_eq(g.cycles_over, 0);
    lg_free(&g);
}

Test(lockgraph, pair_and_triangle_sharing_locks_shortest_first)
{
    struct lg g = {0};
    const uint32_t p[] = {0, 1, 1, 0, 1, 2, 2, 0};
    edges(&g, p, 4);
    cr_assert_eq(lg_find_cycles(&g), 0);
    cr_assert_eq(g.ncycles, 2);
    char t[64];
    cycle_text(&g, 0, t, sizeof t);
    cr_assert_str_eq(t, "0 1");
    cycle_text(&g, 1, t, sizeof t);
    cr_assert_str_eq(t, "0 1 2");
    lg_free(&g);
}

Test(lockgraph, self_edge_is_no_cycle)
{
    struct lg g = {0};
    const uint32_t p[] = {5, 5};
    edges(&g, p, 1);
    cr_assert_eq(g.nedges, 0);
    cr_assert_eq(lg_find_cycles(&g), 0);
    cr_assert_eq(g.ncycles, 0);
    lg_free(&g);
}

Test(lockgraph, complete_graph_stops_at_the_listing_budget)
{
    struct lg g = {0};
    for (uint32_t a = 0; a < 9; a++) /* K9: far more than LG_CYCLES_MAX elementary cycles */
        for (uint32_t b = 0; b < 9; b++)
            if (a != b) {
                struct lg_edge e = {.from = a, .to = b};
                cr_assert_eq(lg_add_edge(&g, &e), 0);
            }
    cr_assert_eq(lg_find_cycles(&g), 0);
    cr_assert_eq(g.ncycles, LG_CYCLES_MAX);
    cr_assert_eq(g.cycles_over, 1);
    for (size_t c = 1; c < g.ncycles; c++)
        cr_assert_leq(g.cycles[c - 1].n, g.cycles[c].n);
    lg_free(&g);
}

Test(lockgraph, hold_records_keep_the_latest)
{
    struct lg g = {0};
    struct lg_hold h = {.lock = 4, .acq = 3, .changes = 2, .total = 30, .longest = 15};
    cr_assert_eq(lg_add_hold(&g, &h), 0);
    h.acq = 9;
    h.longest = 20;
    cr_assert_eq(lg_add_hold(&g, &h), 0);
    cr_assert_eq(g.nholds, 1);
    cr_assert_eq(g.holds[0].acq, 9);
    cr_assert_eq(g.holds[0].longest, 20);
    lg_free(&g);
}
