/* fork_small_stack.c: a thread with the smallest stack POSIX allows (PTHREAD_STACK_MIN) forks;
 * the child takes a mutex, forks once more and exits; the parent waits for it. Prints "ok" and
 * exits 0 when every child exited with status 0. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int child_then_wait(void)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        pthread_mutex_lock(&lock);
        pthread_mutex_unlock(&lock);
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void *small(void *arg)
{
    (void)arg;
    return (void *)(long)child_then_wait();
}

int main(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN) != 0) return 2;
    int bad = 0;
    for (int i = 0; i < 3; i++) {
        pthread_t th;
        void *r;
        if (pthread_create(&th, &attr, small, NULL) != 0) return 3;
        pthread_join(th, &r);
        bad += r != NULL;
    }
    printf(bad ? "%d failed\n" : "ok\n", bad);
    return bad != 0;
}
