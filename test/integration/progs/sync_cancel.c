/* sync_cancel: threads cancelled while they wait: `cond_waiter` in pthread_cond_wait (its
 * cleanup handler unlocks the mutex), `sem_waiter` in sem_wait, `pipe_reader` in read() (a
 * system call), `sleeper` in nanosleep. main knows each is inside its call before cancelling
 * (the condvar waiter announced itself under the mutex that the wait releases; the others
 * after a 50 ms grace period, which only makes the wait long enough to be seen). Prints "ok"
 * when all four ended as cancelled; otherwise a message, exit status 1. */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <unistd.h>

#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int waiting;
static sem_t sem;
static int fds[2];

static void unlock_mu(void *arg)
{
    (void)arg;
    pthread_mutex_unlock(&mu);
}

static void *cond_waiter(void *arg)
{
    (void)arg;
    CHECK(pthread_mutex_lock(&mu));
    __atomic_store_n(&waiting, 1, __ATOMIC_RELEASE);
    pthread_cleanup_push(unlock_mu, NULL);
    for (;;)
        pthread_cond_wait(&cv, &mu);
    pthread_cleanup_pop(1);
    return NULL;
}

static void *sem_waiter(void *arg)
{
    (void)arg;
    for (;;)
        sem_wait(&sem);
    return NULL;
}

static void *pipe_reader(void *arg)
{
    (void)arg;
    char c;
    for (;;)
        read(fds[0], &c, 1);
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    struct timespec long_time = {100, 0};
    for (;;)
        nanosleep(&long_time, NULL);
    return NULL;
}

int main(void)
{
    void *(*fns[])(void *) = {cond_waiter, sem_waiter, pipe_reader, sleeper};
    pthread_t t[4];
    struct timespec grace = {0, 50 * 1000000L};
    if (pipe(fds) != 0 || sem_init(&sem, 0, 0) != 0) return 99;
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, fns[i], NULL));
    /* The waiter sets waiting under mu and holds mu until its wait releases it: once main
     * sees it, taking mu proves the waiter is inside pthread_cond_wait. main does not take mu
     * before (a lock polled in a loop would make the waiter's own first lock wait). */
    while (!__atomic_load_n(&waiting, __ATOMIC_ACQUIRE)) sched_yield();
    CHECK(pthread_mutex_lock(&mu));
    CHECK(pthread_mutex_unlock(&mu));
    nanosleep(&grace, NULL);
    for (int i = 0; i < 4; i++)
        CHECK(pthread_cancel(t[i]));
    for (int i = 0; i < 4; i++) {
        void *r;
        CHECK(pthread_join(t[i], &r));
        if (r != PTHREAD_CANCELED) {
            printf("thread %d was not cancelled\n", i);
            return 1;
        }
    }
    puts("ok");
    return 0;
}
