/* condvar.c: two threads pass a turn back and forth N times through one mutex and one condvar
 * (every hand-off blocks one thread and wakes the other). Invariant: strict alternation. */
#include "common.h"

#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int turn;
static long rounds;

static void *player(void *arg)
{
    int me = (int)(long)arg;
    pthread_mutex_lock(&m);
    for (long i = 0; i < rounds; i++) {
        while (turn != me)
            pthread_cond_wait(&c, &m);
        turn = !me;
        pthread_cond_signal(&c);
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = arg_count(argc, argv, 100000);
    pthread_t a, b;
    if (pthread_create(&a, NULL, player, (void *)0L) != 0) die("pthread_create");
    if (pthread_create(&b, NULL, player, (void *)1L) != 0) die("pthread_create");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
