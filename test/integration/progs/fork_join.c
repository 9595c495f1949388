/* fork_join fork PIDFILE N | late: joins of a thread whose exit races with the join.
 * fork: 4 threads (hammer) lock a mutex and malloc and free without pause while main forks N
 * children at once, then waits for them. Each child starts one thread (sleeper) that sleeps
 * 5 ms, joins it and exits 0. The children's pids go to PIDFILE as "child PID".
 * late: main joins a thread (late_exit) whose start routine has returned (its traced exit is
 * over) while a thread-specific-data destructor still runs in it: the destructor returns only
 * once main sleeps in the kernel (its join waits), so the join really waits, after the exit.
 * stdout gets "ok" when every child exited 0 (fork) or the join returned 0 (late), and
 * "unobservable" when the kernel does not show which system call a thread is in. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int stop;
static unsigned long counter;

static void *hammer(void *arg)
{
    while (!atomic_load(&stop)) {
        CHECK(pthread_mutex_lock(&mu));
        counter++;
        CHECK(pthread_mutex_unlock(&mu));
        void *volatile p = malloc(64 + counter % 4096);
        free(p);
    }
    return arg;
}

static void *sleeper(void *arg)
{
    struct timespec ts = {0, 1000 * 1000};
    nanosleep(&ts, NULL);
    return arg;
}

static void child_main(int joins)
{
    for (int i = 0; i < joins; i++) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, sleeper, NULL));
        CHECK(pthread_join(t, NULL));
    }
    exit(0);
}

static int forks(const char *pidpath, int n, int joins)
{
    FILE *pidfile = fopen(pidpath, "w");
    if (!pidfile || n < 1 || n > 1000) return 2;
    pthread_t h[4];
    pid_t pids[1000];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&h[i], NULL, hammer, NULL));
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] < 0) return 3;
        if (pids[i] == 0) child_main(joins);
        fprintf(pidfile, "child %ld\n", (long)pids[i]);
        fflush(pidfile); /* not again by the children's exit */
    }
    fclose(pidfile);
    int bad = 0, st;
    for (int i = 0; i < n; i++)
        bad += waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++)
        CHECK(pthread_join(h[i], NULL));
    return bad;
}

static pid_t main_tid;
static atomic_int in_destructor;

static atomic_int unobservable;

/* Whether thread tid is in futex(2) (its join: main does nothing else then); -1 if this
 * kernel does not say (no /proc/PID/task/TID/syscall). */
static int in_futex(pid_t tid)
{
    char path[64], buf[64] = "", want[16];
    snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", (long)tid);
    snprintf(want, sizeof want, "%d ", SYS_futex);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (k <= 0) return -1;
    return strncmp(buf, want, strlen(want)) == 0;
}

static void destructor(void *value)
{
    (void)value;
    atomic_store(&in_destructor, 1);
    int r;
    while ((r = in_futex(main_tid)) == 0)
        sched_yield();
    if (r < 0) atomic_store(&unobservable, 1);
}

static void *late_exit(void *arg)
{
    pthread_key_t *key = arg;
    CHECK(pthread_setspecific(*key, arg));
    return NULL;
}

static int late(void)
{
    static pthread_key_t key;
    main_tid = gettid();
    CHECK(pthread_key_create(&key, destructor));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, late_exit, &key));
    while (!atomic_load(&in_destructor))
        sched_yield();
    int r = pthread_join(t, NULL);
    if (atomic_load(&unobservable)) {
        puts("unobservable");
        exit(0);
    }
    return r != 0;
}

int main(int argc, char **argv)
{
    int bad;
    if (argc == 5 && strcmp(argv[1], "fork") == 0)
        bad = forks(argv[2], atoi(argv[3]), atoi(argv[4]));
    else if (argc == 2 && strcmp(argv[1], "late") == 0)
        bad = late();
    else
        return 2;
    puts(bad ? "bad" : "ok");
    return 0;
}
