/* stack_use.c: how much of a thread's stack the traced calls use. A worker thread runs on a
 * stack painted with a pattern and makes hooked calls of every kind: a contended mutex, a
 * condvar wait and signal, rwlocks, a semaphore, sleeps, pipe reads and writes, poll, a thread
 * created and joined, a fork, then exits. Prints the bytes of its stack that were touched
 * (the deepest overwritten byte). With MIN as argument the worker's stack is PTHREAD_STACK_MIN
 * instead (no measurement: it must just not crash), and prints "ok". */
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAINTED (512 * 1024)
#define PATTERN 0xa5

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t sem;
static int fds[2], flag;

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    usleep(20000); /* the worker waits for the mutex meanwhile */
    flag = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    usleep(20000);
    sem_post(&sem);
    char c = 'x';
    if (write(fds[1], &c, 1) != 1) exit(3);
    return NULL;
}

static void *nothing(void *arg)
{
    return arg;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_t h, t;
    pthread_create(&h, NULL, holder, NULL);
    usleep(5000);
    pthread_mutex_lock(&mu); /* contended */
    while (!flag)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    pthread_rwlock_wrlock(&rw);
    pthread_rwlock_unlock(&rw);
    sem_wait(&sem);
    struct pollfd p = {fds[0], POLLIN, 0};
    poll(&p, 1, 1000);
    char c;
    if (read(fds[0], &c, 1) != 1) exit(3);
    pthread_create(&t, NULL, nothing, NULL);
    pthread_join(t, NULL);
    pthread_join(h, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        pthread_mutex_lock(&mu);
        pthread_mutex_unlock(&mu);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) exit(4);
    return NULL;
}

int main(int argc, char **argv)
{
    int min = argc > 1 && strcmp(argv[1], "MIN") == 0;
    sem_init(&sem, 0, 0);
    if (pipe(fds) != 0) return 2;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    unsigned char *stack = NULL;
    if (min) {
        pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
    } else {
        stack = mmap(NULL, PAINTED, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (stack == MAP_FAILED) return 2;
        memset(stack, PATTERN, PAINTED);
        pthread_attr_setstack(&attr, stack, PAINTED);
    }
    pthread_t w;
    if (pthread_create(&w, &attr, worker, NULL) != 0) return 2;
    pthread_join(w, NULL);
    if (min) {
        printf("ok\n");
        return 0;
    }
    size_t i = 0;
    while (i < PAINTED && stack[i] == PATTERN)
        i++;
    printf("%zu\n", (size_t)PAINTED - i);
    return 0;
}
