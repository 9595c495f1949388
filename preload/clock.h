/* clock.h: trace timestamps, the single place that picks their source.
 * Invariants: gt_now() is monotonic across all threads of the process and costs no syscall,
 * no lock: CLOCK_MONOTONIC in ns through the vDSO; or, when asked (GOTRACE_TSC=1) and the
 * kernel itself keeps time with it (clocksource "tsc"), the TSC. The parser orders one G's
 * wake-ups across threads by time, so times must agree across CPUs: on the VMs this was
 * tested on, TSC readings of different vCPUs disagree (traces failed validation), hence
 * CLOCK_MONOTONIC by default. The source is chosen once, by gt_clock_init before the first event,
 * and never changes in a process image; gt_ticks_per_sec() (the Frequency batch) is measured
 * once against CLOCK_MONOTONIC, on its first call (the flusher's first generation), so
 * nothing delays the program's start. gt_mono_ns() is for timeouts and periods, never for
 * events. */
#ifndef GOTRACE_CLOCK_H
#define GOTRACE_CLOCK_H
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

extern int gt_clock_tsc; /* 1: gt_now() is TSC ticks; 0: CLOCK_MONOTONIC ns */

static inline uint64_t gt_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t gt_now(void)
{
    return __builtin_expect(gt_clock_tsc, 1) ? __rdtsc() : gt_mono_ns();
}

/* gt_now() not reordered with the loads before it or the stores after it (the TSC read is
 * fenced; clock_gettime's vDSO read already is): for times that order state changes. */
static inline uint64_t gt_now_ordered(void)
{
    if (!__builtin_expect(gt_clock_tsc, 1)) return gt_mono_ns();
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

/* Chooses the source (idempotent; call it before tracing starts). */
void gt_clock_init(int want_tsc);
/* gt_now() ticks per second; the first call may wait until 10 ms have passed since
 * gt_clock_init, for a precise measure. Flusher only (it runs under the flush lock). */
uint64_t gt_ticks_per_sec(void);
#endif
