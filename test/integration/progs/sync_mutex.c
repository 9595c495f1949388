/* sync_mutex: 4 threads contend for one mutex of each type (normal, recursive, errorcheck,
 * robust, priority-inheritance), each taking it ITERS times in turn through
 * pthread_mutex_lock, _timedlock, _clocklock and a _trylock loop, with a short critical
 * section. Then single-threaded checks of the results only the real calls give (EDEADLK,
 * EPERM, ETIMEDOUT, EINVAL for a bad clock, EBUSY, recursion). Prints "ok" when the counters
 * and every result are right; otherwise a message and exit status 1. */
#include <errno.h>
#include <pthread.h>

#include "common.h"

#define THREADS 4
#define ITERS 100

static pthread_mutex_t mu;
static long counter;

static void deadline(struct timespec *ts, clockid_t clk, long ms)
{
    clock_gettime(clk, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void take(int i)
{
    struct timespec ts;
    switch (i % 4) {
    case 0:
        CHECK(pthread_mutex_lock(&mu));
        break;
    case 1:
        deadline(&ts, CLOCK_REALTIME, 10000);
        CHECK(pthread_mutex_timedlock(&mu, &ts));
        break;
    case 2:
        deadline(&ts, CLOCK_MONOTONIC, 10000);
        CHECK(pthread_mutex_clocklock(&mu, CLOCK_MONOTONIC, &ts));
        break;
    default:
        while (pthread_mutex_trylock(&mu) == EBUSY) {
        }
    }
}

static void *contender(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        take(i);
        counter++;
        spin_ms(0.02);
        CHECK(pthread_mutex_unlock(&mu));
    }
    return NULL;
}

static void init(int type, int robust, int pi)
{
    pthread_mutexattr_t a;
    CHECK(pthread_mutexattr_init(&a));
    CHECK(pthread_mutexattr_settype(&a, type));
    if (robust) CHECK(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST));
    if (pi) CHECK(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT));
    CHECK(pthread_mutex_init(&mu, &a));
    CHECK(pthread_mutexattr_destroy(&a));
}

#define EXPECT(call, want)                                                                         \
    do {                                                                                           \
        int got_ = (call);                                                                         \
        if (got_ != (want)) {                                                                      \
            printf("%s:%d: %s = %d, expected %d\n", __FILE__, __LINE__, #call, got_, (want));      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void *unlock_other(void *arg)
{
    return (void *)(long)pthread_mutex_unlock(arg);
}

static void *try_other(void *arg)
{
    struct timespec ts;
    deadline(&ts, CLOCK_REALTIME, 20);
    long busy = pthread_mutex_trylock(arg);
    long timed = pthread_mutex_timedlock(arg, &ts);
    return (void *)(busy * 1000 + timed);
}

static long in_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    void *r;
    CHECK(pthread_create(&t, NULL, fn, arg));
    CHECK(pthread_join(t, &r));
    return (long)r;
}

static void results(void)
{
    struct timespec ts;
    init(PTHREAD_MUTEX_ERRORCHECK, 0, 0);
    EXPECT(pthread_mutex_lock(&mu), 0);
    EXPECT(pthread_mutex_lock(&mu), EDEADLK);
    EXPECT((int)in_thread(unlock_other, &mu), EPERM);
    EXPECT((int)in_thread(try_other, &mu), EBUSY * 1000 + ETIMEDOUT);
    EXPECT(pthread_mutex_unlock(&mu), 0);
    EXPECT(pthread_mutex_unlock(&mu), EPERM);
    deadline(&ts, CLOCK_MONOTONIC, 10);
    EXPECT(pthread_mutex_clocklock(&mu, CLOCK_PROCESS_CPUTIME_ID, &ts), EINVAL);
    init(PTHREAD_MUTEX_RECURSIVE, 0, 0);
    EXPECT(pthread_mutex_lock(&mu), 0);
    EXPECT(pthread_mutex_trylock(&mu), 0);
    EXPECT(pthread_mutex_unlock(&mu), 0);
    EXPECT((int)in_thread(try_other, &mu), EBUSY * 1000 + ETIMEDOUT);
    EXPECT(pthread_mutex_unlock(&mu), 0);
    EXPECT(pthread_mutex_unlock(&mu), EPERM);
}

int main(void)
{
    static const struct {
        int type, robust, pi;
    } kinds[] = {{PTHREAD_MUTEX_NORMAL, 0, 0},
                 {PTHREAD_MUTEX_RECURSIVE, 0, 0},
                 {PTHREAD_MUTEX_ERRORCHECK, 0, 0},
                 {PTHREAD_MUTEX_NORMAL, 1, 0},
                 {PTHREAD_MUTEX_NORMAL, 0, 1}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        pthread_t t[THREADS];
        init(kinds[k].type, kinds[k].robust, kinds[k].pi);
        counter = 0;
        for (int i = 0; i < THREADS; i++)
            CHECK(pthread_create(&t[i], NULL, contender, NULL));
        for (int i = 0; i < THREADS; i++)
            CHECK(pthread_join(t[i], NULL));
        if (counter != THREADS * ITERS) {
            printf("kind %zu: counter %ld\n", k, counter);
            return 1;
        }
        CHECK(pthread_mutex_destroy(&mu));
    }
    results();
    puts("ok");
    return 0;
}
