/* main_exit_last: the main thread, the process's only thread, ends by pthread_exit: glibc then
 * calls exit(0) on that thread, which has already ended for the tracer. Prints "ok" first. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    puts("ok");
    fflush(stdout);
    usleep(1000); /* a traced wait, so the trace holds more than the thread's start and end */
    pthread_exit(NULL);
}
