/* clock.c: the trace clock's source and frequency. See clock.h for the invariants. Its own
 * file and sleep calls go to the real functions (never traced). */
#include "clock.h"

#include "real.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define CALIB_MIN_NS 10000000ull /* 10 ms between the two readings: error ~ 1e-5 or less */

int gt_clock_tsc;
static int chosen;
static uint64_t tsc0, mono0, freq;

/* Both clocks at one instant: the TSC reading closest to the midpoint of a short
 * clock_gettime bracket, the best of a few tries. */
static void read_pair(uint64_t *tsc, uint64_t *mono)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = __rdtsc();
        uint64_t m = gt_mono_ns();
        uint64_t b = __rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *mono = m;
        }
    }
}

static int kernel_uses_tsc(void)
{
    char buf[32] = {0};
    int fd = REAL(open)("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                  O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = REAL(read)(fd, buf, sizeof buf - 1);
    REAL(close)(fd);
    return n >= 3 && strncmp(buf, "tsc", 3) == 0 && (buf[3] == '\n' || buf[3] == 0);
}

void gt_clock_init(int want_tsc)
{
    if (chosen) return;
    chosen = 1;
    if (!want_tsc || !kernel_uses_tsc()) return;
    read_pair(&tsc0, &mono0);
    gt_clock_tsc = 1;
}

uint64_t gt_ticks_per_sec(void)
{
    if (!gt_clock_tsc) return 1000000000ull;
    if (freq) return freq;
    uint64_t tsc1, mono1;
    for (;;) {
        read_pair(&tsc1, &mono1);
        if (mono1 - mono0 >= CALIB_MIN_NS) break;
        uint64_t left = CALIB_MIN_NS - (mono1 - mono0);
        struct timespec ts = {0, (long)left};
        REAL(nanosleep)(&ts, NULL);
    }
    freq = (uint64_t)((double)(tsc1 - tsc0) * 1e9 / (double)(mono1 - mono0) + 0.5);
    return freq;
}
