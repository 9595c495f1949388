/* annot_cpu: a thread burns 1 s of its CPU time in busy_loop (not inlined); main waits in join.
 * Prints "ok". */
#include "common.h"

#include <pthread.h>

__attribute__((noinline)) static unsigned long busy_loop(double ms)
{
    return spin_cpu_ms(ms);
}

static void *busy(void *arg)
{
    (void)arg;
    return (void *)busy_loop(1000);
}

int main(void)
{
    pthread_t th;
    CHECK(pthread_create(&th, NULL, busy, NULL));
    CHECK(pthread_join(th, NULL));
    puts("ok");
    return 0;
}
