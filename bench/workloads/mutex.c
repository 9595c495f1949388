/* mutex.c: N uncontended lock/unlock pairs of one mutex on one thread (the tracer's fast path:
 * nothing is emitted). Invariant: single-threaded; the mutex is never contended. */
#include "common.h"

#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile long counter;

int main(int argc, char **argv)
{
    long n = arg_count(argc, argv, 20000000);
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        counter++;
        pthread_mutex_unlock(&m);
    }
    return counter == n ? 0 : 1;
}
