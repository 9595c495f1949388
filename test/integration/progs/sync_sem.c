/* sync_sem: a producer/consumer pair over a 4-slot ring guarded by two semaphores (free and
 * full slots). The producer sleeps 1 ms before each of ITEMS items, so the consumer waits
 * for most of them (sem_wait, sem_timedwait and sem_clockwait in turn). Then single-threaded
 * checks of results only the real calls give (EAGAIN, ETIMEDOUT, EINVAL for a malformed time
 * on a positive semaphore, which keeps its value, EINVAL for a bad clock). Prints "ok";
 * otherwise a message and exit status 1. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

#include "common.h"

#define ITEMS 40
#define SLOTS 4

static sem_t free_slots, full_slots;
static int ring[SLOTS];

static struct timespec later(clockid_t clk, long ms)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    ts.tv_nsec += ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

static void *producer(void *arg)
{
    (void)arg;
    struct timespec gap = {0, 1000000L};
    for (int i = 1; i <= ITEMS; i++) {
        nanosleep(&gap, NULL);
        if (sem_wait(&free_slots) != 0) exit(99);
        ring[i % SLOTS] = i;
        if (sem_post(&full_slots) != 0) exit(99);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    long sum = 0;
    for (int i = 1; i <= ITEMS; i++) {
        struct timespec rt = later(CLOCK_REALTIME, 10000), mt = later(CLOCK_MONOTONIC, 10000);
        int r = i % 3 == 0   ? sem_wait(&full_slots)
                : i % 3 == 1 ? sem_timedwait(&full_slots, &rt)
                             : sem_clockwait(&full_slots, CLOCK_MONOTONIC, &mt);
        if (r != 0) exit(99);
        sum += ring[i % SLOTS];
        if (sem_post(&free_slots) != 0) exit(99);
    }
    *(long *)arg = sum;
    return NULL;
}

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("%s:%d: %s is false (errno %d)\n", __FILE__, __LINE__, #cond, errno);           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static void results(void)
{
    sem_t s;
    int v;
    struct timespec bad = {0, -1}, past = later(CLOCK_REALTIME, 20),
                    mt = later(CLOCK_MONOTONIC, 20);
    EXPECT(sem_init(&s, 0, 0) == 0);
    errno = 0;
    EXPECT(sem_trywait(&s) == -1 && errno == EAGAIN);
    EXPECT(sem_timedwait(&s, &past) == -1 && errno == ETIMEDOUT);
    EXPECT(sem_post(&s) == 0);
    EXPECT(sem_timedwait(&s, &bad) == -1 && errno == EINVAL);
    EXPECT(sem_clockwait(&s, CLOCK_PROCESS_CPUTIME_ID, &mt) == -1 && errno == EINVAL);
    EXPECT(sem_getvalue(&s, &v) == 0 && v == 1);
    errno = 1234;
    EXPECT(sem_wait(&s) == 0 && errno == 1234);
}

int main(void)
{
    pthread_t p, c;
    long sum = 0;
    CHECK(sem_init(&free_slots, 0, SLOTS) != 0);
    CHECK(sem_init(&full_slots, 0, 0) != 0);
    CHECK(pthread_create(&c, NULL, consumer, &sum));
    CHECK(pthread_create(&p, NULL, producer, NULL));
    CHECK(pthread_join(p, NULL));
    CHECK(pthread_join(c, NULL));
    if (sum != (long)ITEMS * (ITEMS + 1) / 2) {
        printf("sum %ld\n", sum);
        return 1;
    }
    results();
    puts("ok");
    return 0;
}
