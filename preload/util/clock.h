/* clock.h: trace timestamps, the single place that picks their source. Event times are ns
 * (the Frequency batch says 1e9 ticks per second): the parser converts each event's time delta
 * to ns and truncates, so ticks of any other size would make a batch with many events drift
 * behind the others, and it orders one goroutine's wake-ups written by different threads by
 * their times.
 * Invariants: times agree across CPUs, and a gt_now read comes after every instruction before
 * it (status.h relies on it: the read follows the winning CAS; gt_now_early may not). Two
 * sources keep both:
 * - the TSC, read with LFENCE;RDTSC and scaled to ns (a 64 x 64 multiply), at a rate measured
 *   against CLOCK_MONOTONIC from a reading taken at start-up (clock_begin) over 200 us at least
 *   (within about 1e-4), only where the kernel itself keeps time with the TSC (its clock source
 *   is "tsc": it found the counters synchronized across CPUs and invariant) and GOTRACE_TSC is
 *   not 0;
 * - otherwise CLOCK_MONOTONIC through the vDSO (no syscall, no lock).
 * Nothing waits for the rate, nor for the kernel's clock source, a sysfs file read only once
 * the process has shown it writes events enough for the TSC to matter (clock_allow_tsc: a
 * thread's first page of events written, or the flusher thread's start), so that a short
 * process never reads it. Until then, and until 200 us after clock_begin, times are
 * CLOCK_MONOTONIC's; the first time read after both measures the rate and switches to the TSC,
 * once, anchored 1 us ahead of CLOCK_MONOTONIC (gt_clock_slow), so that a time read after the
 * switch is above every time read before it, whichever threads read them. The scale never changes
 * after (it would move every later time). gt_now_ns is CLOCK_MONOTONIC, for the tracer's deadlines.
 */
#ifndef GOTRACE_CLOCK_H
#define GOTRACE_CLOCK_H
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define GT_TICKS_PER_SEC 1000000000ull /* event times are in ns, whatever the source */

extern struct gt_tsc {
    _Atomic int on;      /* the TSC is the source (set once, after the three below) */
    uint64_t cycles0;    /* a reading (the switch's), */
    uint64_t ns0;        /* the CLOCK_MONOTONIC time it was taken at, plus 1 us, */
    uint64_t ns_per_c32; /* and ns per cycle << 32, measured from clock_begin to the switch */
} gt_tsc;

static inline uint64_t gt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
/* LFENCE;RDTSC: read once every instruction before it has executed (LFENCE waits for them: Intel
 * documents it so, and Linux makes it so on AMD; the kernel's own ordered reads are the same).
 * RDTSCP orders the same way at the same cost here (18 ns), but some CPUs and tools lack it:
 * valgrind 3.19 stops a program with SIGILL at it on some (issue 44); these two instructions
 * every x86-64 CPU and emulator has. */
static inline uint64_t gt_tsc_read(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}
#endif

#if defined(__x86_64__)
/* RDTSC: half the cost of LFENCE;RDTSC here (10 ns against 18), but it may read the counter
 * before the instructions before it have executed. */
static inline uint64_t gt_tsc_read_early(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

static inline uint64_t gt_tsc_ns(uint64_t cycles)
{
    uint64_t c = cycles - gt_tsc.cycles0;
    return gt_tsc.ns0 + (uint64_t)(((unsigned __int128)c * gt_tsc.ns_per_c32) >> 32);
}
#endif

/* The time when the TSC is not (yet) the source: CLOCK_MONOTONIC, or the TSC's if this read
 * switched to it or found it switched meanwhile. */
__attribute__((cold)) uint64_t gt_clock_slow(void);

static inline int gt_tsc_on(void)
{
    return atomic_load_explicit(&gt_tsc.on, memory_order_acquire);
}

/* The time of an event, in ns. */
static inline uint64_t gt_now(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(gt_tsc_on(), 1)) return gt_tsc_ns(gt_tsc_read());
#endif
    return gt_clock_slow();
}

/* The same, possibly read before the instructions just before it: for an event whose state
 * move only ever follows the same thread's moves (status.h), so that no other thread's move
 * needs to be timed before it, and for a time that must only not come after what follows it
 * (a lock's release, read before the release). */
static inline uint64_t gt_now_early(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(gt_tsc_on(), 1)) return gt_tsc_ns(gt_tsc_read_early());
#endif
    return gt_clock_slow();
}

/* First thing at start-up: takes a TSC reading if it may be the source (allow_tsc: GOTRACE_TSC;
 * and the CPU has a TSC). */
void clock_begin(int allow_tsc);
/* The TSC may become the source if the kernel keeps time with it: reads its clock source, once
 * (later calls return at once). A system call: only where the writer may make them (a buffer
 * filling, buf.h) and on the flusher thread. */
void clock_allow_tsc(void);
/* The source's name for the debug log. */
const char *clock_name(void);
#endif
