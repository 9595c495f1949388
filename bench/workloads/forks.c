/* forks.c: a threaded program that forks N children one after another while two threads pass a
 * condvar turn back and forth (a short sleep each turn), so the tracer's locks and buffers are
 * in use at every fork. `forks N`: each child exits at once (exit(0)); the parent reaps them all
 * at the end. `forks N serial`: each child waits for its parent's word on a pipe (a blocking read:
 * a traced child with a trace of its own to write), then exits; the parent forks it, gives the
 * word and reaps it before the next one. Invariant: every child exits 0. */
#include "common.h"

#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int turn, stop;

static void *player(void *arg)
{
    int me = (int)(long)arg;
    struct timespec pause = {0, 100000};
    pthread_mutex_lock(&m);
    while (!stop) {
        while (turn != me && !stop)
            pthread_cond_wait(&c, &m);
        turn = !me;
        pthread_cond_signal(&c);
        pthread_mutex_unlock(&m);
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&m);
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

static int reaped_ok(pid_t pid)
{
    int st;
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Children that exit at once, reaped at the end. */
static int at_once(long n)
{
    pid_t *kids = calloc((size_t)n, sizeof *kids);
    if (!kids) die("calloc");
    for (long i = 0; i < n; i++) {
        kids[i] = fork();
        if (kids[i] < 0) die("fork");
        if (kids[i] == 0) exit(0);
    }
    int ok = 1;
    for (long i = 0; i < n; i++)
        ok &= reaped_ok(kids[i]);
    free(kids);
    return ok;
}

/* One child at a time, each released by a word on a pipe. */
static int serial(long n)
{
    for (long i = 0; i < n; i++) {
        int go[2];
        if (pipe(go) != 0) die("pipe");
        pid_t pid = fork();
        if (pid < 0) die("fork");
        if (pid == 0) {
            char word;
            close(go[1]);
            exit(read(go[0], &word, 1) == 1 ? 0 : 2);
        }
        close(go[0]);
        if (write(go[1], "x", 1) != 1) die("write");
        close(go[1]);
        if (!reaped_ok(pid)) return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    long n = arg_count(argc, argv, 200);
    pthread_t a, b;
    if (pthread_create(&a, NULL, player, (void *)0L) != 0) die("pthread_create");
    if (pthread_create(&b, NULL, player, (void *)1L) != 0) die("pthread_create");
    int ok = argc > 2 && strcmp(argv[2], "serial") == 0 ? serial(n) : at_once(n);
    pthread_mutex_lock(&m);
    stop = 1;
    pthread_cond_broadcast(&c);
    pthread_mutex_unlock(&m);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return ok ? 0 : 1;
}
