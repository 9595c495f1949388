/* drop_privs.c: a server-like program that starts as root, starts its worker threads, then drops
 * to nobody (setgroups, setgid, setuid: the process is no longer dumpable) and serves: main hands
 * ROUNDS requests to the workers through a mutex and a condvar, each worker blocking in
 * serve_requests until one is there, and waits for each to be done. Usage: drop_privs [UID GID
 * [hold|fork|forkearly|forkexec|undumpable]] (default 65534 65534). Prints "dropped uid=U
 * dumpable=D served=N" at the end; with hold, prints it once served and then waits forever (main on
 * a condvar, the workers in serve_requests), to be killed; with fork, a forked child does it all (a
 * server's worker process), its parent waiting for it as root; forkearly, the same with the child
 * dropping root first thing, before it starts a thread or waits (it has recorded nothing then);
 * forkexec, the child drops root and execs /bin/true (no output);
 * undumpable, run as another user already, it makes itself not dumpable
 * (prctl(PR_SET_DUMPABLE, 0)) where the others drop root.
 * Invariants: workers are named "worker-N" (pthread_setname_np) before the drop; every request
 * is served exactly once, so served == ROUNDS; the workers have blocked in serve_requests'
 * pthread_cond_wait before the drop and block there again after it. */
#include "common.h"

#include <grp.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 2
#define ROUNDS 40

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static int pending, served, waiting, stop;

/* A worker: takes requests until told to stop. */
static __attribute__((noinline)) void serve_requests(void)
{
    CHECK(pthread_mutex_lock(&mu));
    for (;;) {
        while (!pending && !stop) {
            waiting++;
            CHECK(pthread_cond_broadcast(&done)); /* main waits for both to wait */
            CHECK(pthread_cond_wait(&more, &mu));
            waiting--;
        }
        if (!pending) break;
        pending--;
        served++;
        CHECK(pthread_cond_broadcast(&done));
    }
    CHECK(pthread_mutex_unlock(&mu));
}

static void *worker(void *arg)
{
    char name[16];
    snprintf(name, sizeof name, "worker-%d", (int)(long)arg);
    CHECK(pthread_setname_np(pthread_self(), name));
    serve_requests();
    return NULL;
}

/* Main waits (under mu) until cond holds. */
#define WAIT_UNTIL(cond)                                                                           \
    while (!(cond))                                                                                \
    CHECK(pthread_cond_wait(&done, &mu))

/* Root's privileges dropped for good, as servers do. */
static void drop(uid_t uid, gid_t gid)
{
    if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
        perror("drop");
        exit(98);
    }
}

/* fork mode: the parent (still root) waits for the child, which does the rest, and exits
 * with its status. */
static void in_child(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(97);
    }
    if (pid == 0) return;
    int st;
    if (waitpid(pid, &st, 0) != pid) {
        perror("waitpid");
        exit(97);
    }
    exit(WIFEXITED(st) ? WEXITSTATUS(st) : 96);
}

int main(int argc, char **argv)
{
    uid_t uid = argc > 2 ? (uid_t)atoi(argv[1]) : 65534;
    gid_t gid = argc > 2 ? (gid_t)atoi(argv[2]) : 65534;
    const char *mode = argc > 3 ? argv[3] : "";
    if (!strcmp(mode, "fork") || !strcmp(mode, "forkearly")) in_child();
    if (!strcmp(mode, "forkearly")) drop(uid, gid); /* before any thread or wait */
    if (!strcmp(mode, "forkexec")) {
        in_child();
        drop(uid, gid);
        execl("/bin/true", "true", (char *)NULL);
        perror("execl");
        return 95;
    }
    pthread_t t[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)i));
    CHECK(pthread_mutex_lock(&mu));
    WAIT_UNTIL(waiting == WORKERS); /* both blocked in serve_requests as root */
    CHECK(pthread_mutex_unlock(&mu));
    if (!strcmp(mode, "undumpable"))
        CHECK(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)); /* (run as nobody already) */
    else if (strcmp(mode, "forkearly"))
        drop(uid, gid);
    CHECK(pthread_mutex_lock(&mu));
    for (int r = 0; r < ROUNDS; r++) {
        pending++;
        CHECK(pthread_cond_signal(&more));
        WAIT_UNTIL(served == r + 1 && waiting > 0);
    }
    if (!strcmp(mode, "hold")) {
        printf("dropped uid=%d dumpable=%d served=%d\n", (int)getuid(), prctl(PR_GET_DUMPABLE),
               served);
        fflush(stdout);
        WAIT_UNTIL(stop); /* never: nothing sets it */
    }
    stop = 1;
    CHECK(pthread_cond_broadcast(&more));
    CHECK(pthread_mutex_unlock(&mu));
    for (int i = 0; i < WORKERS; i++)
        CHECK(pthread_join(t[i], NULL));
    printf("dropped uid=%d dumpable=%d served=%d\n", (int)getuid(), prctl(PR_GET_DUMPABLE), served);
    return 0;
}
