/* plain_lock.c: mutual exclusion and glibc's view of default mutexes that the tracer's hooks
 * take and release themselves (preload/plainlock.h), above all across the end of the lone mode:
 * the main thread hammers a default mutex while the process's second thread appears and
 * hammers it too. The second thread is made by the way named in argv[1]: "pthread"
 * (pthread_create, hooked), "c11" (thrd_create: glibc creates it internally, unhooked),
 * "timer" (a SIGEV_THREAD timer's notification thread, also created inside glibc); argv[2]
 * says how it takes the mutex: "lock", "trylock" (a trylock loop) or "timedlock". Both
 * threads count in a plain (non-atomic) counter under the mutex, so any broken exclusion
 * loses increments. Then glibc's own functions must agree with what the hooks wrote: destroy
 * refuses a held mutex, trylock reports EBUSY, the owner is the holder's TID, and a condvar
 * wait (glibc's internal unlock and relock) works. Prints "ok" when all hold, else what failed
 * (exit 1). argv[3] "no-destroy" skips the destroy of a held mutex (TSan reports it). */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <threads.h>
#include <unistd.h>

#define ROUNDS 2000000L

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static const char *how = "lock";
static volatile int second_started;
static int destroy_held = 1; /* argv[3] "no-destroy": TSan reports the destroy of a held mutex */

static void take(void)
{
    if (how[0] == 't' && how[1] == 'r') {
        int r;
        while ((r = pthread_mutex_trylock(&m)) == EBUSY)
            ;
        CHECK(r);
    } else if (how[0] == 't') {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 60;
        CHECK(pthread_mutex_timedlock(&m, &ts));
    } else {
        CHECK(pthread_mutex_lock(&m));
    }
}

static void hammer(void)
{
    for (long i = 0; i < ROUNDS; i++) {
        take();
        counter++;
        CHECK(pthread_mutex_unlock(&m));
    }
}

static int fail_count;
static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("FAILED: %s\n", what);
        fail_count++;
    }
}

/* Holder's view, with m held by the calling thread. */
static void check_held(void)
{
    expect(m.__data.__owner == gettid(), "owner is the holder's TID");
    if (destroy_held)
        expect(pthread_mutex_destroy(&m) == EBUSY, "destroy of a held mutex is EBUSY");
}

static int second_c11(void *arg)
{
    (void)arg;
    second_started = 1;
    hammer();
    take();
    check_held();
    CHECK(pthread_mutex_unlock(&m));
    return 0;
}
static void *second_pthread(void *arg)
{
    second_c11(arg);
    return NULL;
}
static pthread_mutex_t done_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_c = PTHREAD_COND_INITIALIZER;
static int done;
static void second_timer(union sigval v)
{
    second_c11(v.sival_ptr);
    CHECK(pthread_mutex_lock(&done_m));
    done = 1;
    CHECK(pthread_cond_signal(&done_c));
    CHECK(pthread_mutex_unlock(&done_m));
}

int main(int argc, char **argv)
{
    const char *by = argc > 1 ? argv[1] : "pthread";
    if (argc > 2) how = argv[2];
    if (argc > 3 && !strcmp(argv[3], "no-destroy")) destroy_held = 0;

    /* Alone: glibc's view of the hooks' work on one thread. */
    take();
    check_held();
    expect(pthread_mutex_trylock(&m) == EBUSY, "trylock of a held mutex is EBUSY");
    CHECK(pthread_mutex_unlock(&m));
    expect(m.__data.__owner == 0 && m.__data.__lock == 0 && m.__data.__nusers == 0,
           "released mutex is clear");
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    struct timespec soon;
    clock_gettime(CLOCK_REALTIME, &soon);
    soon.tv_nsec += 1000000;
    if (soon.tv_nsec >= 1000000000L) soon.tv_sec++, soon.tv_nsec -= 1000000000L;
    take();
    expect(pthread_cond_timedwait(&c, &m, &soon) == ETIMEDOUT, "condvar wait times out");
    check_held();
    CHECK(pthread_mutex_unlock(&m));

    thrd_t ct;
    pthread_t pt;
    timer_t timer;
    if (!strcmp(by, "c11")) {
        if (thrd_create(&ct, second_c11, NULL) != thrd_success) return 99;
    } else if (!strcmp(by, "timer")) {
        struct sigevent sev = {.sigev_notify = SIGEV_THREAD, .sigev_notify_function = second_timer};
        struct itimerspec its = {.it_value = {0, 1}};
        CHECK(timer_create(CLOCK_MONOTONIC, &sev, &timer));
        CHECK(timer_settime(timer, 0, &its, NULL));
    } else {
        CHECK(pthread_create(&pt, NULL, second_pthread, NULL));
    }
    hammer(); /* from the start: the second thread's first lock falls inside this loop */
    if (!second_started) printf("note: the second thread started after the main loop\n");

    if (!strcmp(by, "c11")) {
        if (thrd_join(ct, NULL) != thrd_success) return 99;
    } else if (!strcmp(by, "timer")) {
        CHECK(pthread_mutex_lock(&done_m));
        while (!done)
            CHECK(pthread_cond_wait(&done_c, &done_m));
        CHECK(pthread_mutex_unlock(&done_m));
        timer_delete(timer);
    } else {
        CHECK(pthread_join(pt, NULL));
    }
    expect(counter == 2 * ROUNDS, "no increment lost under the mutex");
    if (counter != 2 * ROUNDS) printf("counter %ld, expected %ld\n", counter, 2 * ROUNDS);
    expect(pthread_mutex_destroy(&m) == 0, "destroy of a free mutex");
    if (fail_count) return 1;
    printf("ok\n");
    return 0;
}
