/* contended.c: 4 threads each take one shared mutex N/4 times around a short critical section.
 * Invariant: the counter ends at N (every increment is under the mutex). */
#include "common.h"

#include <pthread.h>

#define THREADS 4

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long per_thread;

static void *worker(void *arg)
{
    (void)arg;
    for (long i = 0; i < per_thread; i++) {
        pthread_mutex_lock(&m);
        counter++;
        pthread_mutex_unlock(&m);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    per_thread = arg_count(argc, argv, 4000000) / THREADS;
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&th[i], NULL, worker, NULL) != 0) die("pthread_create");
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    return counter == per_thread * THREADS ? 0 : 1;
}
