/* threads_basic: main creates 8 threads running worker() through spawn_workers(), then joins
 * them all and prints the sum of their results. Exit status 0. */
#include <pthread.h>

#include "common.h"

#define N 8

static void *worker(void *arg)
{
    spin_ms(5);
    return (void *)((long)arg * 100);
}

__attribute__((noinline)) static void spawn_workers(pthread_t *t)
{
    for (long i = 0; i < N; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)i));
}

int main(void)
{
    pthread_t t[N];
    long sum = 0;
    spawn_workers(t);
    for (int i = 0; i < N; i++) {
        void *r;
        CHECK(pthread_join(t[i], &r));
        sum += (long)r;
    }
    printf("sum=%ld\n", sum);
    return 0;
}
