/* transparency [thread-exit]: 4 threads sum disjoint ranges under a mutex; main prints the
 * checksum on stdout and a note on stderr and returns 3. With "thread-exit", worker 0 prints
 * and calls exit(5) while main is still joining. */
#include <pthread.h>
#include <unistd.h>

#include "common.h"

#define NT 4
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long total;
static int exit_from_thread;

static void *summer(void *arg)
{
    long k = (long)arg;
    unsigned long s = 0;
    for (unsigned long i = (unsigned long)k * 1000000; i < (unsigned long)(k + 1) * 1000000; i++)
        s += i * i % 7919;
    CHECK(pthread_mutex_lock(&mu));
    total += s;
    CHECK(pthread_mutex_unlock(&mu));
    if (exit_from_thread && k == 0) {
        printf("thread exit, partial=%lu\n", s);
        fflush(stdout);
        exit(5);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[NT];
    exit_from_thread = argc > 1 && strcmp(argv[1], "thread-exit") == 0;
    for (long i = 0; i < NT; i++)
        CHECK(pthread_create(&t[i], NULL, summer, (void *)i));
    for (int i = 0; i < NT; i++)
        CHECK(pthread_join(t[i], NULL));
    if (exit_from_thread) {
        /* exit(5) from worker 0 ends the process; wait here without busy CPU if it is late. */
        for (;;)
            pause();
    }
    printf("checksum=%lu\n", total);
    fprintf(stderr, "note: computed by %d threads\n", NT);
    return 3;
}
