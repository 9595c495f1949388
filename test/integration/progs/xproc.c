/* xproc: waits that another process of the tree ends, for a merged trace to link
 * (xproc.sh; docs/processes.md "Waits across processes"). Usage: xproc MODE PIDFILE; appends
 * "KIND PID" lines to PIDFILE naming the processes it made; prints "ok" when every call
 * returned what was expected. Each child acts only once its parent sleeps in the expected
 * kernel function (until_sleeping_in, common.h), so each wait really blocks.
 * - child: main waits in waitpid for a child that computes (in a thread it joins) and exits.
 * - signal: main waits in sigsuspend for the SIGUSR1 a child sends with kill.
 * - two: main waits for child "first", then for child "second", each computing.
 * - sem: main waits on a process-shared semaphore in shared anonymous memory that child
 *   "poster" posts. */
#include "children.h"
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/wait.h>

static void *work(void *arg)
{
    (void)arg;
    spin_cpu_ms(40);
    return NULL;
}

/* About 40 ms of CPU work in a thread the child starts and joins (a forked child writes a
 * trace from its first traced event on: docs/robustness.md, fork). */
static void compute(pid_t parent)
{
    until_sleeping_in(parent, "do_wait");
    pthread_t t;
    CHECK(pthread_create(&t, NULL, work, NULL));
    CHECK(pthread_join(t, NULL));
}

static void *nothing(void *arg)
{
    return arg;
}

/* The sender's trace starts before its kill (a thread started and joined): a forked child's
 * tracer takes up its thread at its first traced call, timed then, which would be the kill's
 * log, after the signal woke main (docs/processes.md, "Waits across processes"). */
static void send_usr1(pid_t parent)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, nothing, NULL));
    CHECK(pthread_join(t, NULL));
    until_sleeping_in(parent, "sigsuspend");
    OK(kill(parent, SIGUSR1) == 0);
}

static sem_t *sem; /* in shared anonymous memory, process-shared */

/* Posts the semaphore main waits on, once main sleeps on it (its trace started before). */
static void post_sem(pid_t parent)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, nothing, NULL));
    CHECK(pthread_join(t, NULL));
    until_sleeping_in(parent, "futex");
    OK(sem_post(sem) == 0);
}

/* A child running fn then returning from main's exit path (exit, not _exit: its trace is
 * written), noted in the pid file as kind. */
static pid_t child(const char *kind, void (*fn)(pid_t parent))
{
    pid_t parent = getpid();
    fflush(pids);
    pid_t pid = fork();
    if (pid == 0) {
        fn(parent);
        exit(ok ? 0 : 1);
    }
    fprintf(pids, "%s %d\n", kind, (int)pid);
    fflush(pids);
    return pid;
}

static volatile sig_atomic_t got;
static void on_usr1(int sig)
{
    got = sig;
}

static void mode_signal(void)
{
    sigset_t usr1, none;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigemptyset(&none);
    OK(sigprocmask(SIG_BLOCK, &usr1, NULL) == 0);
    signal(SIGUSR1, on_usr1);
    pid_t pid = child("sender", send_usr1);
    errno = 0;
    OK(sigsuspend(&none) == -1 && errno == EINTR && got == SIGUSR1);
    reap(pid);
}

int main(int argc, char **argv)
{
    if (argc != 3 || !(pids = fopen(argv[2], "a"))) return 2;
    const char *mode = argv[1];
    if (!strcmp(mode, "child")) {
        reap(child("computer", compute));
    } else if (!strcmp(mode, "signal")) {
        mode_signal();
    } else if (!strcmp(mode, "two")) {
        reap(child("first", compute));
        reap(child("second", compute));
    } else if (!strcmp(mode, "sem")) {
        sem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        OK(sem != MAP_FAILED && sem_init(sem, 1, 0) == 0);
        pid_t pid = child("poster", post_sem);
        OK(sem_wait(sem) == 0);
        reap(pid);
    } else {
        return 2;
    }
    puts(ok ? "ok" : "failed");
    return ok ? 0 : 1;
}
