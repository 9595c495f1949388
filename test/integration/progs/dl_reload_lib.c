/* dl_reload_lib.c: built twice with different FRAME sizes (-DFRAME=N); dl_wait sleeps 1 ms
 * inside a frame of FRAME bytes, so the two builds have different unwind rules at the same
 * offsets. Invariant: dl_wait is the only function, so both builds place it alike. */
#include <time.h>

#ifndef FRAME
#define FRAME 16
#endif

__attribute__((noinline)) int dl_wait(void)
{
    volatile char frame[FRAME];
    frame[0] = 1;
    struct timespec ts = {0, 1000000};
    int r = nanosleep(&ts, NULL);
    frame[FRAME - 1] = 2;
    return r + frame[0] - 1;
}
