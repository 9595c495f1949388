/* bench_stack.c: ns (CPU) per stack capture at depth ~10: stack_capture with a memo (a repeated
 * stack: checks only; and two stacks taken in turn, as a waiter and its waker's thread do),
 * without one (fast walk + intern), the fast walk alone (walk_here), libunwind's
 * unw_backtrace and an unw_step loop. Invariant: standalone, prints one line per variant. Run
 * (after `make build/libgotrace_core.a`):
 *   cc -std=c11 -D_GNU_SOURCE -O2 -g -Ipreload -Icommon bench/stack/bench_stack.c \
 *      build/libgotrace_core.a -lunwind -ldw -lelf -ldl -lpthread -o build/bench_stack && \
 *   build/bench_stack */
#define UNW_LOCAL_ONLY
#include "stack.h"

#include <libunwind.h>
#include <stdio.h>
#include <time.h>

#define ITERS 200000
#define NO_TAIL() __asm__ volatile("" ::: "memory")

static uint64_t step_loop(void)
{
    unw_context_t uc;
    unw_cursor_t c;
    unw_word_t ip, sum = 0;
    unw_getcontext(&uc);
    unw_init_local(&c, &uc);
    for (int i = 0; i < 32 && unw_step(&c) > 0; i++) {
        unw_get_reg(&c, UNW_REG_IP, &ip);
        sum += ip;
    }
    return sum;
}

static uint64_t capture_plain(void)
{
    return stack_capture(NULL);
}

static uint64_t capture_memo(void)
{
    static struct stack_memo memo;
    return stack_capture(&memo);
}

/* Two call sites taken in turn with one memo. */
static struct stack_memo memo2;
GOTRACE_API_FN static uint64_t site_a(void)
{
    uint64_t r = stack_capture(&memo2);
    NO_TAIL();
    return r;
}
GOTRACE_API_FN static uint64_t site_b(void)
{
    uint64_t r = stack_capture(&memo2);
    NO_TAIL();
    return r;
}
static uint64_t capture_memo2(void)
{
    static int flip;
    return (flip ^= 1) ? site_a() : site_b();
}

static uint64_t fast_walk(void)
{
    uintptr_t pcs[32];
    return (uint64_t)walk_here(pcs, (struct walk_limit){32, 32, 0, 0}, NULL);
}

static uint64_t raw_backtrace(void)
{
    void *pcs[32];
    return (uint64_t)unw_backtrace(pcs, 32);
}

static uint64_t (*variant)(void);

GOTRACE_API_FN static uint64_t api(void)
{
    uint64_t r = variant();
    NO_TAIL();
    return r;
}

__attribute__((noinline)) static uint64_t recurse(int n)
{
    uint64_t r = n == 0 ? api() : recurse(n - 1);
    NO_TAIL();
    return r;
}

/* The thread's CPU time: the cores are shared, time spent preempted is not the capture's. */
static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void run(const char *name, uint64_t (*fn)(void))
{
    variant = fn;
    recurse(7);
    double t0 = now_ns();
    for (int i = 0; i < ITERS; i++)
        recurse(7);
    printf("%-18s %7.1f ns/capture\n", name, (now_ns() - t0) / ITERS);
}

int main(void)
{
    stack_init(32, 1);
    run("stack_capture", capture_plain);
    run("stack_capture+memo", capture_memo);
    run("memo, 2 stacks", capture_memo2);
    run("walk_here", fast_walk);
    run("unw_backtrace", raw_backtrace);
    run("unw_step loop", step_loop);
    return 0;
}
