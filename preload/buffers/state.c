/* state.c: the tracing state and the requests to the flusher. See state.h for the invariants. */
#include "state.h"

#include "arena.h"
#include "log.h"
#include "real.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>

atomic_int state__tracing;
_Atomic uint64_t state__gen = 1;
void (*_Atomic state__lazy_poll)(void);

static struct {
    atomic_int live;
    atomic_int failed;
    const char *output;
    size_t flush_bytes;
    _Atomic size_t filled[2];  /* event bytes in full buffers, by generation parity */
    _Atomic uint64_t full_gen; /* the last generation whose full buffers passed flush_bytes */
    _Atomic uint32_t wake;     /* futex word: something for the flusher to look at */
    atomic_int kicked;         /* state_kick: switch now, whatever the generation */
} S;

/* The generation for the reader of a killed process's file, stored before the generation
 * itself: events of a generation it names are never missed. */
static void publish(uint64_t n)
{
    struct gt_live_head *h = arena_head();
    if (h) h->gen_current = n;
    atomic_signal_fence(memory_order_seq_cst);
}

void state_start(size_t flush_bytes)
{
    S.flush_bytes = flush_bytes;
    publish(atomic_load(&state__gen));
    atomic_store(&state__tracing, 1);
}

void state_stop(void)
{
    atomic_store(&state__tracing, 0);
}

void state_set_lazy_poll(void (*poll)(void))
{
    atomic_store_explicit(&state__lazy_poll, poll, memory_order_release);
}

void state_fail(const char *why)
{
    atomic_store(&state__tracing, 0);
    arena_complete(); /* the file keeps what was written; no more to recover */
    if (!atomic_exchange(&S.failed, 1) && why)
        gt_log("%s; tracing stops, %s keeps the generations written so far", why,
               S.output ? S.output : "the trace");
}

int state_failed(void)
{
    return atomic_load(&S.failed);
}

void state_set_output_name(const char *path)
{
    S.output = path;
}

uint64_t state_advance(void)
{
    uint64_t n = atomic_load(&state__gen);
    atomic_store_explicit(&S.filled[(n + 1) & 1], 0, memory_order_relaxed); /* n - 1 is over */
    publish(n + 1);
    atomic_store_explicit(&state__gen, n + 1, memory_order_seq_cst);
    return n;
}

void state_fork_child(void)
{
    publish(atomic_fetch_add(&state__gen, 1) + 1);
    atomic_store(&S.live, 0);
    atomic_store(&S.failed, 0);
    atomic_store(&S.wake, 0);
    atomic_store(&S.kicked, 0);
    atomic_store(&S.full_gen, 0);
    atomic_store(&S.filled[0], 0);
    atomic_store(&S.filled[1], 0);
}

void state_thread_started(void)
{
    atomic_fetch_add(&S.live, 1);
}

int state_thread_ended(void)
{
    return atomic_fetch_sub(&S.live, 1) == 1;
}

int state_live(void)
{
    return atomic_load(&S.live);
}

static void wake_flusher(void)
{
    atomic_store(&S.wake, 1);
    REAL(syscall)(SYS_futex, &S.wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void state_note_full(uint64_t gen, size_t bytes)
{
    size_t sum = atomic_fetch_add_explicit(&S.filled[gen & 1], bytes, memory_order_relaxed) + bytes;
    if (sum <= S.flush_bytes || gen != atomic_load_explicit(&state__gen, memory_order_relaxed))
        return;
    uint64_t asked = atomic_load_explicit(&S.full_gen, memory_order_relaxed);
    if (asked < gen && atomic_compare_exchange_strong(&S.full_gen, &asked, gen))
        wake_flusher(); /* once per generation */
}

void state_kick(void)
{
    atomic_store(&S.kicked, 1);
    wake_flusher();
}

/* The tracer's own futex calls bypass the syscall hook (they are not the program's). */
void state_wait(uint32_t ms)
{
    if (atomic_load(&S.wake)) return;
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    REAL(syscall)(SYS_futex, &S.wake, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
}

void state_take_wake(void)
{
    atomic_store(&S.wake, 0); /* what sets it from now on is seen in the next round */
}

int state_take_kick(void)
{
    return atomic_exchange(&S.kicked, 0);
}

int state_full_due(void)
{
    return atomic_load(&S.full_gen) == atomic_load(&state__gen);
}
