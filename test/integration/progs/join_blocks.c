/* join_blocks: main creates one thread that computes for about 200 ms and joins it at once,
 * so the join has to wait. Prints the child's result. */
#include <pthread.h>

#include "common.h"

static void *slow_worker(void *arg)
{
    (void)arg;
    return (void *)(spin_ms(200) | 1);
}

int main(void)
{
    pthread_t t;
    void *r;
    CHECK(pthread_create(&t, NULL, slow_worker, NULL));
    CHECK(pthread_join(t, &r));
    printf("done %d\n", r != NULL);
    return 0;
}
