/* mutex_mt.c: N uncontended lock/unlock pairs of one mutex on one thread, while a second thread
 * exists (it waits in read() until the loop ends). Every pthreads program has a second thread,
 * and so has a traced one (the tracer's flusher): glibc's lock takes a non-atomic shortcut only
 * while a process has a single thread, so this is the fair comparison of the lock path between
 * the tracer and the do-nothing interposer. Invariant: the mutex is never contended. */
#include "common.h"

#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile long counter;
static int fds[2];

static void *idle(void *arg)
{
    char b;
    (void)arg;
    return read(fds[0], &b, 1) == 1 ? NULL : (void *)1;
}

int main(int argc, char **argv)
{
    long n = arg_count(argc, argv, 20000000);
    pthread_t t;
    if (pipe(fds) != 0) die("pipe");
    if (pthread_create(&t, NULL, idle, NULL) != 0) die("pthread_create");
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        counter++;
        pthread_mutex_unlock(&m);
    }
    void *r;
    if (write(fds[1], "x", 1) != 1) die("write");
    pthread_join(t, &r);
    return counter == n && !r ? 0 : 1;
}
