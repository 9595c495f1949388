/* sync_barrier: THREADS (4) threads meet at one barrier ROUNDS (20) times; thread k computes
 * (k + 1) x 0.3 ms before each meeting, so the same thread tends to arrive last. Prints
 * "serial N": how many calls returned PTHREAD_BARRIER_SERIAL_THREAD (one per round). */
#include <pthread.h>
#include <stdatomic.h>

#include "common.h"

#define THREADS 4
#define ROUNDS 20

static pthread_barrier_t bar;
static atomic_int serial;

static void *member(void *arg)
{
    long k = (long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        spin_ms(0.3 * (double)(k + 1));
        int r = pthread_barrier_wait(&bar);
        if (r == PTHREAD_BARRIER_SERIAL_THREAD)
            atomic_fetch_add(&serial, 1);
        else if (r != 0)
            exit(99);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    CHECK(pthread_barrier_init(&bar, NULL, THREADS));
    for (long k = 0; k < THREADS; k++)
        CHECK(pthread_create(&t[k], NULL, member, (void *)k));
    for (int k = 0; k < THREADS; k++)
        CHECK(pthread_join(t[k], NULL));
    printf("serial %d\n", atomic_load(&serial));
    return 0;
}
