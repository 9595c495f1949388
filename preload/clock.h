/* clock.h: trace timestamps, the single place that picks their source.
 * Invariants: gt_now() is CLOCK_MONOTONIC in ns through the vDSO (no syscall, no lock), so the
 * Frequency batch says 1e9 ticks per second. The parser orders one goroutine's wake-ups
 * written by different threads by their times, so times must agree across CPUs: the TSC was
 * tried (cheaper by ~20 ns) and dropped, because on the VMs this runs on the vCPUs' TSC
 * readings disagree and traces failed validation. The vDSO read is ordered against the
 * surrounding loads and stores (status.h relies on it). */
#ifndef GOTRACE_CLOCK_H
#define GOTRACE_CLOCK_H
#include <stdint.h>
#include <time.h>

#define GT_TICKS_PER_SEC 1000000000ull

static inline uint64_t gt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#endif
