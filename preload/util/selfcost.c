/* selfcost.c: the tracer's own time, by part. See selfcost.h for the invariants. */
#include "selfcost.h"

#include "clock.h"

#include <stdatomic.h>
#include <stdio.h>

static atomic_int on;
static struct {
    _Atomic uint64_t ns, n;
} part[SC_PARTS];

void selfcost_enable(int enabled)
{
    atomic_store_explicit(&on, enabled, memory_order_relaxed);
}

uint64_t selfcost_begin(void)
{
    return atomic_load_explicit(&on, memory_order_relaxed) ? gt_now_ns() : 0;
}

void selfcost_end(enum selfcost_part p, uint64_t t0, uint64_t n)
{
    if (!t0) return;
    atomic_fetch_add_explicit(&part[p].ns, gt_now_ns() - t0, memory_order_relaxed);
    atomic_fetch_add_explicit(&part[p].n, n, memory_order_relaxed);
}

void selfcost_fork_child(void)
{
    for (int p = 0; p < SC_PARTS; p++) {
        atomic_store_explicit(&part[p].ns, 0, memory_order_relaxed);
        atomic_store_explicit(&part[p].n, 0, memory_order_relaxed);
    }
}

static unsigned long long us(enum selfcost_part p)
{
    return (unsigned long long)(atomic_load_explicit(&part[p].ns, memory_order_relaxed) / 1000);
}

static unsigned long long count(enum selfcost_part p)
{
    return (unsigned long long)atomic_load_explicit(&part[p].n, memory_order_relaxed);
}

int selfcost_format(char *buf, size_t cap)
{
    int k = snprintf(buf, cap,
                     "the tracer's own time here: start-up %llu us; %llu stack walks %llu us, "
                     "%llu new unwind rules %llu us of it; %llu live-file pages backed %llu us; "
                     "%llu stack tables %llu us; final write %llu us; %llu forks %llu us; "
                     "set-up as a forked child %llu us",
                     us(SC_START), count(SC_WALK), us(SC_WALK), count(SC_RULE), us(SC_RULE),
                     count(SC_BACK), us(SC_BACK), count(SC_SYMBOLS), us(SC_SYMBOLS), us(SC_FINAL),
                     count(SC_FORK), us(SC_FORK), us(SC_CHILD));
    return k < 0 ? 0 : (size_t)k >= cap ? (int)cap - 1 : k;
}
