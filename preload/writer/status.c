/* status.c: G/P state words and status events. See status.h and thread.h for the invariants. */
#include "status.h"

#include "stack.h"

static void emit_g_status(uint64_t gen, struct gt_thread *t, unsigned st, gt_emit_fn emit,
                          void *ctx)
{
    uint64_t tid = (uint64_t)atomic_load_explicit(&t->tid, memory_order_relaxed);
    switch (st) {
    case GO_G_RUNNING:
    case GO_G_SYSCALL:
        emit(ctx, GO_EV_GO_STATUS, 3, (uint64_t[]){t->g, tid, st});
        break;
    case GO_G_WAITING: {
        /* Once: the stack marked must be the stack written. */
        uint64_t stk = atomic_load_explicit(&t->block_stack, memory_order_relaxed);
        stack_mark(stk, gen);
        emit(ctx, GO_EV_GO_STATUS_STACK, 4, (uint64_t[]){t->g, GO_NO_THREAD, st, stk});
        break;
    }
    case GO_G_RUNNABLE:
        emit(ctx, GO_EV_GO_STATUS, 3, (uint64_t[]){t->g, GO_NO_THREAD, st});
        break;
    default:
        break;
    }
}

/* The CAS loop shared by G and P words (adds inc[old state], or inc_all without inc; the
 * uncontended case is word_move_fast in status.h): on MOVE_OK, *claimed says whether this move
 * claimed generation gen (so the caller emits the status of *from, the state before). */
static int word_move(_Atomic uint64_t *word, uint64_t gen, unsigned mask, unsigned to,
                     const uint8_t inc[8], unsigned inc_all, uint64_t *seq0, unsigned *from,
                     int *claimed, uint64_t *ts)
{
    uint64_t w = atomic_load_explicit(word, memory_order_acquire);
    for (;;) {
        unsigned st = word_state(w);
        if (!(mask & SMASK(st))) return MOVE_STATE;
        if (word_gen(w) > gen) return MOVE_SKEW;
        int claim = word_gen(w) < gen;
        uint64_t base = claim ? 0 : word_seq(w);
        uint64_t seq = (to & MOVE_RESTART) ? 0 : base + (inc ? inc[st] : inc_all);
        uint64_t nw = word_make(gen, to & 0xfu, seq);
        if (atomic_compare_exchange_weak_explicit(word, &w, nw, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            if (ts) *ts = 0; /* timed at the next event, after this CAS (status.h) */
            *seq0 = base;
            *from = st;
            *claimed = claim;
            return MOVE_OK;
        }
    }
}

int g_move_slow(uint64_t gen, struct gt_thread *t, unsigned mask, unsigned to, const uint8_t inc[8],
                uint64_t *seq0, unsigned *from, gt_emit_fn emit, void *ctx, uint64_t *ts)
{
    int claimed;
    int r = word_move(&t->gword, gen, mask, to, inc, 0, seq0, from, &claimed, ts);
    if (r == MOVE_OK && claimed) emit_g_status(gen, t, *from, emit, ctx);
    return r;
}

int p_move_slow(uint64_t gen, struct gt_p *p, unsigned mask, unsigned to, unsigned inc,
                uint64_t *seq0, gt_emit_fn emit, void *ctx, uint64_t *ts)
{
    unsigned from;
    int claimed;
    int r = word_move(&p->word, gen, mask, to, NULL, inc, seq0, &from, &claimed, ts);
    if (r == MOVE_OK && claimed) emit(ctx, GO_EV_PROC_STATUS, 2, (uint64_t[]){p->id, from});
    return r;
}

#define LIVE_G                                                                                     \
    (SMASK(GO_G_RUNNABLE) | SMASK(GO_G_RUNNING) | SMASK(GO_G_SYSCALL) | SMASK(GO_G_WAITING))
#define ANY_P (SMASK(GO_P_RUNNING) | SMASK(GO_P_IDLE) | SMASK(GO_P_SYSCALL))

void status_claim_switch(struct gt_thread *t, uint64_t gen, gt_emit_fn own, void *own_ctx,
                         gt_emit_fn anon, void *anon_ctx)
{
    int runs = atomic_load_explicit(&t->tid, memory_order_acquire) != 0;
    gt_emit_fn emit = runs ? own : anon;
    void *ctx = runs ? own_ctx : anon_ctx;
    uint64_t seq0;
    unsigned from;
    for (;;) {
        uint64_t w = atomic_load_explicit(&t->gword, memory_order_acquire);
        unsigned st = word_state(w);
        if (word_gen(w) >= gen || !(LIVE_G & SMASK(st))) break;
        /* Same state, sequence restarts: a pure claim. Retry if the state moved meanwhile. */
        if (g_move(gen, t, SMASK(st), st, NULL, &seq0, &from, emit, ctx, NULL) == MOVE_OK) break;
    }
    struct gt_p *p = atomic_load_explicit(&t->p, memory_order_acquire);
    if (!p || !runs) return;
    for (;;) {
        uint64_t w = atomic_load_explicit(&p->word, memory_order_acquire);
        unsigned st = word_state(w);
        if (word_gen(w) >= gen || !(ANY_P & SMASK(st))) break;
        if (p_move(gen, p, SMASK(st), st, 0, &seq0, own, own_ctx, NULL) == MOVE_OK) break;
    }
}
