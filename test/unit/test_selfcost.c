/* test_selfcost.c: the tracer's own time by part (selfcost.h). Off, nothing is timed or counted;
 * on, each part adds its counts and the time since its start; the report line names every part
 * with its count and time in µs, in a fixed order (bench/process/inside.py and per_process.sh
 * read it), and is cut, never overrun, in a small buffer. Criterion runs each test in a
 * process of its own: every test starts from zero counts. */
#include "selfcost.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The count and µs of part p as the report gives them. */
static void reported(const char *what, unsigned long long *n, unsigned long long *us)
{
    char line[512];
    cr_assert_gt(selfcost_format(line, sizeof line), 0);
    const char *at = strstr(line, what);
    cr_assert_not_null(at, "%s in %s", what, line);
    *n = *us = 0;
    if (strcmp(what, "final write") == 0) { /* "final write N us" */
        cr_assert_eq(sscanf(at, "final write %llu us", us), 1, "%s", line);
        return;
    }
    const char *num = at; /* "N <what> T us": the count just before the name */
    while (num > line && num[-1] == ' ')
        num--;
    while (num > line && num[-1] >= '0' && num[-1] <= '9')
        num--;
    char fmt[64];
    snprintf(fmt, sizeof fmt, "%%llu %s %%llu us", what);
    cr_assert_eq(sscanf(num, fmt, n, us), 2, "%s in %s", what, line);
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
    unsigned long long n, us;
    reported("live-file pages backed", &n, &us);
    cr_assert_eq(n, 0);
    cr_assert_eq(us, 0);
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
    unsigned long long n, us;
    reported("stack tables", &n, &us);
    cr_assert_eq(n, 3);
    cr_assert_geq(us, 3000, "3 waits of 1 ms: %llu us", us);
    reported("final write", &n, &us);
    cr_assert_geq(us, 1000);
    cr_assert_lt(us, 1000000);
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
