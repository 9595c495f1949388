/* generation.c: the generation switch. See generation.h for the invariants. Runs on the
 * flusher thread or a thread that asked for a write, as the tracer (never emits); it may
 * allocate (never on the event path). */
#include "generation.h"

#include "arena.h"
#include "clock.h"
#include "cpuprof.h"
#include "encode.h"
#include "event.h"
#include "fence.h"
#include "flight.h"
#include "go_wire.h"
#include "invariant.h"
#include "log.h"
#include "modules.h"
#include "output.h"
#include "selfcost.h"
#include "stack.h"
#include "state.h"
#include "status.h"
#include "strtab.h"
#include "symbolize.h"
#include "syncobj.h"
#include "syncobj_encode.h"
#include "thread.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
    struct gt_bytes out;
    struct gt_bytes mless[2]; /* statuses of threads without an M (created, not started) */
    uint64_t mless_ts[2];
    struct gt_thread **snap; /* the registry at the switch */
    size_t nsnap, capsnap;
    atomic_int code_unloaded; /* a library was unloaded: the symbol cache is stale */
    uint8_t frames[GO_MAX_STACK_FRAMES * ENC_FRAME_MAX]; /* a Stack's, being encoded */
} G;

/* ---- statuses at the switch ---- */

struct prefix_ctx {
    uint8_t *bytes;
    uint32_t *len;
};

static void prefix_emit(void *ctx, uint8_t type, int n, const uint64_t *args)
{
    struct prefix_ctx *c = ctx;
    uint8_t tmp[GT_EV_MAX];
    size_t k = (size_t)(ev_encode(tmp, type, 0, n, args) - tmp);
    GT_ASSERT(*c->len + k <= GT_PREFIX_MAX); /* at most a G's and a P's status */
    if (*c->len + k > GT_PREFIX_MAX) {       /* a generation without it would not validate */
        state_fail("internal error: a thread's statuses do not fit its prefix");
        return;
    }
    memcpy(c->bytes + *c->len, tmp, k);
    atomic_signal_fence(memory_order_release); /* the bytes before their length (gt_live.h) */
    *c->len += (uint32_t)k;
}

static void mless_emit(void *ctx, uint8_t type, int n, const uint64_t *args)
{
    enc_event(ctx, type, n, args);
}

static void snap_one(struct gt_thread *t, void *ctx)
{
    (void)ctx;
    if (G.nsnap == G.capsnap) {
        size_t cap = G.capsnap ? G.capsnap * 2 : 256;
        struct gt_thread **s = realloc(G.snap, cap * sizeof *s);
        if (!s) {
            state_fail("out of memory while ending a generation");
            return;
        }
        G.snap = s;
        G.capsnap = cap;
    }
    G.snap[G.nsnap++] = t;
}

/* Waits until t is not inside a section that began before the switch. */
static int wait_section(struct gt_thread *t)
{
    uint32_t s = atomic_load_explicit(&t->seq, memory_order_seq_cst); /* after fence_sync */
    if (!(s & 1)) return 0;
    uint64_t deadline = gt_now_ns() + 2000000000ull;
    for (unsigned i = 0; atomic_load_explicit(&t->seq, memory_order_acquire) == s; i++) {
        if (i > 100) {
            if (gt_now_ns() > deadline) return -1;
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

/* ---- encoding the generation ---- */

struct visit {
    uint64_t gen;  /* internal number */
    uint64_t file; /* number in the file */
};

/* A stack's frames: each pc's in the wire form symbolize.c keeps (no lookup copied, nothing
 * encoded again), but a synthetic pc's, an uncached one's and those that a cut at
 * GO_MAX_STACK_FRAMES splits, which are encoded here. */
static void visit_stack(void *ctx, uint64_t id, const uintptr_t *pcs, int n)
{
    const struct visit *v = ctx;
    size_t len = 0;
    int nf = 0;
    for (int i = 0; i < n && nf < GO_MAX_STACK_FRAMES; i++) {
        const uint8_t *wire;
        size_t wlen;
        int k = sym_encoded_for(pcs[i], v->gen, &wire, &wlen);
        if (k > 0 && nf + k <= GO_MAX_STACK_FRAMES) {
            memcpy(G.frames + len, wire, wlen);
        } else {
            struct sym_frame fr[SYM_MAX_FRAMES];
            int room = GO_MAX_STACK_FRAMES - nf;
            k = sym_lookup_for(pcs[i], v->gen, fr, room < SYM_MAX_FRAMES ? room : SYM_MAX_FRAMES);
            wlen = enc_frames(G.frames + len, fr, k);
        }
        len += wlen;
        nf += k;
    }
    enc_stack(&G.out, v->file, id, nf, G.frames, len);
}

static void visit_string(void *ctx, uint64_t id, const char *s, size_t len)
{
    const struct visit *v = ctx;
    char text[GO_MAX_STRING_LEN];
    int n = so_text(s, len, text, sizeof text); /* a sync object's name (syncobj_encode.h) */
    if (n >= 0) s = text, len = (size_t)n;
    if (id) enc_string(&G.out, v->file, id, s, len);
}

struct sample_ctx {
    uint64_t file;
    int open;
};

static void visit_sample(void *ctx, const uint64_t rec[5])
{
    struct sample_ctx *c = ctx;
    enc_cpu_sample(&G.out, c->file, rec, &c->open);
}

/* Every thread's batches of parity par: statuses first, then full buffers, then the current. */
static void encode_batches(int par, uint64_t fg)
{
    if (G.mless[par].len)
        enc_batch(&G.out, fg, GO_NO_THREAD, G.mless_ts[par], G.mless[par].p, G.mless[par].len);
    for (size_t i = 0; i < G.nsnap; i++) {
        struct gt_thread *t = G.snap[i];
        uint64_t m = (uint64_t)atomic_load(&t->tid);
        if (t->prefix[par].len)
            enc_batch(&G.out, fg, m, t->prefix[par].ts, t->prefix[par].bytes, t->prefix[par].len);
        struct gt_stream *st = &t->stream[par];
        for (struct gt_buf *b = st->full_head; b; b = b->next)
            if (b->len) enc_batch(&G.out, fg, m, b->base_ts, b->data, b->len);
        if (st->cur && st->len) enc_batch(&G.out, fg, m, st->cur->base_ts, st->cur->data, st->len);
    }
}

/* Generation gen is in the file (or had nothing): the reader of a killed process's live file
 * recovers only later ones (common/gt_live.h). */
static void written(uint64_t gen)
{
    struct gt_live_head *h = arena_head();
    if (h) h->gen_written = gen;
}

/* The statuses of threads without an M claimed for generation next, copied where the reader of
 * a killed process's live file finds them. */
static void publish_mless(uint64_t next)
{
    struct gt_live_head *h = arena_head();
    int np = (int)(next & 1);
    if (!h || (!h->mless[np] && !G.mless[np].len)) return;
    if (!h->mless[np]) {
        void *m = arena_alloc(ARENA_TABLES, sizeof(struct gt_live_mless), 0);
        if (!m || !arena_holds(m) || arena_back(m, sizeof(struct gt_live_mless)) != 0) return;
        h->mless[np] = (uint64_t)(uintptr_t)m;
    }
    struct gt_live_mless *ml = (struct gt_live_mless *)(uintptr_t)h->mless[np];
    ml->len = 0;
    atomic_signal_fence(memory_order_release);
    ml->ts = G.mless_ts[np];
    size_t n = G.mless[np].len;
    if (n > sizeof ml->bytes) {
        ml->len = GT_LIVE_LOST;
        return;
    }
    memcpy(ml->bytes, G.mless[np].p, n);
    atomic_signal_fence(memory_order_release);
    ml->len = (uint32_t)n;
}

/* Encodes generation gen (internal number) as the file's next one and writes it. */
static void write_generation(uint64_t gen)
{
    if (atomic_exchange(&G.code_unloaded, 0)) { /* its addresses may now hold other code */
        sym_fini();
        if (sym_init() != 0) gt_log("symbolization unavailable; stacks will show addresses only");
        so_forget_names(); /* and its data other objects */
    }
    int ring = flight_on(); /* kept in memory, not written (flight.h) */
    uint64_t fg = ring ? flight_next_number() : output_generations() + 1;
    G.out.len = 0;
    size_t events_start = G.out.len;
    encode_batches((int)(gen & 1), fg);
    if (cpuprof_enabled()) { /* samples are timed events: before the emptiness check */
        struct sample_ctx sc = {fg, 0};
        cpuprof_drain(gen, G.snap, G.nsnap, visit_sample, &sc);
        if (sc.open) enc_struct_end(&G.out);
    }
    if (G.out.len == events_start) { /* nothing happened: no generation */
        written(gen);
        return;
    }
    so_encode(&G.out, gen, fg); /* holders and releases of sync objects */
    enc_process(&G.out, fg);    /* which process this is, for `gotrace merge` */
    struct visit v = {gen, fg};
    uint64_t t0 = selfcost_begin();
    enc_struct_begin(&G.out, fg, GO_EV_STACKS);
    stack_foreach_marked(gen, visit_stack, &v);
    enc_struct_end(&G.out);
    selfcost_end(SC_SYMBOLS, t0, 1);
    enc_struct_begin(&G.out, fg, GO_EV_STRINGS);
    str_foreach_marked(gen, visit_string, &v);
    enc_struct_end(&G.out);
    if (ring || fg > 1) enc_frequency(&G.out, fg, GT_TICKS_PER_SEC); /* 1's: output.h */
    if (state_failed()) return;
    if (ring)
        flight_keep(G.out.p, G.out.len);
    else if (output_write(G.out.p, G.out.len) == 0)
        written(gen);
}

/* Claims generation next's statuses of every thread of the snapshot, at time ts. */
static void claim_statuses(uint64_t next, uint64_t ts)
{
    int np = (int)(next & 1);
    struct gt_live_head *h = arena_head();
    if (h && h->mless[np]) ((struct gt_live_mless *)(uintptr_t)h->mless[np])->len = 0;
    G.mless[np].len = 0;
    G.mless_ts[np] = ts;
    for (size_t i = 0; i < G.nsnap; i++) {
        struct gt_thread *t = G.snap[i];
        t->prefix[np].len = 0;
        t->prefix[np].ts = ts;
        struct prefix_ctx pc = {t->prefix[np].bytes, &t->prefix[np].len};
        status_claim_switch(t, next, prefix_emit, &pc, mless_emit, &G.mless[np]);
    }
    publish_mless(next);
}

/* Generation n is over: its buffers and statuses go back, its exited threads are reaped. */
static void release_generation(uint64_t n)
{
    int par = (int)(n & 1);
    for (size_t i = 0; i < G.nsnap; i++) {
        stream_release(&G.snap[i]->stream[par]);
        G.snap[i]->prefix[par].len = 0;
    }
    G.mless[par].len = 0;
    thread_reap(n);
}

uint64_t generation_switch(uint64_t ts)
{
    modules_record(); /* code loaded since the last switch, for recovery */
    if (!ts) ts = gt_now();
    uint64_t n = state_advance();
    if (fence_sync() < 0) { /* cannot tell which threads still write generation n */
        state_fail("membarrier failed; cannot end a generation safely");
        return ts;
    }
    G.nsnap = 0;
    thread_foreach(snap_one, NULL);
    for (size_t i = 0; i < G.nsnap; i++)
        if (wait_section(G.snap[i]) < 0) {
            state_fail("a thread stayed inside the tracer for 2 s (interrupted by a signal "
                       "handler that never returned?)");
            return ts;
        }
    claim_statuses(n + 1, ts);
    if (!state_failed()) write_generation(n);
    release_generation(n);
    return ts;
}

void generation_code_unloaded(void)
{
    atomic_store(&G.code_unloaded, 1);
}

void generation_fork_child(void)
{
    G.nsnap = 0;
    G.mless[0].len = G.mless[1].len = 0;
    struct gt_live_head *h = arena_head();
    if (h) { /* the parent's generations are not the child's */
        h->gen_written = state_gen() - 1;
        h->mless[0] = h->mless[1] = 0;
    }
    so_fork_child(); /* the parent's holder and release records are not the child's */
}
