/* handoff.c: a mutex handed from its holder to a thread asleep on it, N times: the holder
 * takes it, lets the other thread lock it, waits until glibc's lock word says a thread sleeps
 * on it (2), and releases it; the other takes it, releases it, and says so. Every round is
 * exactly one contended lock (a wait, its wake by the releaser) whatever the scheduling, so
 * callgrind counts the tracer's instructions per contended lock (bench/run.sh counts only
 * condvar waits). Invariant: strict alternation (round counters). */
#include "common.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_long go, done;
static long rounds;

static void *sleeper(void *arg)
{
    (void)arg;
    for (long i = 1; i <= rounds; i++) {
        while (atomic_load(&go) != i)
            sched_yield();
        pthread_mutex_lock(&m); /* waits: the holder releases it only once this sleeps */
        pthread_mutex_unlock(&m);
        atomic_store(&done, i);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = arg_count(argc, argv, 100000);
    pthread_t t;
    if (pthread_create(&t, NULL, sleeper, NULL) != 0) die("pthread_create");
    for (long i = 1; i <= rounds; i++) {
        pthread_mutex_lock(&m);
        atomic_store(&go, i);
        while (__atomic_load_n(&m.__data.__lock, __ATOMIC_RELAXED) != 2)
            sched_yield();
        pthread_mutex_unlock(&m);
        while (atomic_load(&done) != i)
            sched_yield();
    }
    pthread_join(t, NULL);
    return 0;
}
