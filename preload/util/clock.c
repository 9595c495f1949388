/* clock.c: the timestamp source. See clock.h for the invariants. */
#include "clock.h"

#include "real.h"

#include <fcntl.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <string.h>
#include <unistd.h>

#define CALIBRATE_NS 200000ull /* the TSC's rate is measured over at least this */

struct gt_tsc gt_tsc;
static int tsc_allowed; /* clock_begin took the first reading */

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

/* Whether the kernel keeps time with the TSC (its current clock source) and RDTSCP exists. */
static int kernel_uses_tsc(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(d & (1u << 27))) return 0;
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
    gt_tsc.on = 0;
    tsc_allowed = 0;
#if defined(__x86_64__)
    if (allow_tsc && kernel_uses_tsc()) {
        tsc_pair(&gt_tsc.cycles0, &gt_tsc.ns0);
        tsc_allowed = 1;
    }
#else
    (void)allow_tsc;
#endif
}

const char *clock_end(void)
{
#if defined(__x86_64__)
    if (tsc_allowed) {
        uint64_t cycles, ns;
        do
            tsc_pair(&cycles, &ns);
        while (ns - gt_tsc.ns0 < CALIBRATE_NS);
        gt_tsc.ns_per_c32 =
            (uint64_t)(((unsigned __int128)(ns - gt_tsc.ns0) << 32) / (cycles - gt_tsc.cycles0));
        gt_tsc.on = 1;
        return "TSC";
    }
#endif
    return "CLOCK_MONOTONIC";
}
