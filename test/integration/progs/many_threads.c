/* many_threads: 1000 threads running tiny_job(), created and joined 10 at a time. Prints the
 * sum of their results (499500). */
#include <pthread.h>

#include "common.h"

#define TOTAL 1000
#define BATCH 10

static void *tiny_job(void *arg)
{
    return arg;
}

int main(void)
{
    long sum = 0;
    for (long base = 0; base < TOTAL; base += BATCH) {
        pthread_t t[BATCH];
        for (long i = 0; i < BATCH; i++)
            CHECK(pthread_create(&t[i], NULL, tiny_job, (void *)(base + i)));
        for (int i = 0; i < BATCH; i++) {
            void *r;
            CHECK(pthread_join(t[i], &r));
            sum += (long)r;
        }
    }
    printf("sum=%ld\n", sum);
    return 0;
}
