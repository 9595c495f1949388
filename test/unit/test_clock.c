/* test_clock.c: the timestamp source (clock.h). CLOCK_MONOTONIC when the TSC is not allowed;
 * the TSC exactly where the kernel's clock source is the TSC (and the CPU has one), switched to by
 * the first read 200 us after clock_begin once clock_allow_tsc looked (never before); either way
 * event times are ns that stay within 0.2 % of CLOCK_MONOTONIC over an interval, and times read on
 * one thread, or on two CPUs after a hand-off, never go backwards, across the switch too. */
#include "clock.h"

#include <criterion/criterion.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int kernel_clock_is_tsc(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & (1u << 4))) return 0; /* TSC */
#else
    return 0;
#endif
    char buf[16] = {0};
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (!f) return 0;
    int ok = fgets(buf, sizeof buf, f) && strcmp(buf, "tsc\n") == 0;
    fclose(f);
    return ok;
}

/* Event time over a 50 ms sleep against CLOCK_MONOTONIC's, and near it at the start. */
static void expect_ns(void)
{
    uint64_t n0 = gt_now_ns(), t0 = gt_now();
    int64_t off = (int64_t)(t0 - n0);
    cr_assert(off > -1000000 && off < 1000000, "event time %lld ns off CLOCK_MONOTONIC",
              (long long)off);
    struct timespec nap = {0, 50000000};
    nanosleep(&nap, NULL);
    uint64_t t1 = gt_now(), n1 = gt_now_ns();
    double by_event = (double)(t1 - t0), ns = (double)(n1 - n0);
    cr_assert(by_event > ns * 0.998 && by_event < ns * 1.002,
              "50 ms: %.0f ns by event times, %.0f ns by CLOCK_MONOTONIC", by_event, ns);
}

Test(clock, monotonic_when_tsc_not_allowed)
{
    clock_begin(0);
    clock_allow_tsc();
    cr_assert_str_eq(clock_name(), "CLOCK_MONOTONIC");
    cr_assert_eq(gt_tsc_on(), 0);
    uint64_t a = gt_now_ns(), t = gt_now(), b = gt_now_ns();
    cr_assert(a <= t && t <= b, "gt_now is CLOCK_MONOTONIC");
    expect_ns();
    cr_assert_eq(gt_tsc_on(), 0, "never switched to the TSC");
}

Test(clock, tsc_exactly_where_the_kernel_uses_it)
{
    clock_begin(1);
    int want = kernel_clock_is_tsc();
    expect_ns(); /* 50 ms: not switched, the clock source not looked at yet */
    cr_assert_eq(gt_tsc_on(), 0, "switched before clock_allow_tsc");
    clock_allow_tsc();
    expect_ns(); /* its reads switch */
    cr_assert_eq(gt_tsc_on(), want);
}

/* Reads on one thread until the switch (a read 200 us after clock_begin): the read that
 * switched is above the last from CLOCK_MONOTONIC, and no time before or after goes back. */
Test(clock, the_switch_goes_forward)
{
    if (!kernel_clock_is_tsc()) cr_skip_test("the kernel does not keep time with the TSC");
    clock_begin(1);
    clock_allow_tsc();
    uint64_t monotonic = 0, t;
    long reads = 0;
    for (;; reads++) { /* ends: the first read 200 us after clock_begin switches */
        t = gt_now();
        if (gt_tsc_on()) break; /* t is the switching read's, from the TSC */
        cr_assert_geq(t, monotonic, "CLOCK_MONOTONIC went back");
        monotonic = t;
    }
    cr_assert_gt(t, monotonic, "after %ld reads, the switch went back: %llu after %llu", reads,
                 (unsigned long long)t, (unsigned long long)monotonic);
    for (int i = 0; i < 100000; i++) {
        uint64_t u = gt_now();
        cr_assert_geq(u, t, "the TSC went back");
        t = u;
    }
}

/* Two threads on two CPUs hand a token back and forth; each reads the time after seeing the
 * token and passes its time along: a time below the one received is a clock that disagrees
 * across CPUs (what the parser cannot order). */
#define HANDOFFS 200000
static _Atomic uint64_t token; /* time << 1 | whose turn */
static atomic_long backwards, before_switch;
static atomic_int ready, go;

static void *hand(void *arg)
{
    uint64_t me = (uint64_t)(uintptr_t)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)me, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* best effort */
    atomic_fetch_add(&ready, 1);
    while (!atomic_load(&go))
        ;
    for (int i = 0; i < HANDOFFS; i++) {
        uint64_t v;
        while (((v = atomic_load(&token)) & 1) != me)
            ;
        uint64_t t = gt_now();
        if (t < v >> 1) atomic_fetch_add(&backwards, 1);
        if (!gt_tsc_on()) atomic_fetch_add(&before_switch, 1);
        atomic_store(&token, t << 1 | (me ^ 1));
    }
    return NULL;
}

Test(clock, times_agree_across_cpus)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) cr_skip_test("one CPU");
    pthread_t a, b;
    pthread_create(&a, NULL, hand, (void *)0);
    pthread_create(&b, NULL, hand, (void *)1);
    while (atomic_load(&ready) < 2)
        ;
    clock_begin(1); /* the hand-offs start right after: across the switch to the TSC */
    clock_allow_tsc();
    atomic_store(&go, 1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    cr_assert_eq(atomic_load(&backwards), 0,
                 "%ld of %d hand-offs went back in time (%s, %ld hand-offs before the switch)",
                 atomic_load(&backwards), 2 * HANDOFFS, gt_tsc_on() ? "TSC" : "CLOCK_MONOTONIC",
                 atomic_load(&before_switch));
}
