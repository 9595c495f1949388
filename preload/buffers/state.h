/* state.h: the tracing state that every layer reads: whether tracing is on, the generation
 * being written, how many traced threads are alive, and the requests that reach the flusher
 * (flush/): end the generation early (its full buffers passed the configured size, or a kick),
 * or stop (a failure). This module owns these variables; others use the operations below.
 * Invariants: the generation only grows, by state_advance (the flusher, under its flush lock) or
 * state_fork_child (a forked child, single-threaded); tracing goes on once (state_start) and off
 * for good (state_stop, state_fail), except in a forked child that traces anew; a size request is
 * accepted once per generation and dropped once that generation has ended (one switch per size
 * passed, not two); state_fail logs once. The event path only reads (state_tracing, state_gen) and,
 * when a buffer fills, adds (state_note_full). */
#ifndef GOTRACE_STATE_H
#define GOTRACE_STATE_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Private: read them through the inline functions below (the event path's reads). */
extern atomic_int state__tracing;
extern _Atomic uint64_t state__gen;

/* Whether tracing is on: relaxed (the event path) or acquire (after set-up on another thread). */
static inline int state_tracing(void)
{
    return atomic_load_explicit(&state__tracing, memory_order_relaxed);
}
static inline int state_tracing_acquire(void)
{
    return atomic_load_explicit(&state__tracing, memory_order_acquire);
}
/* The generation being written; acquire, ordered after entering a section (section.h). */
static inline uint64_t state_gen(void)
{
    return atomic_load_explicit(&state__gen, memory_order_acquire);
}

void state_start(size_t flush_bytes); /* tracing on; a switch when full buffers pass this size */
void state_stop(void);                /* tracing off (its last write follows or is done) */
/* While the process has no flusher thread (flush/flusher.h: a single-threaded program), what a
 * writer calls when a buffer fills (state_lazy_poll, cold path; may start that thread); NULL
 * when there is nothing to call. */
extern void (*_Atomic state__lazy_poll)(void);
void state_set_lazy_poll(void (*poll)(void));
static inline void state_lazy_poll(void)
{
    void (*poll)(void) = atomic_load_explicit(&state__lazy_poll, memory_order_acquire);
    if (__builtin_expect(poll != NULL, 0)) poll();
}
/* Tracing stops for good after a failure: one "gotrace:" line naming why and the output (none
 * if why is NULL: the caller said it). */
void state_fail(const char *why);
int state_failed(void);
void state_set_output_name(const char *path); /* for state_fail's message (kept, not copied) */

/* Flusher: the next generation begins; returns the one that ended (n, now n + 1 is written). */
uint64_t state_advance(void);
/* A forked child: the parent's state is not its own; nothing of the parent's current
 * generation is written (the generation skips one); live threads 0; requests and failure
 * cleared. */
void state_fork_child(void);

/* Traced threads alive; state_thread_ended returns whether it was the last one. */
void state_thread_started(void);
int state_thread_ended(void);
int state_live(void);

/* Bytes of generation gen that no thread adds to any more (a full buffer; the pages an exited
 * thread's last buffer touched, and its record, reused only after generations end): when they
 * pass the configured size, asks the flusher to end gen. A live thread's partly filled buffer
 * does not count, so many threads with little to say do not force switch after switch. */
void state_note_full(uint64_t gen, size_t bytes);
void state_kick(void); /* asks for a switch now, whatever the generation */

/* The flusher's side of the requests. state_wait sleeps at most ms unless a request came since
 * the last state_take_wake; state_take_kick consumes a kick; state_full_due: the current
 * generation's full buffers passed the size. */
void state_wait(uint32_t ms);
void state_take_wake(void);
int state_take_kick(void);
int state_full_due(void);
#endif
