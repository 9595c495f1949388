/* exits: three ways for a thread to end besides returning.
 *  - exiter() ends through pthread_exit() called from a nested function;
 *  - pauser() waits in pause() (a cancellation point) and main cancels it;
 *  - detached_worker() runs detached; main waits on a semaphore for its tid, then until the
 *    kernel task is gone from /proc/self/task, so its exit has fully happened.
 * Prints "ok" and exits 0 when every thread ended the expected way. */
#include <pthread.h>
#include <semaphore.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

static sem_t tid_ready;
static pid_t detached_tid;

__attribute__((noinline)) static void leave(long v)
{
    pthread_exit((void *)v);
}

static void *exiter(void *arg)
{
    (void)arg;
    spin_ms(1);
    leave(42);
    return NULL;
}

static void *pauser(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void *detached_worker(void *arg)
{
    (void)arg;
    spin_ms(1);
    detached_tid = gettid();
    sem_post(&tid_ready);
    return NULL;
}

/* Waits (bounded, 10 s) until thread tid no longer exists. */
static int wait_task_gone(pid_t tid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/task/%d", (int)tid);
    for (int i = 0; i < 10000; i++) {
        if (stat(path, &st) != 0) return 0;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return -1;
}

int main(void)
{
    pthread_t a, b, c;
    pthread_attr_t attr;
    void *ra, *rb;
    sem_init(&tid_ready, 0, 0);
    CHECK(pthread_create(&a, NULL, exiter, NULL));
    CHECK(pthread_create(&b, NULL, pauser, NULL));
    CHECK(pthread_attr_init(&attr));
    CHECK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED));
    CHECK(pthread_create(&c, &attr, detached_worker, NULL));
    CHECK(pthread_join(a, &ra));
    CHECK(pthread_cancel(b));
    CHECK(pthread_join(b, &rb));
    while (sem_wait(&tid_ready) != 0) {
    }
    if (wait_task_gone(detached_tid) != 0) {
        fprintf(stderr, "detached thread did not exit\n");
        return 1;
    }
    if ((long)ra != 42 || rb != PTHREAD_CANCELED) {
        fprintf(stderr, "unexpected results %ld %p\n", (long)ra, rb);
        return 1;
    }
    puts("ok");
    return 0;
}
