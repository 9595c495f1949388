/* omp_critical: an unnamed `#pragma omp critical` held long by one thread while the others wait
 * (built with gcc and with clang -fopenmp), its holder known by design. 3 rounds, a team of 3:
 * thread 1 (named crit_holder) enters the section first; the master and thread 2 (crit_waiter),
 * told by an atomic that it is held, announce themselves and enter it too. The holder keeps it
 * until both are asleep in the kernel (their /proc/self/task/TID/stat state is S: the runtime's
 * waiters sleep nowhere else meanwhile), then computes 30 ms more. So each round has 2 waits,
 * 6 in all, every one held by crit_holder (a waiter that gets the section after it holds it a
 * few microseconds while the other still waits). Prints "ok". */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

static atomic_int held, announced, tids[3];

/* Until thread tid sleeps (state S in its /proc stat). */
static void until_asleep(int tid)
{
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    for (;;) {
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
        if (f) fclose(f);
        stat[n] = 0;
        char *p = strrchr(stat, ')');
        if (p && p[1] == ' ' && p[2] == 'S') return;
        sched_yield();
    }
}

int main(void)
{
    long sum = 0;
    for (int round = 1; round <= 3; round++) {
#pragma omp parallel num_threads(3) reduction(+ : sum)
        {
            int me = omp_get_thread_num();
            atomic_store(&tids[me], (int)syscall(SYS_gettid));
            if (me == 1) {
                pthread_setname_np(pthread_self(), "crit_holder");
#pragma omp critical
                {
                    atomic_store(&held, round);
                    while (atomic_load(&announced) < 2 * round)
                        ;
                    until_asleep(atomic_load(&tids[0]));
                    until_asleep(atomic_load(&tids[2]));
                    spin_ms(30);
                    sum += 1;
                }
            } else {
                if (me == 2) pthread_setname_np(pthread_self(), "crit_waiter");
                while (atomic_load(&held) < round)
                    ;
                atomic_fetch_add(&announced, 1);
#pragma omp critical /* omp_critical: the wait */
                sum += 1;
            }
        }
    }
    if (sum != 9) {
        fprintf(stderr, "sum %ld\n", sum);
        return 1;
    }
    puts("ok");
    return 0;
}
