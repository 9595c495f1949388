/* sync_hold: known waits for the profile-totals cases. main holds a mutex for 50 ms (a sleep)
 * ROUNDS (10) times while thread `waiter` waits for it in pthread_mutex_lock; between rounds
 * the two meet through atomic flags (busy-waiting, nothing the tracer hooks), so the only sync
 * waits are the 10 lock waits of about 50 ms each: main's hold starts once the waiter sleeps
 * on the lock (glibc's lock word 2: locked with a waiter), however late a loaded machine runs
 * it. Prints the waiter's measured wait in ms. */
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"

#define ROUNDS 10
#define HOLD_MS 50
#define LOCKED_WITH_WAITERS 2 /* glibc's lock word of a mutex a thread sleeps on */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int round_started, round_done;
static double waited_ms;

__attribute__((noinline)) static void wait_for_lock(void)
{
    double t0 = now_ms();
    CHECK(pthread_mutex_lock(&mu)); /* the known wait */
    waited_ms += now_ms() - t0;
    CHECK(pthread_mutex_unlock(&mu));
}

static void *waiter(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ROUNDS; i++) {
        while (atomic_load(&round_started) != i) {
        }
        wait_for_lock();
        atomic_store(&round_done, i);
    }
    return NULL;
}

int main(void)
{
    pthread_t t;
    struct timespec hold = {0, HOLD_MS * 1000000L};
    CHECK(pthread_create(&t, NULL, waiter, NULL));
    for (int i = 1; i <= ROUNDS; i++) {
        CHECK(pthread_mutex_lock(&mu));
        atomic_store(&round_started, i);
        while (__atomic_load_n(&mu.__data.__lock, __ATOMIC_ACQUIRE) != LOCKED_WITH_WAITERS) {
        }
        nanosleep(&hold, NULL);
        CHECK(pthread_mutex_unlock(&mu));
        while (atomic_load(&round_done) != i) {
        }
    }
    CHECK(pthread_join(t, NULL));
    printf("waited %.0f\n", waited_ms);
    return 0;
}
