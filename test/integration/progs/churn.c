/* churn SECONDS: two looper threads each create and join short-lived threads (about 0.2 ms of
 * work each) until SECONDS have passed; meant to be killed long before that. */
#include <pthread.h>

#include "common.h"

static double deadline;

static void *short_job(void *arg)
{
    (void)arg;
    return (void *)(spin_ms(0.2) | 1);
}

static void *looper(void *arg)
{
    (void)arg;
    long n = 0;
    while (now_ms() < deadline) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, short_job, NULL));
        CHECK(pthread_join(t, NULL));
        n++;
    }
    return (void *)n;
}

int main(int argc, char **argv)
{
    deadline = now_ms() + 1000 * (argc > 1 ? atof(argv[1]) : 30);
    pthread_t a, b;
    void *na, *nb;
    CHECK(pthread_create(&a, NULL, looper, NULL));
    CHECK(pthread_create(&b, NULL, looper, NULL));
    CHECK(pthread_join(a, &na));
    CHECK(pthread_join(b, &nb));
    printf("jobs=%ld\n", (long)na + (long)nb);
    return 0;
}
