/* lockorder.c: the held sets, the edge set, the hold table and the exit queue. See
 * lockorder.h. The edge set is open addressing over a 64-bit mix of the pair (never 0): two
 * pairs mixing alike would share one key (the second is then not recorded; at 2^-64 a pair).
 * The hold table is open addressing over the lock's address, its counts updated by the holder
 * before its release: plain updates for an exclusive hold (a mutex, a write lock: no other
 * thread writes them meanwhile), atomic adds for a read hold (readers overlap). A reader's
 * owner change is approximate (readers race on the last holder). The exit
 * queue is a ring written by ending threads and read by the flusher (a full ring drops). */
#include "lockorder.h"

#include "go_wire.h"
#include "pages.h"
#include "syncobj.h"

#include <stdatomic.h>

#define EDGES_LOG 14 /* 16384 edges */
#define LOCKS_LOG 12 /* 4096 locks with hold statistics */
#define PROBE 16
#define EXITS 64 /* held-at-exit entries between two flusher rounds */

int lo__on;
__thread struct lo_set lo__held __attribute__((tls_model("initial-exec")));

static uint64_t reasons[2]; /* mutex, rwlock */
static _Atomic uint64_t edges[1u << EDGES_LOG] GT_BIG;
static struct lock {
    _Atomic uintptr_t addr;
    _Atomic uint64_t name, acq, changes, total, longest, longest_stk;
    _Atomic int64_t last_tid;
    atomic_int changed; /* since the flusher last wrote it */
} locks[1u << LOCKS_LOG] GT_BIG;
static struct {
    struct lo_exit e[EXITS];
    atomic_int ready[EXITS];
    _Atomic unsigned head, tail;
} exits;
static _Atomic uint64_t lost_held, lost_edges, lost_locks;

void lo_init(int order, int holds, uint64_t mutex_reason, uint64_t rwlock_reason)
{
    reasons[0] = mutex_reason;
    reasons[1] = rwlock_reason;
    lo__on = (order ? LO_ORDER : 0) | (holds ? LO_HOLDS : 0);
}

uint64_t lo_name(const void *addr, unsigned mode)
{
    uint64_t id = so_reason(reasons[mode & (LO_READ | LO_WRITE) ? 1 : 0], addr, 0);
    return id == reasons[0] || id == reasons[1] ? 0 : id; /* past the budget: no name */
}

/* Marks string id str and stack stk (either 0: none) as used in w's generation. */
static void mark(struct gt_writer *w, uint64_t str, uint64_t stk)
{
    if (str) wr_mark_str(w, str);
    if (stk) wr_mark_stack(w, stk);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

int lo_edge_claim(const void *a, const void *b)
{
    uint64_t key = mix((uintptr_t)a ^ mix((uintptr_t)b)) | 1;
    for (unsigned i = 0; i < PROBE; i++) {
        _Atomic uint64_t *s = &edges[(key + i) & ((1u << EDGES_LOG) - 1)];
        uint64_t cur = atomic_load_explicit(s, memory_order_relaxed);
        if (cur == key) return 0;
        if (!cur) {
            if (atomic_compare_exchange_strong(s, &cur, key)) return 1;
            if (cur == key) return 0;
        }
    }
    atomic_fetch_add_explicit(&lost_edges, 1, memory_order_relaxed);
    return 0;
}

void lo_edge_values(const struct lo_held *a, const void *b, unsigned bmode, uint64_t stk,
                    uint64_t v[6])
{
    v[0] = lo_name(b, bmode);
    v[1] = stk;
    v[2] = (uintptr_t)a->addr;
    v[3] = lo_name(a->addr, a->mode);
    v[4] = a->pc ? stack_from_pcs(&a->pc, 1) : 0;
    v[5] = bmode | a->mode << 4;
}

void lo_record_edge(struct gt_writer *w, const void *b, const uint64_t v[6])
{
    mark(w, v[0], v[1]);
    mark(w, v[3], v[4]);
    so_record_ext(w, GT_SYNC_ORDER, b, v);
}

/* addr's entry in the hold table, claimed if new; NULL when its window is full. */
static struct lock *lock_of(const void *addr, unsigned mode)
{
    uintptr_t a = (uintptr_t)addr;
    uint64_t h = mix(a);
    for (unsigned i = 0; i < PROBE; i++) {
        struct lock *l = &locks[(h + i) & ((1u << LOCKS_LOG) - 1)];
        uintptr_t cur = atomic_load_explicit(&l->addr, memory_order_acquire);
        if (cur == a) return l;
        if (!cur && (atomic_compare_exchange_strong(&l->addr, &cur, a) || cur == a)) {
            if (!atomic_load_explicit(&l->name, memory_order_relaxed))
                atomic_store_explicit(&l->name, lo_name(addr, mode), memory_order_relaxed);
            return l;
        }
    }
    atomic_fetch_add_explicit(&lost_locks, 1, memory_order_relaxed);
    return NULL;
}

/* v += d: by its exclusive holder, a plain update (no locked instruction); by a reader,
 * whose hold may overlap others', an atomic add. */
static void add(_Atomic uint64_t *v, uint64_t d, int excl)
{
    if (excl)
        atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + d,
                              memory_order_relaxed);
    else
        atomic_fetch_add_explicit(v, d, memory_order_relaxed);
}

int lo_hold_done(const void *addr, unsigned mode, int64_t tid, uint64_t d)
{
    struct lock *l = lock_of(addr, mode);
    if (!l) return 0;
    int excl = !(mode & LO_READ);
    add(&l->acq, 1, excl);
    add(&l->total, d, excl);
    if (atomic_load_explicit(&l->last_tid, memory_order_relaxed) != tid) {
        atomic_store_explicit(&l->last_tid, tid, memory_order_relaxed);
        add(&l->changes, 1, excl);
    }
    if (!atomic_load_explicit(&l->changed, memory_order_relaxed))
        atomic_store_explicit(&l->changed, 1, memory_order_relaxed);
    uint64_t m = atomic_load_explicit(&l->longest, memory_order_relaxed);
    while (d > m)
        if (atomic_compare_exchange_weak(&l->longest, &m, d)) return 1;
    return 0;
}

void lo_hold_stack(const void *addr, uint64_t stk)
{
    struct lock *l = lock_of(addr, 0);
    if (l) atomic_store_explicit(&l->longest_stk, stk, memory_order_relaxed);
}

void lo_exit_values(const struct lo_held *h, uint64_t v[6])
{
    v[0] = lo_name(h->addr, h->mode);
    v[1] = h->pc ? stack_from_pcs(&h->pc, 1) : 0;
    v[2] = v[3] = v[4] = v[5] = 0;
}

void lo_record_exit_held(struct gt_writer *w, const struct lo_held *h, const uint64_t v[6])
{
    mark(w, v[0], v[1]);
    so_record_ext(w, GT_SYNC_EXIT_HELD, h->addr, v);
    unsigned i = atomic_fetch_add(&exits.head, 1);
    if (i - atomic_load(&exits.tail) >= EXITS) return; /* the flusher is behind: dropped */
    struct gt_thread *t = w->t;
    exits.e[i % EXITS] = (struct lo_exit){atomic_load(&t->tid), atomic_load(&t->name_str),
                                          (void *)t->start, v[0], h->pc};
    atomic_store_explicit(&exits.ready[i % EXITS], 1, memory_order_release);
}

void lo_exits_drain(lo_exit_fn fn, void *ctx)
{
    unsigned head = atomic_load(&exits.head), tail = atomic_load(&exits.tail);
    if (head - tail > EXITS) head = tail + EXITS;
    for (; tail != head; tail++) {
        if (!atomic_load_explicit(&exits.ready[tail % EXITS], memory_order_acquire)) break;
        fn(ctx, &exits.e[tail % EXITS]);
        atomic_store_explicit(&exits.ready[tail % EXITS], 0, memory_order_relaxed);
    }
    atomic_store(&exits.tail, tail);
}

void lo_foreach_changed(uint64_t gen, lo_hold_fn fn, void *ctx)
{
    for (size_t i = 0; i < (1u << LOCKS_LOG); i++) {
        struct lock *l = &locks[i];
        if (!atomic_load_explicit(&l->changed, memory_order_relaxed)) continue;
        atomic_store(&l->changed, 0);
        uint64_t name = atomic_load(&l->name), stk = atomic_load(&l->longest_stk);
        if (name) str_mark(name, gen);
        if (stk) stack_mark(stk, gen);
        const uint64_t v[7] = {atomic_load(&l->addr),
                               name,
                               atomic_load(&l->acq),
                               atomic_load(&l->changes),
                               atomic_load(&l->total),
                               atomic_load(&l->longest),
                               stk};
        fn(ctx, v);
    }
}

void lo_note_overflow(void)
{
    atomic_fetch_add_explicit(&lost_held, 1, memory_order_relaxed);
}

void lo_lost(uint64_t *held, uint64_t *edges_lost, uint64_t *locks_lost)
{
    *held = atomic_load(&lost_held);
    *edges_lost = atomic_load(&lost_edges);
    *locks_lost = atomic_load(&lost_locks);
}
