/* bench_events.c: ns added per event on the blocking path, without the kernel's noise. Two
 * threads hand a turn back and forth ROUNDS times by spinning on an atomic (no futex), once
 * plain and once making, around each hand-off, exactly the tracer calls the condvar hooks make
 * (hooks.h WAIT_AS / WAKE_IF): the waiter tr_block (stack captured), waitq_add, waitq_remove,
 * tr_unblock; the waker tr_stack and waitq_wake_if. Each hand-off is then 4 events (GoBlock,
 * GoUnblock by the waker, GoStart, the GoStatusStack fix-up). Prints the median of RUNS runs
 * of each variant and (traced - plain) / events.
 * Invariant: standalone (links the core archive, writes its trace to a temporary file it
 * removes); exits 1 if the tracer did not start or a hand-off was not traced. */
#include "lifecycle.h"
#include "tracer.h"
#include "waitq.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 200000
#define RUNS 7
#define EVENTS_PER_WAIT 4
#define LOOPS 200000

static atomic_int turn;
static int traced;
static atomic_long untraced_waits;
static atomic_long blocks; /* traced waits of the current run */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void spin_until_turn(int me)
{
    for (unsigned i = 0; atomic_load_explicit(&turn, memory_order_acquire) != me; i++)
        if (i > 2000) sched_yield(); /* a loaded machine: let the other player run */
}

/* A frame for the captured stacks, as a hook would be. */
__attribute__((noinline)) static void wait_turn(struct gt_thread *self, int me)
{
    if (!traced) {
        spin_until_turn(me);
        return;
    }
    if (atomic_load_explicit(&turn, memory_order_acquire) == me) return;
    int blocked = tr_block(self, GT_R_CONDVAR);
    if (blocked) {
        atomic_fetch_add_explicit(&blocks, 1, memory_order_relaxed);
        waitq_add(&turn, self);
    }
    spin_until_turn(me);
    if (blocked) {
        waitq_remove(self);
        tr_unblock(self);
    } else {
        atomic_fetch_add(&untraced_waits, 1);
    }
}

__attribute__((noinline)) static void give_turn(struct gt_thread *self, int other)
{
    if (traced && waitq_bucket_count(&turn) == 1) { /* WAKE_IF(self, &turn, 1) */
        uint64_t stk = tr_stack();
        atomic_store_explicit(&turn, other, memory_order_release);
        waitq_wake_if(&turn, self, stk, 1);
        return;
    }
    atomic_store_explicit(&turn, other, memory_order_release);
}

static void *player(void *arg)
{
    int me = (int)(intptr_t)arg;
    struct gt_thread *self = traced ? tr_current() : NULL;
    for (int k = 0; k < ROUNDS; k++) {
        wait_turn(self, me);
        give_turn(self, 1 - me);
    }
    return NULL;
}

static double run_once(void)
{
    atomic_store(&turn, 0);
    pthread_t a, b;
    uint64_t t0 = now_ns();
    pthread_create(&a, NULL, player, (void *)0);
    pthread_create(&b, NULL, player, (void *)1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return (double)(now_ns() - t0);
}

/* Stand for the hooks of a wait and of a system call (the frames the stacks start at). */
__attribute__((noinline)) static void self_wait(struct gt_thread *self)
{
    if (tr_block(self, GT_R_SLEEP)) tr_unblock(self);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void syscall_like(struct gt_thread *self)
{
    if (tr_syscall_begin(self)) tr_syscall_end(self);
    __asm__ volatile("" ::: "memory");
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ns per call of hook on the calling thread, in its CPU time (the cores are shared: time spent
 * preempted is not the tracer's). */
static double per_call(void (*hook)(struct gt_thread *), struct gt_thread *self)
{
    uint64_t t0 = thread_cpu_ns();
    for (int i = 0; i < LOOPS; i++)
        hook(self);
    return (double)(thread_cpu_ns() - t0) / LOOPS;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    char path[] = "/tmp/gotrace-bench-events-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    close(fd);
    setenv("GOTRACE_OUT", path, 1);
    tr_init();
    if (!state_tracing()) {
        fprintf(stderr, "bench_events: the tracer did not start\n");
        return 1;
    }
    double plain[RUNS], with[RUNS], per_wait[RUNS];
    for (int r = 0; r < RUNS; r++) { /* alternating */
        traced = 0;
        plain[r] = run_once() / (2.0 * ROUNDS);
        traced = 1;
        atomic_store(&blocks, 0);
        with[r] = run_once();
        long n = atomic_load(&blocks);
        if (n == 0) {
            fprintf(stderr, "bench_events: no wait was traced\n");
            return 1;
        }
        per_wait[r] = with[r] / (double)n; /* a hand-off that found its turn did not wait */
        with[r] /= 2.0 * ROUNDS;
    }
    double waits[RUNS], calls[RUNS];
    struct gt_thread *self = tr_current();
    for (int r = 0; r < RUNS && self; r++) {
        waits[r] = per_call(self_wait, self);
        calls[r] = per_call(syscall_like, self);
    }
    tr_shutdown();
    unlink(path);
    if (atomic_load(&untraced_waits)) {
        fprintf(stderr, "bench_events: %ld waits were not traced\n", atomic_load(&untraced_waits));
        return 1;
    }
    qsort(plain, RUNS, sizeof *plain, cmp);
    qsort(with, RUNS, sizeof *with, cmp);
    qsort(per_wait, RUNS, sizeof *per_wait, cmp);
    if (!self) {
        fprintf(stderr, "bench_events: the main thread is not traced\n");
        return 1;
    }
    qsort(waits, RUNS, sizeof *waits, cmp);
    qsort(calls, RUNS, sizeof *calls, cmp);
    double p = plain[RUNS / 2], w = with[RUNS / 2];
    printf(
        "blocking path: %.1f ns per hand-off plain, %.1f traced (%.1f per traced wait); "
        "%.1f ns added per event (%d events per wait, stacks on); on one thread: %.1f ns (CPU) per "
        "event of a wait that ends by itself (4 events, one stack), %.1f of a system call "
        "(3 events, one stack)\n",
        p, w, per_wait[RUNS / 2], (per_wait[RUNS / 2] - p) / EVENTS_PER_WAIT, EVENTS_PER_WAIT,
        waits[RUNS / 2] / 4, calls[RUNS / 2] / 3);
    return 0;
}
