/* test_selfcost.c: the tracer's own time by part (selfcost.h). Off, nothing is timed or counted;
 * on, each part adds its counts and the time since its start; the report line names every part
 * with its count and time in µs, in a fixed order (bench/process/inside.py and per_process.sh
 * read it), and is cut, never overrun, in a small buffer; a forked child's counts start anew.
 * Criterion runs each test in a process of its own: every test starts from zero counts. */
#include "selfcost.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The report line's 13 numbers, in its order (start-up µs; walks, µs; rules, µs; pages, µs;
 * tables, µs; final write µs; forks, µs; a forked child's set-up µs), read with the line's
 * whole text. */
struct report {
    unsigned long long start, walks, t_walk, rules, t_rules, pages, t_back, tables, t_sym, t_final,
        forks, t_forks, t_child;
};

static struct report reported(void)
{
    char line[640];
    struct report r;
    int n = 0;
    cr_assert_gt(selfcost_format(line, sizeof line), 0);
    int k = sscanf(line,
                   "the tracer's own time here: start-up %llu us; %llu stack walks %llu us, "
                   "%llu new unwind rules %llu us of it; %llu live-file pages backed %llu us; "
                   "%llu stack tables %llu us; final write %llu us; %llu forks %llu us; "
                   "set-up as a forked child %llu us%n",
                   &r.start, &r.walks, &r.t_walk, &r.rules, &r.t_rules, &r.pages, &r.t_back,
                   &r.tables, &r.t_sym, &r.t_final, &r.forks, &r.t_forks, &r.t_child, &n);
    cr_assert_eq(k, 13, "%s", line);
    cr_assert_eq(line[n], '\0', "%s", line);
    return r;
}

static void sleep_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

Test(selfcost, off_counts_nothing)
{
    selfcost_enable(0);
    uint64_t t0 = selfcost_begin();
    cr_assert_eq(t0, 0);
    sleep_us(2000);
    selfcost_end(SC_BACK, t0, 5);
    struct report r = reported();
    cr_assert_eq(r.pages, 0);
    cr_assert_eq(r.t_back, 0);
}

Test(selfcost, on_adds_counts_and_time)
{
    selfcost_enable(1);
    for (int i = 0; i < 3; i++) {
        uint64_t t0 = selfcost_begin();
        cr_assert_gt(t0, 0);
        sleep_us(1000);
        selfcost_end(SC_SYMBOLS, t0, 1);
    }
    uint64_t t0 = selfcost_begin();
    sleep_us(1000);
    selfcost_end(SC_FINAL, t0, 1);
    selfcost_enable(0);
    struct report r = reported();
    cr_assert_eq(r.tables, 3);
    cr_assert_geq(r.t_sym, 3000, "3 waits of 1 ms: %llu us", r.t_sym);
    cr_assert_geq(r.t_final, 1000);
    cr_assert_lt(r.t_final, 1000000);
}

Test(selfcost, forks_and_a_childs_set_up)
{
    selfcost_enable(1);
    for (int i = 0; i < 2; i++) {
        uint64_t t0 = selfcost_begin();
        sleep_us(1000);
        selfcost_end(SC_FORK, t0, 1);
    }
    uint64_t t0 = selfcost_begin();
    sleep_us(1000);
    selfcost_end(SC_CHILD, t0, 1);
    struct report r = reported();
    cr_assert_eq(r.forks, 2);
    cr_assert_geq(r.t_forks, 2000);
    cr_assert_geq(r.t_child, 1000);
    selfcost_fork_child(); /* a forked child's counts start from zero */
    r = reported();
    cr_assert_eq(r.forks + r.t_forks + r.t_child + r.t_final, 0);
}

Test(selfcost, cut_in_a_small_buffer)
{
    char small[16];
    memset(small, 'x', sizeof small);
    int k = selfcost_format(small, 10);
    cr_assert_eq(k, 9);
    cr_assert_eq(small[9], '\0');
    cr_assert_eq(small[10], 'x');
}
