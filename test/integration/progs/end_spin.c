// end_spin: the end of the run has no event. A worker waits 1 ms once, then computes until the
// process exits; main waits 1 ms, then computes for argv[1] ms (default 600) and prints how long
// main ran (ms, from its first line to its return), for the trace's lifetimes to be compared with.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void compute_until(double end)
{
    while (now_ms() < end)
        for (int i = 0; i < 1000; i++)
            sink++;
}

static void *worker(void *arg)
{
    (void)arg;
    usleep(1000);
    compute_until(1e300); /* until exit */
    return NULL;
}

int main(int argc, char **argv)
{
    double start = now_ms();
    long ms = argc > 1 ? atol(argv[1]) : 600;
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
    pthread_detach(t);
    usleep(1000);
    compute_until(start + (double)ms);
    printf("%.3f\n", now_ms() - start);
    return 0;
}
