/* keys_all.c: creates pthread keys until none is left and prints how many it got; a thread
 * then blocks (a traced wait with a stack) and the program checks every key still works. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_key_t keys[PTHREAD_KEYS_MAX + 1];

static void *sleeper(void *arg)
{
    (void)arg;
    usleep(20000);
    return NULL;
}

int main(void)
{
    int n = 0, r;
    while (n <= PTHREAD_KEYS_MAX && (r = pthread_key_create(&keys[n], NULL)) == 0)
        n++;
    pthread_t th;
    pthread_create(&th, NULL, sleeper, NULL);
    pthread_join(th, NULL);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += pthread_setspecific(keys[i], &keys[i]) != 0 || pthread_getspecific(keys[i]) != &keys[i];
    printf("%d keys, last error %s, %d bad\n", n, r == EAGAIN ? "EAGAIN" : "other", bad);
    return bad != 0;
}
