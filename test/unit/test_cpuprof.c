/* test_cpuprof.c: CPU samples. A thread with a CPU-time timer gets samples from its SIGPROF
 * handler in the ring of the current generation's parity, with its m, p and g and a stack
 * naming the busy function; draining a generation returns them once and empties the ring;
 * samples of the other parity stay for their own generation; a program installing its own
 * SIGPROF handler stops sampling, gets its handler, and saw SIG_DFL before; one installed by a
 * call no hook sees (libc's own sigaction here) is found at the program's next sigaction:
 * sampling stops the same way, and the call reports it (the kernel's disposition is the
 * truth); while the tracer holds SIGPROF, its handler is shown as the program's SIG_DFL. */
#include "cpuprof.h"
#include "stack.h"
#include "state.h"
#include "strtab.h"
#include "thread.h"

#include <criterion/criterion.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXREC 4096

struct recs {
    size_t n;
    uint64_t r[MAXREC][5];
};

static void collect(void *ctx, const uint64_t rec[5])
{
    struct recs *c = ctx;
    if (c->n < MAXREC) memcpy(c->r[c->n++], rec, 5 * sizeof *rec);
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned long burn(double ms)
{
    volatile unsigned long x = 1;
    double end = cpu_ms() + ms;
    while (cpu_ms() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005UL + 1;
    return x;
}

static struct gt_thread me = {.g = 7};
static struct gt_p my_p = {.id = 3};

static void setup(void)
{
    str_init();
    stack_init(32, 1);
    atomic_store(&me.tid, (int64_t)gettid());
    atomic_store(&me.p, &my_p);
    gt_self = &me;
    while (state_gen() < 2)
        state_advance();
    cpuprof_init(1000);
    cpuprof_thread_start(&me);
}

TestSuite(cpuprof, .init = setup);

Test(cpuprof, samples_land_in_the_current_parity_and_drain_once)
{
    cr_assert(cpuprof_enabled());
    burn(200);
    state_advance(); /* the switch: later samples go to the other ring */
    burn(100);
    struct gt_thread *ts[] = {&me};
    static struct recs a, b, c;
    cpuprof_drain(2, ts, 1, collect, &a);
    cr_assert_geq(a.n, 10, "samples of generation 2: %zu", a.n);
    for (size_t i = 0; i < a.n; i++) {
        cr_assert_eq(a.r[i][1], (uint64_t)gettid(), "m");
        cr_assert_eq(a.r[i][2], 3, "p");
        cr_assert_eq(a.r[i][3], 7, "g");
        cr_assert_gt(stack_depth(a.r[i][4]), 0, "a stack");
        if (i) cr_assert_geq(a.r[i][0], a.r[i - 1][0], "time order");
    }
    cpuprof_drain(2, ts, 1, collect, &b);
    cr_assert_eq(b.n, 0, "drained once");
    cpuprof_drain(3, ts, 1, collect, &c);
    cr_assert_geq(c.n, 3, "generation 3 kept its own samples: %zu", c.n);
    cr_assert_gt(c.r[0][0], a.r[a.n - 1][0], "generation 3 after generation 2");
}

static volatile int app_ticks;
static void app_handler(int sig)
{
    (void)sig;
    app_ticks++;
}

Test(cpuprof, own_handler_stops_sampling)
{
    struct sigaction old, sa;
    int r = -1;
    cr_assert_eq(cpuprof_sigaction(NULL, &old, &r), 1);
    cr_assert_eq(r, 0);
    cr_assert_eq(old.sa_handler, SIG_DFL, "the program sees SIG_DFL");
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    cr_assert_eq(cpuprof_sigaction(&sa, NULL, &r), 1, "SIG_IGN recorded");
    cr_assert_eq(cpuprof_sigaction(NULL, &old, &r), 1);
    cr_assert_eq(old.sa_handler, SIG_IGN);
    sa.sa_handler = app_handler;
    cr_assert_eq(cpuprof_sigaction(&sa, NULL, &r), 1, "the program's handler");
    cr_assert_eq(r, 0);
    cr_assert_eq(cpuprof_sigaction(NULL, &old, &r), 0, "forwarded from now on");
    struct gt_thread *ts[] = {&me};
    static struct recs a, b;
    cpuprof_drain(2, ts, 1, collect, &a); /* whatever was sampled before */
    burn(100);
    cpuprof_drain(2, ts, 1, collect, &b);
    cr_assert_eq(b.n, 0, "no samples after the program took SIGPROF");
    cr_assert_eq(app_ticks, 0, "the tracer's timers were deleted first");
    raise(SIGPROF);
    cr_assert_eq(app_ticks, 1, "the program's handler is installed");
}

Test(cpuprof, a_handler_set_unseen_stops_sampling)
{
    struct sigaction cur, view, sa;
    int r = -1;
    cr_assert_eq(sigaction(SIGPROF, NULL, &cur), 0);
    cr_assert_eq(cpuprof_view(cur.sa_handler, &view), 1, "the tracer's handler is installed");
    cr_assert_eq(view.sa_handler, SIG_DFL, "shown as the program's SIG_DFL");
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = app_handler;
    cr_assert_eq(sigaction(SIGPROF, &sa, NULL), 0, "set by a call no hook sees");
    cr_assert_eq(cpuprof_view(app_handler, &view), 0, "the program's handler is its own");
    cr_assert(cpuprof_sampling());
    cr_assert_eq(cpuprof_sigaction(NULL, &cur, &r), 1);
    cr_assert_eq(r, 0);
    cr_assert_eq(cur.sa_handler, app_handler, "the kernel's disposition is the truth");
    cr_assert(!cpuprof_sampling(), "sampling stopped");
    struct gt_thread *ts[] = {&me};
    static struct recs a, b;
    cpuprof_drain(2, ts, 1, collect, &a); /* whatever was sampled before */
    app_ticks = 0;                        /* ticks sent before the tracer knew */
    burn(100);
    cpuprof_drain(2, ts, 1, collect, &b);
    cr_assert_eq(b.n, 0, "no samples after the program took SIGPROF");
    cr_assert_eq(app_ticks, 0, "the tracer's timers were deleted");
}
