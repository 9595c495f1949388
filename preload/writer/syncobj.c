/* syncobj.c: the sync-object table and the holder/release records. See syncobj.h.
 * The object table is open addressing over the object's address, a window of PROBE slots, in
 * levels of one array (2^FIRST_LOG slots, then twice as many each, up to 2^LAST_LOG), so that
 * a process with few objects touches few pages: an object is looked for in every level up to
 * the top one and claims a slot in the top one; a full window there moves the top to the next
 * level, and in the last level overwrites its first slot (a name falls back to the address).
 * Two threads claiming one object while the top moves may give it two slots (a name is then
 * found by one of them). A placeholder is
 * the bytes {PLACEHOLDER_TAG, base reason id (8), address (8)}. */
#include "syncobj.h"

#include "go_wire.h"
#include "gt_live.h"
#include "pages.h"
#include "stack.h"
#include "state.h"
#include "strtab.h"
#include "symbolize.h"

#include <stdio.h>
#include <string.h>

#define FIRST_LOG 8u
#define LAST_LOG 15u
#define PROBE 8
#define MAX_NAMED 8192  /* objects with a reason of their own: the string table is shared */
#define RING (1u << 15) /* records per generation parity */
#define PLACEHOLDER_TAG GT_LIVE_OBJ_TAG /* the format recovery reads too (gt_live.h) */
#define PLACEHOLDER_LEN GT_LIVE_OBJ_LEN

struct slot {
    _Atomic uintptr_t addr;
    _Atomic uintptr_t init_pc; /* pthread_*_init's caller, 0 unknown */
    _Atomic uint64_t wait_stk; /* the stack of its first wait, 0 none yet */
    _Atomic uint64_t name;     /* the flusher's name word (so_set_name), 0 unset */
    atomic_uint named;         /* counted in named_objects: 1 named, 2 beyond the budget */
};
static atomic_uint named_objects;
static struct slot slots[(2u << LAST_LOG) - (1u << FIRST_LOG)] GT_BIG; /* the levels, in order */
static _Atomic unsigned top_log = FIRST_LOG; /* the level objects claim slots in */

static struct so_rec recs[2][RING] GT_BIG; /* a ring per generation parity */
static struct {
    atomic_uint n; /* records claimed (may pass RING: those are dropped) */
    atomic_int kicked;
} rings[2]; /* apart from the records: read at every switch, among the small variables */

/* How slot_of looks in the level objects claim slots in. */
enum { LOOK = 0, CLAIM = 1, CLAIM_NEW = 2 };

/* addr's slot in the level of 2^log slots, claimed if how is not LOOK and its window has room;
 * NULL if neither. CLAIM_NEW (an object just initialised, most likely new) tries the claim
 * first: a page's first touch is then a write, one page fault, where a load first maps the
 * zero page and the claim then faults again to copy it. */
static struct slot *in_level(unsigned log, uintptr_t addr, int how)
{
    struct slot *lv = slots + ((1u << log) - (1u << FIRST_LOG));
    uint64_t h = ((uint64_t)addr * 0x9e3779b97f4a7c15ull) >> (64 - log);
    for (unsigned i = 0; i < PROBE; i++) {
        struct slot *s = &lv[(h + i) & ((1u << log) - 1)];
        uintptr_t cur = how == CLAIM_NEW ? 0 : atomic_load_explicit(&s->addr, memory_order_acquire);
        if (cur == addr) return s;
        if (!cur && how != LOOK) {
            if (atomic_compare_exchange_strong(&s->addr, &cur, addr) || cur == addr) return s;
        }
    }
    return NULL;
}

/* A full window in the last level: the object takes its first slot. */
static struct slot *evict(uintptr_t addr)
{
    uint64_t h = ((uint64_t)addr * 0x9e3779b97f4a7c15ull) >> (64 - LAST_LOG);
    struct slot *s = &slots[((1u << LAST_LOG) - (1u << FIRST_LOG)) + h];
    atomic_store(&s->addr, addr);
    atomic_store(&s->init_pc, 0);
    atomic_store(&s->wait_stk, 0);
    atomic_store(&s->name, 0);
    atomic_store(&s->named, 0); /* stays counted: the budget only shrinks */
    return s;
}

/* addr's slot, claimed if new (how: CLAIM, or CLAIM_NEW for an object just initialised). */
static struct slot *slot_of(uintptr_t addr, int how)
{
    for (unsigned log = FIRST_LOG;; log++) {
        unsigned top = atomic_load_explicit(&top_log, memory_order_acquire);
        struct slot *s = in_level(log, addr, log == top ? how : LOOK);
        if (s) return s;
        if (log == LAST_LOG) return evict(addr);
        if (log == top) atomic_compare_exchange_strong(&top_log, &top, top + 1);
    }
}

void so_note_init(const void *addr, uintptr_t pc)
{
    struct slot *s = slot_of((uintptr_t)addr, CLAIM_NEW);
    atomic_store_explicit(&s->wait_stk, 0, memory_order_relaxed); /* a new object here */
    atomic_store_explicit(&s->init_pc, pc, memory_order_release);
}

__thread struct so_last so__last __attribute__((tls_model("initial-exec")));

uint64_t so_reason_slow(uint64_t base, const void *addr, uint64_t stk)
{
    struct slot *s = slot_of((uintptr_t)addr, CLAIM);
    uint64_t none = 0;
    if (stk) atomic_compare_exchange_strong(&s->wait_stk, &none, stk);
    unsigned st = atomic_load_explicit(&s->named, memory_order_relaxed), no = 0;
    if (!st) { /* counted once per object: 1 within the budget, 2 beyond */
        st = atomic_fetch_add(&named_objects, 1) < MAX_NAMED ? 1 : 2;
        if (!atomic_compare_exchange_strong(&s->named, &no, st)) st = no;
    }
    if (st == 2) return base; /* beyond the budget: the generic reason */
    uint8_t key[PLACEHOLDER_LEN] = {PLACEHOLDER_TAG};
    uintptr_t a = (uintptr_t)addr;
    memcpy(key + 1, &base, 8);
    memcpy(key + 9, &a, 8);
    uint64_t id = str_intern((const char *)key, sizeof key);
    if (!id) return base;
    so__last.id = 0;
    so__last.base = base;
    so__last.addr = addr;
    so__last.id = id;
    return id;
}

/* Claims and fills a record; NULL when the table is full (dropped). */
static struct so_rec *record(struct gt_writer *w, uint8_t type, const void *addr, uint64_t a,
                             uint64_t b)
{
    unsigned par = (unsigned)(w->gen & 1);
    unsigned i = atomic_fetch_add_explicit(&rings[par].n, 1, memory_order_relaxed);
    if (i == RING / 2 && !atomic_exchange(&rings[par].kicked, 1))
        state_kick(); /* half full: end this generation soon */
    if (i >= RING) return NULL;
    struct so_rec *r = &recs[par][i];
    r->type = type;
    r->ts = w->ts ? w->ts : gt_now();
    r->m = (uint64_t)atomic_load_explicit(&w->t->tid, memory_order_relaxed);
    r->addr = (uint64_t)(uintptr_t)addr;
    r->a = a;
    r->b = b;
    return r;
}

void so_record_wait(struct gt_writer *w, uint64_t reason, const void *addr, int64_t holder)
{
    uint64_t h = holder > 0   ? (uint64_t)holder
                 : holder < 0 ? GT_SYNC_HOLDER_G | (uint64_t)-holder
                              : 0;
    record(w, GT_SYNC_WAIT, addr, reason, h);
}

void so_record_ext(struct gt_writer *w, uint8_t type, const void *addr, const uint64_t v[6])
{
    struct so_rec *r = record(w, type, addr, v[0], v[1]);
    if (r) memcpy(r->v, v + 2, sizeof r->v);
}

void so_record_release(struct gt_writer *w, const void *addr, uint64_t stk)
{
    wr_mark_stack(w, stk);
    record(w, GT_SYNC_RELEASE, addr, stk, 0);
}

int so_placeholder(const char *s, size_t len, uint64_t *base, uintptr_t *addr)
{
    if (len != PLACEHOLDER_LEN || (uint8_t)s[0] != PLACEHOLDER_TAG) return 0;
    memcpy(base, s + 1, 8);
    memcpy(addr, s + 9, 8);
    return 1;
}

struct so_object so_object_at(uintptr_t addr)
{
    struct slot *s = slot_of(addr, CLAIM);
    return (struct so_object){atomic_load(&s->init_pc), atomic_load(&s->wait_stk),
                              atomic_load(&s->name)};
}

void so_set_name(uintptr_t addr, uint64_t name)
{
    atomic_store(&slot_of(addr, CLAIM)->name, name);
}

void so_forget_names(void)
{
    unsigned top = atomic_load(&top_log);
    for (size_t i = 0; i < (2u << top) - (1u << FIRST_LOG); i++)
        if (atomic_load_explicit(&slots[i].name, memory_order_relaxed))
            atomic_store_explicit(&slots[i].name, 0, memory_order_relaxed);
}

void so_fork_child(void)
{
    so_drop_records(0);
    so_drop_records(1);
}

const struct so_rec *so_records(uint64_t gen, unsigned *n)
{
    unsigned par = (unsigned)(gen & 1);
    *n = atomic_load(&rings[par].n);
    if (*n > RING) *n = RING;
    return recs[par];
}

void so_drop_records(uint64_t gen)
{
    unsigned par = (unsigned)(gen & 1);
    atomic_store(&rings[par].n, 0);
    atomic_store(&rings[par].kicked, 0);
}
