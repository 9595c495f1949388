/* sync_timeout: thread `timer` makes five timed waits that all time out after 10 ms, because
 * main holds or never signals what they wait for: pthread_cond_timedwait,
 * pthread_cond_clockwait, pthread_mutex_timedlock, pthread_rwlock_timedwrlock, sem_timedwait.
 * Prints "ok" when every one returned its timeout result; otherwise a message, status 1. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t sem;

static struct timespec soon(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    ts.tv_nsec += 10 * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

static void *timer(void *arg)
{
    (void)arg;
    struct timespec ts;
    long bad = 0;
    CHECK(pthread_mutex_lock(&mu));
    ts = soon(CLOCK_REALTIME);
    bad += pthread_cond_timedwait(&cv, &mu, &ts) != ETIMEDOUT;
    ts = soon(CLOCK_MONOTONIC);
    bad += pthread_cond_clockwait(&cv, &mu, CLOCK_MONOTONIC, &ts) != ETIMEDOUT;
    CHECK(pthread_mutex_unlock(&mu));
    ts = soon(CLOCK_REALTIME);
    bad += pthread_mutex_timedlock(&held, &ts) != ETIMEDOUT;
    ts = soon(CLOCK_REALTIME);
    bad += pthread_rwlock_timedwrlock(&rw, &ts) != ETIMEDOUT;
    ts = soon(CLOCK_REALTIME);
    bad += !(sem_timedwait(&sem, &ts) == -1 && errno == ETIMEDOUT);
    return (void *)bad;
}

int main(void)
{
    pthread_t t;
    void *bad;
    CHECK(sem_init(&sem, 0, 0) != 0);
    CHECK(pthread_mutex_lock(&held));
    CHECK(pthread_rwlock_rdlock(&rw));
    CHECK(pthread_create(&t, NULL, timer, NULL));
    CHECK(pthread_join(t, &bad));
    if (bad) {
        printf("%ld waits did not time out\n", (long)bad);
        return 1;
    }
    puts("ok");
    return 0;
}
