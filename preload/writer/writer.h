/* writer.h: the event writer (Go's traceWriter): sections, events, the stacks and strings they
 * use, and the status events their state moves need (status.h). The semantic API (tracer.c)
 * says what happens; this writes it into the calling thread's buffers.
 *
 * Every event is written inside the writer's thread's seqlock section (section.h): wr_begin
 * enters it and reads the generation, events go to the buffer of that generation's parity,
 * wr_end leaves. The flusher switches generations and waits for sections of the old one to end
 * before taking its buffers. Stacks are captured before a section opens, so sections stay short.
 * Events are timed by the state move they report (status.h: times increase along each G's
 * moves, across threads). A section whose G word already belongs to a newer generation (a
 * waker got there first: a move returns MOVE_SKEW) restarts.
 * Invariants: only a thread's owner (or a signal handler on it, inside the tracer) writes into
 * its streams; no malloc, no lock on the event path (a buffer filling takes the pool's lock);
 * an event is written only while its stream has GT_EV_MAX bytes of room (wr_refill keeps it);
 * every stack and string an event names is marked in the section's generation, so the flusher
 * writes it in that generation's tables. */
#ifndef GOTRACE_WRITER_H
#define GOTRACE_WRITER_H
#include "buf.h"
#include "clock.h"
#include "event.h"
#include "invariant.h"
#include "section.h"
#include "stack.h"
#include "state.h"
#include "status.h"
#include "strtab.h"
#include "thread.h"

#include <string.h>

struct gt_writer {
    struct gt_thread *t;
    uint64_t gen;
    uint64_t ts; /* time of the events being written; 0: read it at the next one (a move) */
    struct gt_stream *st; /* t's stream of gen's parity, where they go */
};

static inline __attribute__((always_inline)) void wr_begin(struct gt_writer *w, struct gt_thread *t)
{
    GT_ASSERT(t->depth > 0); /* events are written from inside the tracer only */
    sect_enter(&t->seq);
    w->t = t;
    w->gen = state_gen(); /* ordered after the enter: section.h */
    w->ts = 0;
    w->st = &t->stream[w->gen & 1];
}

/* A fatal signal that reached this thread inside a section (api/fatal.c defers it): sent again
 * by wr_redeliver when the thread's sections have ended, so that the last write never waits for
 * a section its own handler interrupted (a child's first events start its tracer: milliseconds). */
extern __thread int wr_deferred_sig __attribute__((tls_model("initial-exec")));
__attribute__((cold)) void wr_redeliver(struct gt_thread *t);

static inline __attribute__((always_inline)) void wr_end(struct gt_writer *w)
{
    GT_ASSERT(atomic_load_explicit(&w->t->seq, memory_order_relaxed) & 1);
    sect_leave(&w->t->seq);
    if (__builtin_expect(wr_deferred_sig != 0, 0)) wr_redeliver(w->t);
}

/* A new buffer for st (of generation gen), the full one pushed; 0 when memory is exhausted
 * (tracing stops). */
__attribute__((cold)) int wr_refill(struct gt_stream *st, uint64_t gen, uint64_t now);

/* Writes one event (inline: with a constant n the encoding unrolls). */
static inline __attribute__((always_inline)) void wr_emit(struct gt_writer *w, uint8_t type, int n,
                                                          const uint64_t *args)
{
    GT_ASSERT(n <= GT_EV_MAX_ARGS);
    if (!w->ts) w->ts = gt_now(); /* once per run of events after a move */
    uint64_t now = w->ts;
    struct gt_stream *st = w->st;
    if (__builtin_expect(st->len >= st->room, 0) && !wr_refill(st, w->gen, now)) return;
    GT_ASSERT(st->cur && st->len + GT_EV_MAX <= st->cur->ready);
    uint64_t last = st->last_ts;
    uint64_t dt = now > last ? now - last : 0;
    st->last_ts = now > last ? now : last;
    uint8_t *data = st->cur->data;
    uint32_t len = (uint32_t)(ev_encode(data + st->len, type, dt, n, args) - data);
    atomic_signal_fence(memory_order_release); /* the bytes before their length (buf.h) */
    st->len = len;
}

/* The same as an emit callback (status.h), for the status events of moves. */
static inline void wr_emit_fn(void *ctx, uint8_t type, int n, const uint64_t *args)
{
    wr_emit(ctx, type, n, args);
}

#define WR_EMIT(w, type, ...)                                                                      \
    wr_emit((w), (type), (int)(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)),              \
            (uint64_t[]){__VA_ARGS__})
#define WR_EMIT0(w, type) wr_emit((w), (type), 0, NULL)

/* Moves of a G or P word from inside the section (status.h), statuses written here. */
static inline __attribute__((always_inline)) int wr_g_move(struct gt_writer *w, struct gt_thread *t,
                                                           unsigned mask, unsigned to,
                                                           const uint8_t inc[8], uint64_t *seq0,
                                                           unsigned *from)
{
    return g_move(w->gen, t, mask, to, inc, seq0, from, wr_emit_fn, w, &w->ts);
}
/* wr_g_move of the writer's own G, where a word in the section's generation that is Runnable
 * is moved with a plain store: only its owner leaves Runnable (wakers move Waiting words only),
 * and the flusher claims a newer generation only once every section of gen has ended
 * (status.h word_move_fast's own). A Waiting word is still moved by CAS (a waker may move it). */
static inline __attribute__((always_inline)) int wr_g_move_owner(struct gt_writer *w, unsigned mask,
                                                                 unsigned to, const uint8_t inc[8],
                                                                 uint64_t *seq0, unsigned *from)
{
    return g_move_by(w->gen, w->t, mask, to, inc, SMASK(GO_G_RUNNABLE), seq0, from, wr_emit_fn, w,
                     &w->ts);
}
static inline __attribute__((always_inline)) int wr_p_move(struct gt_writer *w, struct gt_p *p,
                                                           unsigned mask, unsigned to, unsigned inc,
                                                           uint64_t *seq0)
{
    return p_move(w->gen, p, mask, to, inc, seq0, wr_emit_fn, w, &w->ts);
}

/* The same for the writer's own G out of Running or Syscall and its own P (status.h
 * word_move_fast's own: no CAS). */
static inline __attribute__((always_inline)) int
wr_g_move_own(struct gt_writer *w, unsigned mask, unsigned to, uint64_t *seq0, unsigned *from)
{
    return g_move_own(w->gen, w->t, mask, to, seq0, from, wr_emit_fn, w, &w->ts);
}
static inline __attribute__((always_inline)) int wr_p_move_own(struct gt_writer *w, struct gt_p *p,
                                                               unsigned mask, unsigned to,
                                                               unsigned inc, uint64_t *seq0)
{
    return p_move_own(w->gen, p, mask, to, inc, seq0, wr_emit_fn, w, &w->ts);
}

/* Whether key was marked in gen by this thread lately (then it need not be again); records it.
 * Keys: stack id << 1, string id << 1 | 1. */
static inline int wr_marked_lately(struct gt_thread *t, uint64_t gen, uint64_t key)
{
    if (t->marked.gen != gen) {
        memset(&t->marked, 0, sizeof t->marked);
        t->marked.gen = gen;
    }
    for (int i = 0; i < 4; i++)
        if (t->marked.key[i] == key) return 1;
    t->marked.key[t->marked.next++ & 3] = key;
    return 0;
}

/* Marks stack stk used in the section's generation (for the flusher's stack table). */
static inline void wr_mark_stack(struct gt_writer *w, uint64_t stk)
{
    if (stk && !wr_marked_lately(w->t, w->gen, stk << 1)) stack_mark(stk, w->gen);
}

/* Marks string id used in the section's generation. */
static inline void wr_mark_str(struct gt_writer *w, uint64_t id)
{
    if (id && !wr_marked_lately(w->t, w->gen, id << 1 | 1)) str_mark(id, w->gen);
}

static const uint8_t WR_INC0[8] = {0};

/* Claims the generation for the owner's P without changing it. A P claimed for a generation
 * stays claimed for it (generations only grow), so the owner remembers it. */
static inline void wr_p_touch(struct gt_writer *w)
{
    struct gt_thread *t = w->t;
    if (t->p_claimed == w->gen) return;
    struct gt_p *p = atomic_load_explicit(&t->p, memory_order_relaxed);
    uint64_t seq0;
    if (!p) return;
    uint64_t wd = atomic_load_explicit(&p->word, memory_order_acquire);
    if (word_gen(wd) < w->gen &&
        wr_p_move(w, p, SMASK(word_state(wd)), word_state(wd), 0, &seq0) != MOVE_OK)
        return;
    if (word_gen(wd) <= w->gen) t->p_claimed = w->gen;
}

/* Claims the generation for the owner's G without changing it (it is Running). */
static inline void wr_g_touch(struct gt_writer *w)
{
    uint64_t seq0;
    unsigned from;
    wr_g_move(w, w->t, SMASK(GO_G_RUNNING), GO_G_RUNNING, WR_INC0, &seq0, &from);
}

/* The thread's name as a GoLabel, if it changed or was not written yet in this generation
 * (the G must be Running and its status claimed). See docs/annotations.md. */
__attribute__((cold)) void wr_label(struct gt_writer *w, uint64_t name); /* the GoLabel itself */
static inline __attribute__((always_inline)) void wr_label_if_due(struct gt_writer *w)
{
    struct gt_thread *t = w->t;
    uint64_t name = atomic_load_explicit(&t->name_str, memory_order_acquire);
    if (__builtin_expect(!name, 1) || (t->label_str == name && t->label_gen == w->gen)) return;
    wr_label(w, name);
}
#endif
