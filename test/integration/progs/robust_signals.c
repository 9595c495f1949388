/* robust_signals MODE. "handlers": main first waits in sem_wait for a one-shot SIGALRM's post
 * (so it blocks there at least once whatever the load); then a 200 us SIGALRM timer and a
 * thread sending SIGUSR1 to main
 * interrupt main while it waits in sem_wait, read, pthread_cond_timedwait and nanosleep; both
 * handlers call write() on a pipe, pthread_mutex_trylock/unlock and sem_post (hooked calls
 * inside handlers that interrupt waits, syscalls and the tracer itself). Main consumes 3000
 * posts, then prints "ok". The other modes run 2 threads of mutex work for about 150 ms, start
 * one thread at before_end, then: "segv" writes through NULL; "segv-handler" does so with a
 * SIGSEGV handler that prints "caught" and calls _exit(3); "abort" calls abort(); "assert"
 * fails an assert(). "start": 300 times, creates a thread at started and sends it SIGUSR1 at
 * once (the same handler), so the handler often runs in the new thread before its start
 * routine, then joins it; prints "ok". */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

#include "common.h"

static sem_t sem;
static int pipefd[2];
static pthread_mutex_t hm = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    int saved = errno;
    (void)sig;
    if (pthread_mutex_trylock(&hm) == 0) pthread_mutex_unlock(&hm);
    if (write(pipefd[1], "x", 1) == 1) sem_post(&sem);
    errno = saved;
}

static void *sender(void *arg)
{
    pthread_t main_thread = *(pthread_t *)arg;
    while (!stop) {
        pthread_kill(main_thread, SIGUSR1);
        struct timespec ts = {0, 300000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static int handlers(void)
{
    CHECK(sem_init(&sem, 0, 0));
    if (pipe2(pipefd, O_NONBLOCK) != 0) return 1;
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigaction(SIGALRM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    char buf[64];
    /* One sem_wait that blocks whatever the load: before the storm, only a one-shot timer 50 ms
     * later posts (sem_wait is not restarted after a handler: EINTR, then the post is there). */
    struct itimerval once = {{0, 0}, {0, 50000}};
    setitimer(ITIMER_REAL, &once, NULL);
    while (sem_wait(&sem) != 0) {
    }
    (void)!read(pipefd[0], buf, 1);
    pthread_t self = pthread_self(), s;
    CHECK(pthread_create(&s, NULL, sender, &self));
    struct itimerval it = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &it, NULL);
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    for (int got = 0; got < 3000;) {
        if (sem_wait(&sem) == 0) got++;
        (void)!read(pipefd[0], buf, 1);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20000;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        CHECK(pthread_mutex_lock(&m));
        pthread_cond_timedwait(&c, &m, &ts);
        CHECK(pthread_mutex_unlock(&m));
        struct timespec nap = {0, 10000};
        nanosleep(&nap, NULL);
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    stop = 1;
    CHECK(pthread_join(s, NULL));
    puts("ok");
    return 0;
}

static void *started(void *arg)
{
    return arg;
}

static int start(void)
{
    CHECK(sem_init(&sem, 0, 0));
    if (pipe2(pipefd, O_NONBLOCK) != 0) return 1;
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigaction(SIGUSR1, &sa, NULL);
    char buf[64];
    for (int i = 0; i < 300; i++) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, started, NULL));
        CHECK(pthread_kill(t, SIGUSR1));
        CHECK(pthread_join(t, NULL));
        while (read(pipefd[0], buf, sizeof buf) > 0) {
        }
    }
    puts("ok");
    return 0;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;
static void *work(void *arg)
{
    double end = now_ms() + 150;
    while (now_ms() < end) {
        CHECK(pthread_mutex_lock(&mu));
        counter++;
        CHECK(pthread_mutex_unlock(&mu));
        usleep(50);
    }
    return arg;
}
static void *before_end(void *arg)
{
    return arg;
}

static void on_segv(int sig)
{
    (void)sig;
    static const char msg[] = "caught\n";
    (void)!write(1, msg, sizeof msg - 1);
    _exit(3);
}

static void on_alarm_exit(int sig)
{
    (void)sig;
    _exit(7);
}

/* A thread that allocates all the time; a 20 ms timer's handler calls _exit(7) on it, most
 * likely inside malloc (holding its arena's lock), 20 times over in the 20 runs of the case. */
static int exit_in_malloc(void)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, before_end, NULL));
    CHECK(pthread_join(t, NULL));
    struct sigaction sa = {.sa_handler = on_alarm_exit};
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval once = {{0, 0}, {0, 20000}};
    setitimer(ITIMER_REAL, &once, NULL);
    for (;;) {
        void *volatile p[8];
        for (int i = 0; i < 8; i++)
            p[i] = malloc(2048 + (size_t)i * 512); /* past the tcache: the arena lock */
        for (int i = 0; i < 8; i++)
            free(p[i]);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "handlers";
    if (strcmp(mode, "handlers") == 0) return handlers();
    if (strcmp(mode, "start") == 0) return start();
    if (strcmp(mode, "exit-in-malloc") == 0) return exit_in_malloc();
    pthread_t t[3];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, work, NULL));
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(t[i], NULL));
    CHECK(pthread_create(&t[2], NULL, before_end, NULL));
    CHECK(pthread_join(t[2], NULL));
    fflush(stdout);
    volatile int *null = NULL;
    if (strcmp(mode, "segv-handler") == 0) {
        struct sigaction sa = {.sa_handler = on_segv};
        sigaction(SIGSEGV, &sa, NULL);
        *null = 1;
    } else if (strcmp(mode, "segv") == 0) {
        *null = 1;
    } else if (strcmp(mode, "abort") == 0) {
        abort();
    } else if (strcmp(mode, "assert") == 0) {
        assert(counter == 0);
    }
    return 1;
}
