/* robust_scale MODE [ARG]. "threads": 10 rounds of 1000 threads (64 KiB stacks) alive at once
 * (each waits at a barrier with main, then ends), 10000 in all; prints "threads 10000".
 * "blocked [N]": N threads (1000; 64 KiB stacks) wait on one condvar; once all wait, prints
 * "blocked N" on stdout and their resident size ("rss KB", VmRSS) on stderr, then wakes them.
 * "lock": 32 threads take one mutex 20000 times each; prints the count. "soak SECONDS": 4
 * threads pass a token around through a mutex and condvar and nap 50 us between turns for
 * SECONDS; prints "soak ok". Every mode prints "rss KB" lines on stderr: the resident size
 * once per second ("soak") and the peak (VmHWM) at the end. */
#include <pthread.h>
#include <unistd.h>

#include "common.h"

static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, strlen(field)) == 0) kb = atol(line + strlen(field));
    if (f) fclose(f);
    return kb;
}

static pthread_barrier_t bar;
static void *member(void *arg)
{
    pthread_barrier_wait(&bar);
    return arg;
}

static void threads(void)
{
    enum { ALIVE = 1000, ROUNDS = 10 };
    static pthread_t t[ALIVE];
    pthread_attr_t attr;
    CHECK(pthread_attr_init(&attr));
    CHECK(pthread_attr_setstacksize(&attr, 64 * 1024));
    int n = 0;
    for (int r = 0; r < ROUNDS; r++) {
        CHECK(pthread_barrier_init(&bar, NULL, ALIVE + 1));
        for (int i = 0; i < ALIVE; i++, n++)
            CHECK(pthread_create(&t[i], &attr, member, NULL));
        pthread_barrier_wait(&bar);
        for (int i = 0; i < ALIVE; i++)
            CHECK(pthread_join(t[i], NULL));
        CHECK(pthread_barrier_destroy(&bar));
    }
    printf("threads %d\n", n);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static unsigned long counter;
static int turn, stop;

/* blocked: counter counts the waiting threads, stop releases them. */
static void *waiter(void *arg)
{
    CHECK(pthread_mutex_lock(&mu));
    counter++;
    while (!stop)
        CHECK(pthread_cond_wait(&cv, &mu));
    CHECK(pthread_mutex_unlock(&mu));
    return arg;
}

static void blocked(int n)
{
    pthread_t *t = calloc((size_t)n, sizeof *t);
    pthread_attr_t attr;
    if (!t) exit(99);
    CHECK(pthread_attr_init(&attr));
    CHECK(pthread_attr_setstacksize(&attr, 64 * 1024));
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], &attr, waiter, NULL));
    for (;;) { /* all in pthread_cond_wait: each released the mutex there */
        CHECK(pthread_mutex_lock(&mu));
        int all = counter == (unsigned long)n;
        CHECK(pthread_mutex_unlock(&mu));
        if (all) break;
        usleep(1000);
    }
    usleep(100000);
    fprintf(stderr, "rss %ld\n", status_kb("VmRSS:"));
    printf("blocked %d\n", n);
    CHECK(pthread_mutex_lock(&mu));
    stop = 1;
    CHECK(pthread_cond_broadcast(&cv));
    CHECK(pthread_mutex_unlock(&mu));
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL));
    free(t);
}

static void *locker(void *arg)
{
    for (int i = 0; i < 20000; i++) {
        CHECK(pthread_mutex_lock(&mu));
        counter++;
        CHECK(pthread_mutex_unlock(&mu));
    }
    return arg;
}

static void *passer(void *arg)
{
    int me = (int)(long)arg;
    for (;;) {
        CHECK(pthread_mutex_lock(&mu));
        while (turn != me && !stop)
            CHECK(pthread_cond_wait(&cv, &mu));
        int done = stop;
        turn = (me + 1) % 4;
        counter++;
        CHECK(pthread_cond_broadcast(&cv));
        CHECK(pthread_mutex_unlock(&mu));
        if (done) return NULL;
        usleep(50);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "threads";
    if (strcmp(mode, "threads") == 0) {
        threads();
    } else if (strcmp(mode, "blocked") == 0) {
        blocked(argc > 2 ? atoi(argv[2]) : 1000);
    } else if (strcmp(mode, "lock") == 0) {
        pthread_t t[32];
        for (long i = 0; i < 32; i++)
            CHECK(pthread_create(&t[i], NULL, locker, NULL));
        for (int i = 0; i < 32; i++)
            CHECK(pthread_join(t[i], NULL));
        printf("count %lu\n", counter);
    } else if (strcmp(mode, "soak") == 0) {
        double secs = argc > 2 ? atof(argv[2]) : 5, start = now_ms();
        pthread_t t[4];
        for (long i = 0; i < 4; i++)
            CHECK(pthread_create(&t[i], NULL, passer, (void *)i));
        for (int s = 1; s <= (int)secs; s++) {
            while (now_ms() < start + s * 1000.0)
                usleep(20000);
            fprintf(stderr, "rss %ld\n", status_kb("VmRSS:"));
        }
        CHECK(pthread_mutex_lock(&mu));
        stop = 1;
        CHECK(pthread_cond_broadcast(&cv));
        CHECK(pthread_mutex_unlock(&mu));
        for (int i = 0; i < 4; i++)
            CHECK(pthread_join(t[i], NULL));
        puts("soak ok");
    } else {
        return 2;
    }
    fprintf(stderr, "peak %ld\n", status_kb("VmHWM:"));
    return 0;
}
