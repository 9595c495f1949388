/* robust_fork PIDFILE [fork-only]: 4 workers hammer a mutex and a condvar (so the tracer's
 * locks are busy) while main forks 12 children, one after the other. Each child starts 2
 * threads (child_worker) that use a mutex, joins them, and ends by returning from a helper
 * with exit(10 + i), by _exit(10 + i) (i % 3 == 1), or after forking a grandchild that does
 * the same work (i % 3 == 2). Unless "fork-only": a vfork child that _exits(3), a vfork child
 * that execs /bin/true, posix_spawn of /bin/true, system("exit 4"). Then main starts one
 * thread at after_children. Every child's pid goes to PIDFILE as "child PID" or "grandchild
 * PID"; stdout gets "ok" if every status was as expected. */
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

extern char **environ;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stop;
static unsigned long counter;
static FILE *pidfile;

static void *hammer(void *arg)
{
    for (;;) {
        CHECK(pthread_mutex_lock(&mu));
        counter++;
        CHECK(pthread_cond_signal(&cv));
        int done = stop;
        CHECK(pthread_mutex_unlock(&mu));
        if (done) return arg;
    }
}

static void *child_worker(void *arg)
{
    static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
    for (int i = 0; i < 2000; i++) {
        CHECK(pthread_mutex_lock(&cm));
        counter++;
        CHECK(pthread_mutex_unlock(&cm));
    }
    return arg;
}

static void child_work(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, child_worker, NULL));
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(t[i], NULL));
}

static int wait_status(pid_t pid)
{
    int st;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void note(const char *what, pid_t pid)
{
    fprintf(pidfile, "%s %ld\n", what, (long)pid);
    fflush(pidfile);
}

static void child_main(int i)
{
    child_work();
    if (i % 3 == 1) _exit(10 + i);
    if (i % 3 == 2) {
        pid_t g = fork();
        if (g == 0) {
            child_work();
            exit(0);
        }
        note("grandchild", g);
        if (wait_status(g) != 0) exit(98);
    }
    exit(10 + i);
}

static int spawns(void)
{
    int bad = 0;
    pid_t p = vfork();
    if (p == 0) _exit(3);
    bad += wait_status(p) != 3;
    p = vfork();
    if (p == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    bad += wait_status(p) != 0;
    char *argv[] = {"true", NULL};
    bad += posix_spawn(&p, "/bin/true", NULL, NULL, argv, environ) != 0 || wait_status(p) != 0;
    int st = system("exit 4");
    bad += !WIFEXITED(st) || WEXITSTATUS(st) != 4;
    return bad;
}

static void *after_children(void *arg)
{
    child_worker(arg);
    return arg;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !(pidfile = fopen(argv[1], "w"))) return 2;
    int fork_only = argc > 2 && strcmp(argv[2], "fork-only") == 0;
    pthread_t h[4], a;
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&h[i], NULL, hammer, NULL));
    int bad = 0;
    for (int i = 0; i < 12; i++) {
        pid_t p = fork();
        if (p < 0) return 3;
        if (p == 0) child_main(i);
        note("child", p);
        int st = wait_status(p);
        if (st != 10 + i) {
            fprintf(stderr, "child %d: status %d\n", i, st);
            bad++;
        }
    }
    if (!fork_only) bad += spawns();
    CHECK(pthread_create(&a, NULL, after_children, NULL));
    CHECK(pthread_join(a, NULL));
    CHECK(pthread_mutex_lock(&mu));
    stop = 1;
    CHECK(pthread_mutex_unlock(&mu));
    for (int i = 0; i < 4; i++)
        CHECK(pthread_join(h[i], NULL));
    puts(bad ? "bad" : "ok");
    return 0;
}
