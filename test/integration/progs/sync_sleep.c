/* sync_sleep: main sleeps 20 ms four ways (usleep, nanosleep, clock_nanosleep relative and
 * absolute), then makes three calls that cannot wait (sleep(0), usleep(0), a zero nanosleep)
 * and checks that a malformed nanosleep fails with EINVAL. Prints "ok". */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

int main(void)
{
    struct timespec ms20 = {0, 20 * 1000000L}, zero = {0, 0}, bad = {0, -5}, abs;
    usleep(20000);
    nanosleep(&ms20, NULL);
    clock_nanosleep(CLOCK_MONOTONIC, 0, &ms20, NULL);
    clock_gettime(CLOCK_MONOTONIC, &abs);
    abs.tv_nsec += 20 * 1000000L;
    abs.tv_sec += abs.tv_nsec / 1000000000L;
    abs.tv_nsec %= 1000000000L;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
    sleep(0);
    usleep(0);
    nanosleep(&zero, NULL);
    errno = 0;
    if (nanosleep(&bad, NULL) != -1 || errno != EINVAL) return 1;
    puts("ok");
    return 0;
}
