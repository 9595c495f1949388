/* waits.c: a pthreads program with known waits, recorded by the decoder tests through
 * `gotrace record`: the worker "holder" holds a mutex for 30 ms while "waiter" blocks on it,
 * then main joins both. Invariant: the only long mutex wait is waiter's (~30 ms). */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate = PTHREAD_COND_INITIALIZER;
static int held;

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    pthread_mutex_lock(&gate_mu);
    held = 1;
    pthread_cond_signal(&gate);
    pthread_mutex_unlock(&gate_mu);
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&gate_mu);
    while (!held)
        pthread_cond_wait(&gate, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    pthread_mutex_lock(&mu); /* waits until holder unlocks */
    pthread_mutex_unlock(&mu);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, holder, NULL);
    pthread_create(&b, NULL, waiter, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    char buf[16];
    int fd[2];
    if (pipe(fd) == 0) {
        write(fd[1], "x", 1);
        read(fd[0], buf, 1);
    }
    puts("done");
    return 0;
}
