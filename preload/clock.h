/* clock.h: trace timestamps. Invariants: monotonic across all threads (CLOCK_MONOTONIC, in ns,
 * so the Frequency batch says 1e9 ticks per second); one vDSO call, no syscall, no lock. */
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
