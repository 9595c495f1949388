/* early_ctor: linked with libearly (progs/early_lib.c), whose constructor starts a thread
 * before main; main starts one more thread and joins both. Prints "ok". */
#include <pthread.h>
#include <stdio.h>

extern pthread_t early_thread;

static void *worker(void *arg) { return arg; }

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    pthread_join(early_thread, NULL);
    puts("ok");
    return 0;
}
