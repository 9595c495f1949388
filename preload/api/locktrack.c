/* locktrack.c: the lock hooks' side of lock tracking. See locktrack.h. The held set is the
 * calling thread's (lockorder.h lo__held): pushed at a take, the entry of the same lock nearest
 * the top popped at a release (locks are mostly released in reverse order). A lock taken while
 * the thread already holds it (a recursive mutex, a read lock taken twice) makes no edge. */
#include "locktrack.h"

#include "clock.h"
#include "stack.h"
#include "writer.h"

#include <errno.h>

/* Runs inside the tracer (depth raised, errno kept) for the slow parts. */
#define INSIDE(self, body)                                                                         \
    do {                                                                                           \
        int saved_ = errno;                                                                        \
        (self)->depth++;                                                                           \
        body;                                                                                      \
        (self)->depth--;                                                                           \
        errno = saved_;                                                                            \
    } while (0)

/* The first time the process sees held -> key: a record with the caller's stack. */
static void new_edge(struct gt_thread *self, const struct lo_held *held, const void *key,
                     unsigned mode)
{
    INSIDE(self, {
        uint64_t v[6];
        lo_edge_values(held, key, mode, stack_capture(self->stk.memo), v);
        struct gt_writer w;
        wr_begin(&w, self);
        lo_record_edge(&w, key, v);
        wr_end(&w);
    });
}

/* The edges from every lock self holds to key, unless it holds key already. Out of line: the
 * take of a first lock, the common case, needs no registers for it. */
static __attribute__((noinline)) void edges(struct gt_thread *self, const void *key, unsigned mode)
{
    struct lo_set *s = &lo__held;
    for (unsigned i = 0; i < s->n; i++)
        if (s->h[i].addr == key) return;
    for (unsigned i = 0; i < s->n; i++)
        if (lo_edge_claim(s->h[i].addr, key)) new_edge(self, &s->h[i], key, mode);
}

GOTRACE_API_FN void tr_lock_wanted(const void *key, unsigned mode)
{
    struct gt_thread *self = gt_self;
    if (!self || self->depth || !(lo__on & LO_ORDER) || !lo__held.n) return;
    edges(self, key, mode);
}

/* tr_lock_taken past its common case: locks already held (edges to record), or timed holds. */
static __attribute__((noinline)) void taken(const void *key, unsigned mode, uintptr_t pc)
{
    struct gt_thread *self = gt_self;
    if (!self || self->depth) return;
    struct lo_set *s = &lo__held;
    unsigned n = s->n;
    if (n && (lo__on & LO_ORDER) && !(mode & (LO_TRY | LO_NOEDGE))) edges(self, key, mode);
    if (n == LO_HELD_MAX) {
        s->over++;
        lo_note_overflow();
        return;
    }
    s->h[n] = (struct lo_held){key, pc, lo__on & LO_HOLDS ? gt_now_early() : 0, mode & 7};
    s->n = n + 1;
}

/* The common case first, with no call: the thread's first lock, holds not timed. */
GOTRACE_API_FN void tr_lock_taken(const void *key, unsigned mode, uintptr_t pc)
{
    struct lo_set *s = &lo__held;
    if (__builtin_expect(s->n == 0 && lo__on == LO_ORDER, 1)) {
        struct gt_thread *self = gt_self;
        if (!self || self->depth) return;
        s->h[0] = (struct lo_held){key, pc, 0, mode & 7};
        s->n = 1;
        return;
    }
    taken(key, mode, pc);
}

/* The hold h of self ended now: its lock's counts, and its stack if it is the longest. */
static __attribute__((noinline)) void hold_done(struct gt_thread *self, const struct lo_held *h)
{
    uint64_t now = gt_now_early(), d = now > h->t0 ? now - h->t0 : 0;
    if (lo_hold_done(h->addr, h->mode, atomic_load_explicit(&self->tid, memory_order_relaxed), d))
        INSIDE(self, lo_hold_stack(h->addr, stack_capture(self->stk.memo)));
}

/* tr_lock_dropped past its common case: key below the top, a timed hold, or not held. */
static __attribute__((noinline)) void dropped(const void *key)
{
    struct gt_thread *self = gt_self;
    if (!self || self->depth) return;
    struct lo_set *s = &lo__held;
    for (unsigned i = s->n; i-- > 0;) {
        if (s->h[i].addr != key) continue;
        struct lo_held h = s->h[i];
        for (unsigned k = i + 1; k < s->n; k++) /* mostly none: the last taken goes first */
            s->h[k - 1] = s->h[k];
        s->n--;
        if (h.t0) hold_done(self, &h);
        return;
    }
    if (s->over) s->over--; /* one of the locks not kept, most likely */
}

/* The common case first: key is the last lock taken, and holds are not timed. (Inside the
 * tracer nothing is pushed, and the tracer never releases a lock of the program's.) */
GOTRACE_API_FN void tr_lock_dropped(const void *key)
{
    struct lo_set *s = &lo__held;
    unsigned n = s->n;
    if (n && s->h[n - 1].addr == key && !s->h[n - 1].t0) {
        s->n = n - 1;
        return;
    }
    dropped(key);
}

void tr_lock_exit(struct gt_thread *t)
{
    struct lo_set *s = &lo__held;
    for (unsigned i = 0; i < s->n; i++) {
        uint64_t v[6];
        lo_exit_values(&s->h[i], v);
        struct gt_writer w;
        wr_begin(&w, t);
        lo_record_exit_held(&w, &s->h[i], v);
        wr_end(&w);
    }
    s->n = 0;
}
