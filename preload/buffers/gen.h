/* gen.h: the tracing state that every layer reads: whether tracing is on, the generation
 * being written, how many traced threads are alive, and the requests that reach the flusher
 * (flush/): end the generation early (its full buffers passed the configured size, or a kick),
 * or stop (a failure). This module owns these variables; others use the operations below.
 * Invariants: the generation only grows, by gen_advance (the flusher, under its flush lock) or
 * gen_fork_child (a forked child, single-threaded); tracing goes on once (gen_start) and off for
 * good (gen_stop, gen_fail), except in a forked child that traces anew; a size request is
 * accepted once per generation and dropped once that generation has ended (one switch per size
 * passed, not two); gen_fail logs once. The event path only reads (gen_on, gen_current) and,
 * when a buffer fills, adds (gen_note_full). */
#ifndef GOTRACE_GEN_H
#define GOTRACE_GEN_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Private: read them through the inline functions below (the event path's reads). */
extern atomic_int gen__on;
extern _Atomic uint64_t gen__current;

/* Whether tracing is on: relaxed (the event path) or acquire (after set-up on another thread). */
static inline int gen_on(void)
{
    return atomic_load_explicit(&gen__on, memory_order_relaxed);
}
static inline int gen_on_acquire(void)
{
    return atomic_load_explicit(&gen__on, memory_order_acquire);
}
/* The generation being written; acquire, ordered after entering a section (section.h). */
static inline uint64_t gen_current(void)
{
    return atomic_load_explicit(&gen__current, memory_order_acquire);
}

void gen_start(size_t flush_bytes); /* tracing on; a switch when full buffers pass this size */
void gen_stop(void);                /* tracing off (its last write follows or is done) */
/* While the process has no flusher thread (flush/flusher.h: a single-threaded program), what a
 * writer calls when a buffer fills (gen_lazy_poll, cold path; may start that thread); NULL
 * when there is nothing to call. */
extern void (*_Atomic gen__lazy_poll)(void);
void gen_set_lazy_poll(void (*poll)(void));
static inline void gen_lazy_poll(void)
{
    void (*poll)(void) = atomic_load_explicit(&gen__lazy_poll, memory_order_acquire);
    if (__builtin_expect(poll != NULL, 0)) poll();
}
/* Tracing stops for good after a failure: one "gotrace:" line naming why and the output (none
 * if why is NULL: the caller said it). */
void gen_fail(const char *why);
int gen_failed(void);
void gen_set_output_name(const char *path); /* for gen_fail's message (kept, not copied) */

/* Flusher: the next generation begins; returns the one that ended (n, now n + 1 is written). */
uint64_t gen_advance(void);
/* A forked child: the parent's state is not its own; nothing of the parent's current
 * generation is written (the generation skips one); live threads 0; requests and failure
 * cleared. */
void gen_fork_child(void);

/* Traced threads alive; gen_thread_ended returns whether it was the last one. */
void gen_thread_started(void);
int gen_thread_ended(void);
int gen_live(void);

/* Bytes of generation gen that no thread adds to any more (a full buffer; the pages an exited
 * thread's last buffer touched, and its record, reused only after generations end): when they
 * pass the configured size, asks the flusher to end gen. A live thread's partly filled buffer
 * does not count, so many threads with little to say do not force switch after switch. */
void gen_note_full(uint64_t gen, size_t bytes);
void gen_kick(void); /* asks for a switch now, whatever the generation */

/* The flusher's side of the requests. gen_wait sleeps at most ms unless a request came since
 * the last gen_take_wake; gen_take_kick consumes a kick; gen_full_due: the current generation's
 * full buffers passed the size. */
void gen_wait(uint32_t ms);
void gen_take_wake(void);
int gen_take_kick(void);
int gen_full_due(void);
#endif
