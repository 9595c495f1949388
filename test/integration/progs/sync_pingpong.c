/* sync_pingpong: two threads hand a turn back and forth N times (argv[1], default 200) through
 * one mutex and one condvar; each waits in pthread_cond_wait until the turn is its own, hands
 * it over, signals. Prints, per thread, "NAME waits spurious": how many times it called
 * pthread_cond_wait and how many of those returned without the turn being its own. */
#include <pthread.h>

#include "common.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn, rounds;

struct side {
    int me;
    int waits, spurious;
};

static void play(struct side *s)
{
    CHECK(pthread_mutex_lock(&mu));
    for (int i = 0; i < rounds; i++) {
        while (turn != s->me) {
            CHECK(pthread_cond_wait(&cv, &mu));
            s->waits++;
            if (turn != s->me) s->spurious++;
        }
        turn = 1 - s->me;
        CHECK(pthread_cond_signal(&cv));
    }
    CHECK(pthread_mutex_unlock(&mu));
}

static void *ping(void *arg)
{
    play(arg);
    return NULL;
}

static void *pong(void *arg)
{
    play(arg);
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atoi(argv[1]) : 200;
    struct side a = {0, 0, 0}, b = {1, 0, 0};
    pthread_t ta, tb;
    CHECK(pthread_mutex_lock(&mu)); /* both start together once main lets go */
    CHECK(pthread_create(&ta, NULL, ping, &a));
    CHECK(pthread_create(&tb, NULL, pong, &b));
    CHECK(pthread_mutex_unlock(&mu));
    CHECK(pthread_join(ta, NULL));
    CHECK(pthread_join(tb, NULL));
    printf("ping %d %d\npong %d %d\n", a.waits, a.spurious, b.waits, b.spurious);
    return 0;
}
