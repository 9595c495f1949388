/* flight.c MODE: two threads wait 1 ms at a time until main stops them, then "ok".
 *   api: main dumps the flight recorder at 1.5 s and 2.5 s (gotrace_flight_dump) and stops
 *        the threads at 3 s; prints each dump's result ("dump 0" traced in flight mode).
 *   signal: main sends itself SIGUSR2 at 1.5 s (the tracer's trigger: run it traced only),
 *        stops at 2.5 s.
 *   handler: main installs its own SIGUSR2 handler first, sends SIGUSR2 at 0.5 s and prints
 *        how often its handler ran ("handled 1" traced or not: the program's handler wins).
 *   exit: stops at 1.5 s (with GOTRACE_FLIGHT_AT_EXIT=1 the tracer dumps at exit). */
#include "../../../include/gotrace.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int stop;
static volatile sig_atomic_t handled;

static void *waiter(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        usleep(1000);
    return NULL;
}

static void on_usr2(int sig)
{
    (void)sig;
    handled++;
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    const char *mode = argv[1];
    if (strcmp(mode, "handler") == 0) signal(SIGUSR2, on_usr2);
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, waiter, NULL);
    if (strcmp(mode, "api") == 0) {
        usleep(1500000);
        printf("dump %d\n", gotrace_flight_dump());
        usleep(1000000);
        printf("dump %d\n", gotrace_flight_dump());
        usleep(500000);
    } else if (strcmp(mode, "signal") == 0) {
        usleep(1500000);
        kill(getpid(), SIGUSR2);
        usleep(1000000);
    } else if (strcmp(mode, "handler") == 0) {
        usleep(500000);
        kill(getpid(), SIGUSR2);
        usleep(100000);
        printf("handled %d\n", (int)handled);
    } else {
        usleep(1500000);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    printf("ok\n");
    return 0;
}
