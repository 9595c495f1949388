/* churn.c: N threads created and joined one after another, each doing nothing. Invariant: at
 * most two threads alive at a time (main and the newest). */
#include "common.h"

#include <pthread.h>

static void *noop(void *arg)
{
    return arg;
}

int main(int argc, char **argv)
{
    long n = arg_count(argc, argv, 20000);
    for (long i = 0; i < n; i++) {
        pthread_t t;
        void *ret;
        if (pthread_create(&t, NULL, noop, (void *)i) != 0) die("pthread_create");
        if (pthread_join(t, &ret) != 0 || ret != (void *)i) return 1;
    }
    return 0;
}
