/* sync_rwlock: 3 readers and 2 writers share a rwlock; main first holds it for writing for
 * 30 ms so that everyone starts by waiting. Readers take it ITERS times through rdlock,
 * timedrdlock and clockrdlock and check that the two guarded counters are equal; writers
 * through wrlock, timedwrlock and clockwrlock and bump both. Then single-threaded checks of
 * results only the real calls give (EDEADLK, EBUSY, EINVAL for a malformed time on a free
 * lock, EINVAL for a bad clock). Prints "ok"; otherwise a message and exit status 1. */
#include <errno.h>
#include <pthread.h>

#include "common.h"

#define ITERS 60

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long a, b;
static int torn;

static struct timespec later(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    ts.tv_sec += 10;
    return ts;
}

static void *reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        struct timespec rt = later(CLOCK_REALTIME), mt = later(CLOCK_MONOTONIC);
        CHECK(i % 3 == 0   ? pthread_rwlock_rdlock(&rw)
              : i % 3 == 1 ? pthread_rwlock_timedrdlock(&rw, &rt)
                           : pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &mt));
        if (a != b) torn = 1;
        spin_ms(0.05);
        CHECK(pthread_rwlock_unlock(&rw));
    }
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        struct timespec rt = later(CLOCK_REALTIME), mt = later(CLOCK_MONOTONIC);
        CHECK(i % 3 == 0   ? pthread_rwlock_wrlock(&rw)
              : i % 3 == 1 ? pthread_rwlock_timedwrlock(&rw, &rt)
                           : pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &mt));
        a++;
        spin_ms(0.05);
        b++;
        CHECK(pthread_rwlock_unlock(&rw));
    }
    return NULL;
}

#define EXPECT(call, want)                                                                         \
    do {                                                                                           \
        int got_ = (call);                                                                         \
        if (got_ != (want)) {                                                                      \
            printf("%s:%d: %s = %d, expected %d\n", __FILE__, __LINE__, #call, got_, (want));      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void results(void)
{
    struct timespec bad = {0, 2000000000L}, mt = later(CLOCK_MONOTONIC);
    EXPECT(pthread_rwlock_timedrdlock(&rw, &bad), EINVAL);
    EXPECT(pthread_rwlock_timedwrlock(&rw, &bad), EINVAL);
    EXPECT(pthread_rwlock_clockrdlock(&rw, CLOCK_PROCESS_CPUTIME_ID, &mt), EINVAL);
    EXPECT(pthread_rwlock_wrlock(&rw), 0);
    EXPECT(pthread_rwlock_wrlock(&rw), EDEADLK);
    EXPECT(pthread_rwlock_rdlock(&rw), EDEADLK);
    EXPECT(pthread_rwlock_tryrdlock(&rw), EBUSY);
    EXPECT(pthread_rwlock_unlock(&rw), 0);
}

int main(void)
{
    pthread_t r[3], w[2];
    struct timespec hold = {0, 30 * 1000000L};
    CHECK(pthread_rwlock_wrlock(&rw));
    for (int i = 0; i < 3; i++)
        CHECK(pthread_create(&r[i], NULL, reader, NULL));
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&w[i], NULL, writer, NULL));
    nanosleep(&hold, NULL);
    CHECK(pthread_rwlock_unlock(&rw));
    for (int i = 0; i < 3; i++)
        CHECK(pthread_join(r[i], NULL));
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(w[i], NULL));
    if (torn || a != 2 * ITERS || a != b) {
        printf("torn %d a %ld b %ld\n", torn, a, b);
        return 1;
    }
    results();
    puts("ok");
    return 0;
}
