/* busy_join MS: main creates one thread that computes for MS milliseconds and joins it. */
#include <pthread.h>

#include "common.h"

static void *long_worker(void *arg)
{
    return (void *)(spin_ms(*(double *)arg) | 1);
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 1000;
    pthread_t t;
    void *r;
    CHECK(pthread_create(&t, NULL, long_worker, &ms));
    CHECK(pthread_join(t, &r));
    printf("done %d\n", r != NULL);
    return 0;
}
