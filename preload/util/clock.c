/* clock.c: the timestamp source. See clock.h for the invariants. */
#include "clock.h"

#include "log.h"
#include "real.h"

#include <fcntl.h>
#if defined(__x86_64__)
#include <sys/platform/x86.h>
#endif
#include <string.h>
#include <unistd.h>

#define CALIBRATE_NS 200000ull /* the TSC's rate is measured over at least this */
#define AHEAD_NS 1000ull       /* the TSC's times start this far ahead of CLOCK_MONOTONIC */

struct gt_tsc gt_tsc;
static uint64_t begin_cycles, begin_ns; /* clock_begin's reading */
static int tsc_wanted;                  /* clock_begin took it (GOTRACE_TSC, a TSC) */
static atomic_int tsc_allowed;          /* the kernel keeps time with the TSC (clock_allow_tsc) */
static atomic_int checked;              /* clock_allow_tsc looked, or is looking: once */
static atomic_int switching;            /* a thread measures the rate (or has): once */

#if defined(__x86_64__)
/* A TSC reading and the time it was taken: the time read between two TSC readings, the middle
 * of the closest of a few tries (an interrupt between the reads only spoils one try). */
static void tsc_pair(uint64_t *cycles, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = gt_tsc_read();
        uint64_t n = gt_now_ns();
        uint64_t b = gt_tsc_read();
        if (b - a < best) {
            best = b - a;
            *cycles = a + (b - a) / 2;
            *ns = n;
        }
    }
}

/* Whether the kernel keeps time with the TSC: its current clock source (a sysfs file, 12-34 us
 * at a process's start on the VMs measured: docs/cost.md). */
static int kernel_uses_tsc(void)
{
    static const char path[] = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
    char buf[16] = {0};
    int fd = REAL(open)(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = REAL(read)(fd, buf, sizeof buf - 1);
    REAL(close)(fd);
    return n > 0 && strcmp(buf, "tsc\n") == 0;
}
#endif

void clock_begin(int allow_tsc)
{
    atomic_store(&gt_tsc.on, 0);
    atomic_store(&switching, 0);
    atomic_store(&tsc_allowed, 0);
    atomic_store(&checked, 0);
    tsc_wanted = 0;
#if defined(__x86_64__)
    if (allow_tsc && CPU_FEATURE_PRESENT(TSC)) { /* glibc's CPUID reading: no VM exit */
        tsc_pair(&begin_cycles, &begin_ns);
        tsc_wanted = 1;
    }
#else
    (void)allow_tsc;
#endif
}

void clock_allow_tsc(void)
{
#if defined(__x86_64__)
    int expected = 0;
    if (!tsc_wanted || atomic_load_explicit(&checked, memory_order_relaxed) ||
        !atomic_compare_exchange_strong(&checked, &expected, 1))
        return;
    int tsc = kernel_uses_tsc();
    if (tsc) atomic_store_explicit(&tsc_allowed, 1, memory_order_release);
    gt_debug("clock: %s", tsc ? "the TSC (the kernel's clock source)"
                              : "CLOCK_MONOTONIC (the kernel's clock source is not the TSC)");
#endif
}

#if defined(__x86_64__)
/* Once CALIBRATE_NS have passed since clock_begin (now: CLOCK_MONOTONIC), the first caller
 * measures the TSC's rate and makes it the source, its times starting AHEAD_NS after now: above
 * every CLOCK_MONOTONIC time read before the switch (their readers found the TSC off after
 * reading them, gt_clock_slow), whatever the errors of a reading pair (tens of ns). A caller
 * that finds another switching (or a signal handler that interrupted it) reads CLOCK_MONOTONIC
 * meanwhile. A child forked during the switch keeps CLOCK_MONOTONIC. */
static void tsc_switch(uint64_t now)
{
    int expected = 0;
    if (!atomic_load_explicit(&tsc_allowed, memory_order_acquire) ||
        now - begin_ns < CALIBRATE_NS || !atomic_compare_exchange_strong(&switching, &expected, 1))
        return;
    uint64_t cycles, ns;
    tsc_pair(&cycles, &ns);
    gt_tsc.ns_per_c32 =
        (uint64_t)(((unsigned __int128)(ns - begin_ns) << 32) / (cycles - begin_cycles));
    gt_tsc.cycles0 = cycles;
    gt_tsc.ns0 = ns + AHEAD_NS;
    atomic_store_explicit(&gt_tsc.on, 1, memory_order_release);
}
#endif

uint64_t gt_clock_slow(void)
{
    uint64_t ns = gt_now_ns();
#if defined(__x86_64__)
    tsc_switch(ns);
    if (gt_tsc_on()) return gt_tsc_ns(gt_tsc_read()); /* ns may be from after the switch */
#endif
    return ns;
}

const char *clock_name(void)
{
    return tsc_wanted ? "CLOCK_MONOTONIC, then the TSC if the kernel keeps time with it"
                      : "CLOCK_MONOTONIC";
}
