/* names_c: two threads sleep 2 ms each (built with clang too, which emits no .debug_aranges:
 * lines must come from the units' own ranges). Prints "ok". */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
    usleep(2000); /* names_c: the wait */
    return arg;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, sleeper, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    puts("ok");
    return 0;
}
