/* bench_floor.c: what the machine charges for the operations a traced wait cannot avoid, so
 * that the per-event figures of bench/events and of the workloads can be read against a floor.
 * A condvar wait (hooks/sync.c: 4 events) reads the clock 3 times (its GoBlock with RDTSC, the
 * waker's GoUnblock and its own GoStart with RDTSCP, each after the state move it reports:
 * util/clock.h) and makes 3 locked CASes (its queue add, the waker's bucket lock and its CAS of
 * the waiter's G word: api/waitq.c, writer/status.h). Across two CPUs the waker's two CASes are
 * on lines the waiter wrote last (the bucket, the waiter's first record line: buffers/thread.h),
 * and the waiter then reads its line back from the waker's CPU. Prints one line: the medians of
 * RUNS runs of each measure and the floors they make.
 * Invariants: x86-64, as the tracer; standalone (no tracer); the two-CPU measures pin their
 * threads to CPUs 0 and 1 when it can (else they run where the kernel puts them, and say so). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define RUNS 7
#define LOOPS 2000000
#define HANDOFFS 300000

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v)
{
    qsort(v, RUNS, sizeof *v, cmp);
    return v[RUNS / 2];
}

static _Alignas(64) _Atomic uint64_t line_a;
static _Alignas(64) _Atomic uint64_t line_b;
static _Alignas(64) _Atomic int turn;

/* ns per operation of a loop of LOOPS (kind 0: RDTSC, 1: RDTSCP, 2: a locked CAS on a line
 * this thread alone uses). */
static double per_op(int kind)
{
    uint64_t sum = 0, t0 = now_ns();
    for (int i = 0; i < LOOPS; i++) {
        uint32_t lo, hi, aux;
        if (kind == 0) {
            __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
            sum += lo;
        } else if (kind == 1) {
            __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
            sum += lo;
        } else {
            uint64_t v = atomic_load_explicit(&line_a, memory_order_relaxed);
            atomic_compare_exchange_strong(&line_a, &v, v + 1);
        }
    }
    double ns = (double)(now_ns() - t0) / LOOPS;
    __asm__ volatile("" ::"r"(sum));
    return ns;
}

static int with_rmw; /* each turn also CASes line_b, which the other thread CASed last */
static int pinned = 1;

static void *player(void *arg)
{
    int me = (int)(intptr_t)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(me, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) pinned = 0;
    for (int i = 0; i < HANDOFFS; i++) {
        while (atomic_load_explicit(&turn, memory_order_acquire) != me)
            ;
        if (with_rmw) {
            uint64_t v = atomic_load_explicit(&line_b, memory_order_relaxed);
            atomic_compare_exchange_strong(&line_b, &v, v + 1);
        }
        atomic_store_explicit(&turn, 1 - me, memory_order_release);
    }
    return NULL;
}

/* ns per one-way hand-off of turn between two threads on two CPUs. */
static double handoff(int rmw)
{
    with_rmw = rmw;
    atomic_store(&turn, 0);
    pthread_t a, b;
    uint64_t t0 = now_ns();
    if (pthread_create(&a, NULL, player, (void *)0) != 0 ||
        pthread_create(&b, NULL, player, (void *)1) != 0) {
        fprintf(stderr, "bench_floor: pthread_create failed\n");
        exit(1);
    }
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return (double)(now_ns() - t0) / (2.0 * HANDOFFS);
}

int main(void)
{
    double tsc[RUNS], tscp[RUNS], cas[RUNS], hand[RUNS], rmw[RUNS];
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    for (int r = 0; r < RUNS; r++) {
        tsc[r] = per_op(0);
        tscp[r] = per_op(1);
        cas[r] = per_op(2);
        hand[r] = cpus > 1 ? handoff(0) : 0;
        rmw[r] = cpus > 1 ? handoff(1) - hand[r] : 0;
    }
    double t = median(tsc), tp = median(tscp), c = median(cas);
    double one_cpu = t + 2 * tp + 3 * c;
    printf("machine floor: RDTSC %.1f ns, RDTSCP %.1f ns, a locked CAS %.1f ns", t, tp, c);
    if (cpus > 1) {
        double h = median(hand), m = median(rmw);
        printf("; a cache line handed to the other CPU %.1f ns one way, and a locked CAS on a line "
               "the other CPU wrote last %.1f ns more%s; a condvar wait's 3 clock reads and 3 "
               "locked CASes: %.0f ns (%.0f an event) on one CPU; across two, with the waker's "
               "CASes on lines the waiter wrote and the waiter's line handed back: %.0f ns (%.0f "
               "an event)",
               h, m, pinned ? "" : " (threads not pinned)", one_cpu, one_cpu / 4,
               one_cpu + 2 * m + h, (one_cpu + 2 * m + h) / 4);
    } else {
        printf("; a condvar wait's 3 clock reads and 3 locked CASes: %.0f ns (%.0f an event)",
               one_cpu, one_cpu / 4);
    }
    printf("\n");
    return 0;
}
