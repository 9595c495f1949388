/* status.h: G and P state transitions and the status events that make every generation stand
 * alone (Go's tracestatus). All changes of a state word go through g_move/p_move, which claim
 * the generation (see thread.h) and emit the status describing the word before the change.
 * Invariants: lock-free (CAS loops); the status of a binding state (G Running/Syscall, P
 * Running/Syscall) is only ever emitted by the owner thread or into the owner's stream. */
#ifndef GOTRACE_STATUS_H
#define GOTRACE_STATUS_H
#include "thread.h"

/* Where events go: a thread's stream inside its section, or a flusher-owned byte area. */
typedef void (*gt_emit_fn)(void *ctx, uint8_t type, int n, const uint64_t *args);

enum { MOVE_OK = 0, MOVE_STATE = 1, MOVE_SKEW = 2 };
#define SMASK(st) (1u << (st))
/* Or'ed into a move's target state: the word's sequence restarts at 0 (the mover writes a
 * status fix-up after its events, tracer.c running_fixup) instead of adding inc. */
#define MOVE_RESTART 0x100u

/* Moves t's G word, if its state is in mask, to state `to` in generation gen, adding
 * inc[old state] to its sequence (or restarting it, to | MOVE_RESTART). *seq0 = the sequence before
 * (0 when this claimed the generation), *from = the old state. MOVE_SKEW: the word already belongs
 * to a later generation (the caller restarts its section). ts (if not NULL) is set to 0 by a
 * winning move: "stale", so the writer reads the clock (fenced) when it next writes an event, after
 * the CAS: along the chain of moves of one word, times then increase whichever threads make them,
 * even when the word takes the same value again (Waiting seq 0, woken, fixed up to Running seq 0,
 * Waiting seq 0 again: a time read before a delayed CAS could date a wake before the owner's events
 * that led to that wait). The parser needs that: a G's sequence restarts at each running fix-up,
 * and it tells apart two wake-ups with the same sequence number by their times. Cold: the callers'
 * fast paths below keep their calls out of their hot code. */
__attribute__((cold)) int g_move_slow(uint64_t gen, struct gt_thread *t, unsigned mask, unsigned to,
                                      const uint8_t inc[8], uint64_t *seq0, unsigned *from,
                                      gt_emit_fn emit, void *ctx, uint64_t *ts);
__attribute__((cold)) int p_move_slow(uint64_t gen, struct gt_p *p, unsigned mask, unsigned to,
                                      unsigned inc, uint64_t *seq0, gt_emit_fn emit, void *ctx,
                                      uint64_t *ts);

/* The common case of a move, inline: the word is in gen already (no status to write) and one
 * CAS wins; it adds inc[old state] (inc_all without inc). MOVE_STATE otherwise: g_move and
 * p_move then go to their slow path, which does it all again. A word found in a state of own
 * (a mask) is moved with a plain store instead: the caller is its owner, inside a section of
 * generation gen, and nobody else leaves that state in gen (wakers move Waiting G's only; the
 * flusher claims a newer generation only once every section of gen has ended, generation.c;
 * signal handlers on the owner move nothing): the owner's own G out of Running, Syscall or
 * Runnable, its own P. */
static inline __attribute__((always_inline)) int
word_move_fast(_Atomic uint64_t *word, uint64_t gen, unsigned mask, unsigned to,
               const uint8_t inc[8], unsigned inc_all, unsigned own, uint64_t *seq0, unsigned *from,
               uint64_t *ts)
{
    uint64_t w = atomic_load_explicit(word, memory_order_acquire);
    unsigned st = word_state(w);
    if (__builtin_expect(!(mask & SMASK(st)) || word_gen(w) != gen, 0)) return MOVE_STATE;
    uint64_t base = word_seq(w);
    uint64_t seq = (to & MOVE_RESTART) ? 0 : base + (inc ? inc[st] : inc_all);
    if (own & SMASK(st))
        atomic_store_explicit(word, word_make(gen, to & 0xfu, seq), memory_order_release);
    else if (!atomic_compare_exchange_strong_explicit(word, &w, word_make(gen, to & 0xfu, seq),
                                                      memory_order_acq_rel, memory_order_acquire))
        return MOVE_STATE;
    if (ts) *ts = 0; /* timed at the next event, after this CAS (above) */
    *seq0 = base;
    *from = st;
    return MOVE_OK;
}

/* A move of t's G word: word_move_fast (by a plain store from a state of own, see there), else
 * the slow path. inc may be NULL (the sequence unchanged). */
static inline __attribute__((always_inline)) int
g_move_by(uint64_t gen, struct gt_thread *t, unsigned mask, unsigned to, const uint8_t inc[8],
          unsigned own, uint64_t *seq0, unsigned *from, gt_emit_fn emit, void *ctx, uint64_t *ts)
{
    if (word_move_fast(&t->gword, gen, mask, to, inc, 0, own, seq0, from, ts) == MOVE_OK)
        return MOVE_OK;
    return g_move_slow(gen, t, mask, to, inc, seq0, from, emit, ctx, ts);
}
static inline __attribute__((always_inline)) int
g_move(uint64_t gen, struct gt_thread *t, unsigned mask, unsigned to, const uint8_t inc[8],
       uint64_t *seq0, unsigned *from, gt_emit_fn emit, void *ctx, uint64_t *ts)
{
    return g_move_by(gen, t, mask, to, inc, 0, seq0, from, emit, ctx, ts);
}

/* The same for P's word, adding inc to its sequence. */
static inline __attribute__((always_inline)) int p_move_by(uint64_t gen, struct gt_p *p,
                                                           unsigned mask, unsigned to, unsigned inc,
                                                           unsigned own, uint64_t *seq0,
                                                           gt_emit_fn emit, void *ctx, uint64_t *ts)
{
    unsigned from;
    if (word_move_fast(&p->word, gen, mask, to, NULL, inc, own, seq0, &from, ts) == MOVE_OK)
        return MOVE_OK;
    return p_move_slow(gen, p, mask, to, inc, seq0, emit, ctx, ts);
}
static inline __attribute__((always_inline)) int p_move(uint64_t gen, struct gt_p *p, unsigned mask,
                                                        unsigned to, unsigned inc, uint64_t *seq0,
                                                        gt_emit_fn emit, void *ctx, uint64_t *ts)
{
    return p_move_by(gen, p, mask, to, inc, 0, seq0, emit, ctx, ts);
}
/* g_move (adding nothing to the sequence) and p_move of the owner's own words in states only
 * it leaves (mask), by plain stores (word_move_fast's own). */
static inline __attribute__((always_inline)) int
g_move_own(uint64_t gen, struct gt_thread *t, unsigned mask, unsigned to, uint64_t *seq0,
           unsigned *from, gt_emit_fn emit, void *ctx, uint64_t *ts)
{
    return g_move_by(gen, t, mask, to, NULL, mask, seq0, from, emit, ctx, ts);
}
static inline __attribute__((always_inline)) int
p_move_own(uint64_t gen, struct gt_p *p, unsigned mask, unsigned to, unsigned inc, uint64_t *seq0,
           gt_emit_fn emit, void *ctx, uint64_t *ts)
{
    return p_move_by(gen, p, mask, to, inc, mask, seq0, emit, ctx, ts);
}
/* At a generation switch (flusher): claims gen for t's G and P where nobody did yet. Statuses
 * of a thread that runs (tid != 0) go to own(own_ctx); those of a created, not yet started
 * thread to anon(anon_ctx). */
void status_claim_switch(struct gt_thread *t, uint64_t gen, gt_emit_fn own, void *own_ctx,
                         gt_emit_fn anon, void *anon_ctx);
#endif
