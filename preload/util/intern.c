/* intern.c: lock-free append-only hash set with dense ids. See intern.h for the invariants.
 * Layout: an mmap'd slot array in levels (intern.h; open addressing, linear probing), entries
 * indexed by id in segments of SEG_IDS (allocated as ids reach them), and bump chunks holding the
 * key bytes (the segment table, a first chunk in the same pages and the first segment are one
 * block: first_block); the entries and chunks come from the live file's tables region
 * (util/arena.h: a killed process's tables are read back), the slots, which only lookups need, are
 * private. Insert claims an empty slot by CAS with (tag << 32), takes the next id, copies the key,
 * fills entries[id], then publishes (tag << 32 | id) with a release store; readers acquire the slot
 * before reading the entry. A mark word holds gen + 1, so a fresh (zero) word never reads as
 * generation 0. An insert records the slot it claims before the claim (claim_begin) and clears the
 * record after publishing (claim_end): a forked child, which sees a prefix of each parent thread's
 * writes, sees the record of every claim it sees. Every set is listed (sets[]) for that repair. */
#include "intern.h"

#include "arena.h"
#include "log.h"
#include "pages.h"

#include <sched.h>
#include <stddef.h>
#include <string.h>

#define CHUNK_SIZE (64u << 10)
/* A chunk after the first is backed this far at once: a set that filled its first page goes on
 * storing (python's start: 65 stacks of 256 bytes), and a populate call at run time costs more
 * than the pages it backs (docs/cost.md, "The tracer's time, reported by itself"). */
#define CHUNK_BACKED (16u << 10)
#define SEG_IDS 1024u
#define DEAD_ID 0xffffffffu    /* a claimed slot whose insert failed: never matches */
#define WAIT_SPINS (1u << 10)  /* pause loops before yielding while a slot is being filled */
#define WAIT_YIELDS (1u << 14) /* yields before giving up (the filler may be our own thread) */
#define FIRST_LOG 9u           /* the first level's slots: 2^9 (4 KiB, one page) */
#define ABSENT UINT64_MAX      /* probe: not in this level, look in the next */
#define AGAIN (UINT64_MAX - 1) /* probe: the level changed meanwhile, look in it again */

struct intern_entry {
    const unsigned char *bytes;
    uint64_t len;
    _Atomic uint64_t mark[2];
};

struct intern_chunk {
    _Atomic uint64_t used;
    uint64_t size;
    _Atomic uint64_t backed; /* bytes of data backed by memory (arena.h), from its start */
    unsigned char data[];
};

static struct intern_set *sets[INTERN_MAX_SETS];
static int nsets;

static struct intern_chunk *chunk_new(void)
{
    struct intern_chunk *c = arena_alloc(ARENA_TABLES, CHUNK_SIZE, CHUNK_BACKED);
    if (c) {
        c->size = CHUNK_SIZE - sizeof *c;
        c->backed = CHUNK_BACKED - sizeof *c;
    }
    return c;
}

/* Backs [from, to) of a block of size bytes whose first *backed bytes are backed, as it is used
 * (a process that stores little holds little), each time at least as much again as is backed:
 * a system call per doubling, not per page; 0, or -1 when memory ran out. */
static int back_upto(unsigned char *base, _Atomic uint64_t *backed, uint64_t to, uint64_t size)
{
    uint64_t b = atomic_load_explicit(backed, memory_order_acquire);
    if (to <= b) return 0;
    if (to < 2 * b) to = 2 * b < size ? 2 * b : size;
    if (arena_back(base + b, to - b) != 0) return -1;
    to = (((uintptr_t)base + to + GT_PAGE - 1) & ~(uintptr_t)(GT_PAGE - 1)) -
         (uintptr_t)base; /* its page */
    while (b < to && !atomic_compare_exchange_weak_explicit(backed, &b, to, memory_order_release,
                                                            memory_order_relaxed))
        ;
    return 0;
}

static struct intern_entry *entry(const struct intern_set *s, uint64_t id)
{
    struct intern_entry *seg = atomic_load_explicit(&s->segs[id / SEG_IDS], memory_order_acquire);
    return seg ? seg + id % SEG_IDS : NULL;
}

/* id's segment, allocated if new (under the chunk lock); NULL if no memory. */
static struct intern_entry *entry_new(struct intern_set *s, uint64_t id)
{
    struct intern_entry *e = entry(s, id);
    if (e) return e;
    while (atomic_flag_test_and_set_explicit(&s->chunk_lock, memory_order_acquire))
        sched_yield();
    _Atomic(struct intern_entry *) *seg = &s->segs[id / SEG_IDS];
    if (!atomic_load_explicit(seg, memory_order_relaxed)) {
        struct intern_entry *fresh = arena_alloc(ARENA_TABLES, SEG_IDS * sizeof *fresh, 0);
        atomic_store_explicit(seg, fresh, memory_order_release);
    }
    atomic_flag_clear_explicit(&s->chunk_lock, memory_order_release);
    return entry(s, id);
}

/* Backs the page of entry e (id) once (arena.h): a system call per page of entries, not per
 * insert. */
static int entry_back(struct intern_set *s, uint64_t id, struct intern_entry *e)
{
    uint64_t page = id * sizeof *e / GT_PAGE, bit = (uint64_t)1 << (page % 64);
    _Atomic uint64_t *w = &s->backed[page / 64];
    if (atomic_load_explicit(w, memory_order_acquire) & bit) return 0;
    if (arena_back(e, sizeof *e) != 0) return -1;
    atomic_fetch_or_explicit(w, bit, memory_order_release);
    return 0;
}

void intern_publish(const struct intern_set *s, struct gt_live_set *out)
{
    struct gt_live_head *h = arena_head();
    if (!h) return;
    h->layout.e_size = sizeof(struct intern_entry);
    h->layout.e_bytes = offsetof(struct intern_entry, bytes);
    h->layout.e_len = offsetof(struct intern_entry, len);
    h->layout.e_mark = offsetof(struct intern_entry, mark);
    out->seg_ids = SEG_IDS;
    out->nsegs = (uint32_t)s->nsegs;
    out->segs = (uint64_t)(uintptr_t)s->segs;
}

/* The set's first block of the live file, whose first pages one system call backs (every set
 * stores a few keys soon): the segment table and after it, in the same pages, a first chunk of
 * key bytes (first_pages pages for both; the next chunks are CHUNK_SIZE), then the first segment
 * of entries, page-aligned. Its chunk, or NULL. */
static struct intern_chunk *first_block(struct intern_set *s, unsigned first_pages)
{
    size_t table = s->nsegs * sizeof *s->segs;
    size_t lead = (table + sizeof(struct intern_chunk) + GT_PAGE - 1) & ~(GT_PAGE - 1);
    if (lead < first_pages * GT_PAGE) lead = first_pages * GT_PAGE;
    size_t seg = SEG_IDS * sizeof(struct intern_entry);
    unsigned char *b = arena_alloc(ARENA_TABLES, lead + seg, lead + GT_PAGE);
    if (!b) return NULL;
    s->segs = (void *)b;
    struct intern_chunk *c = (struct intern_chunk *)(b + table);
    c->size = c->backed = lead - table - sizeof *c;
    atomic_store_explicit(&s->segs[0], (struct intern_entry *)(b + lead), memory_order_release);
    atomic_store_explicit(&s->backed[0], 1, memory_order_release); /* its first page */
    return c;
}

int intern_init(struct intern_set *s, const char *name, unsigned log2_slots, unsigned first_pages)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->first_log = log2_slots < FIRST_LOG ? log2_slots : FIRST_LOG;
    s->nlevels = log2_slots - s->first_log + 1;
    if (s->nlevels > INTERN_MAX_LEVELS) return -1;
    s->nslots = ((uint64_t)2 << log2_slots) - ((uint64_t)1 << s->first_log);
    s->max_ids = ((uint64_t)1 << log2_slots) / 4 * 3;
    atomic_flag_clear(&s->chunk_lock);
    s->slots = arena_map(s->nslots * sizeof *s->slots);
    s->nsegs = s->max_ids / SEG_IDS + 1;
    if (s->nsegs * SEG_IDS * sizeof(struct intern_entry) / GT_PAGE > INTERN_PAGE_WORDS * 64)
        return -1; /* more entry pages than backed[] has bits for */
    struct intern_chunk *c = first_block(s, first_pages);
    if (!s->slots || !c) return -1;
    gt_touch_pages(s->slots, sizeof *s->slots << s->first_log); /* every lookup probes it */
    atomic_store_explicit(&s->chunk, c, memory_order_release);
    int listed = 0;
    for (int i = 0; i < nsets; i++)
        listed |= sets[i] == s;
    if (!listed && nsets < INTERN_MAX_SETS) sets[nsets++] = s;
    return 0;
}

/* A claimed, unpublished slot: only a parent thread's in a forked child (its filler is gone). */
static void bury_if_claimed(struct intern_set *s, uint64_t i)
{
    uint64_t v = atomic_load_explicit(&s->slots[i], memory_order_relaxed);
    if (v && (uint32_t)v == 0)
        atomic_store_explicit(&s->slots[i], v | DEAD_ID, memory_order_relaxed);
}

/* A parent thread may have held the chunk lock: the chunk it was mapping is then either
 * current already or lost (unused address space), and the current chunk is consistent. */
void intern_fork_child(void)
{
    for (int k = 0; k < nsets; k++) {
        struct intern_set *s = sets[k];
        atomic_flag_clear_explicit(&s->chunk_lock, memory_order_relaxed);
        for (uint64_t i = 0; i < s->nsegs; i++) { /* allocated by the parent after the fork */
            struct intern_entry *seg = atomic_load_explicit(&s->segs[i], memory_order_relaxed);
            if (seg && arena_holds(seg) && !arena_allocated(seg))
                atomic_store_explicit(&s->segs[i], NULL, memory_order_relaxed);
        }
        if (atomic_load_explicit(&s->untracked, memory_order_relaxed))
            for (uint64_t i = 0; i < s->nslots; i++)
                bury_if_claimed(s, i);
        for (int j = 0; j < INTERN_INFLIGHT; j++) {
            uint64_t r = atomic_load_explicit(&s->inflight[j], memory_order_relaxed);
            if (r) bury_if_claimed(s, r - 1);
            atomic_store_explicit(&s->inflight[j], 0, memory_order_relaxed);
        }
        atomic_store_explicit(&s->untracked, 0, memory_order_relaxed);
    }
}

/* Records that this thread claims slot i (before the claim): a record's index, or -1 when
 * every record is taken (counted in untracked). */
static int claim_begin(struct intern_set *s, uint64_t i)
{
    for (unsigned k = 0, j = (unsigned)(i % INTERN_INFLIGHT); k < INTERN_INFLIGHT;
         k++, j = (j + 1) % INTERN_INFLIGHT) {
        uint64_t free_rec = 0;
        if (atomic_load_explicit(&s->inflight[j], memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(&s->inflight[j], &free_rec, i + 1,
                                                    memory_order_seq_cst, memory_order_relaxed))
            return (int)j;
    }
    atomic_fetch_add_explicit(&s->untracked, 1, memory_order_seq_cst);
    return -1;
}

/* After the claim failed or the slot was published. */
static void claim_end(struct intern_set *s, int rec)
{
    if (rec >= 0)
        atomic_store_explicit(&s->inflight[rec], 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(&s->untracked, 1, memory_order_release);
}

/* 64-bit hash, 8 bytes per step (the keys are mostly pc arrays). */
static uint64_t hash(const unsigned char *p, size_t len)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (len) {
        w = 0;
        memcpy(&w, p, len);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

/* len bytes of the current chunk, 8-byte aligned; NULL if no memory. */
static unsigned char *key_alloc(struct intern_set *s, uint64_t len)
{
    len = (len + 7) & ~(uint64_t)7;
    for (;;) {
        struct intern_chunk *c = atomic_load_explicit(&s->chunk, memory_order_acquire);
        uint64_t off = atomic_fetch_add_explicit(&c->used, len, memory_order_relaxed);
        if (off + len <= c->size)
            return back_upto(c->data, &c->backed, off + len, c->size) == 0 ? c->data + off : NULL;
        while (atomic_flag_test_and_set_explicit(&s->chunk_lock, memory_order_acquire))
            sched_yield();
        struct intern_chunk *fresh = NULL;
        if (atomic_load_explicit(&s->chunk, memory_order_relaxed) == c) {
            fresh = chunk_new();
            if (fresh) atomic_store_explicit(&s->chunk, fresh, memory_order_release);
        }
        int failed = !fresh && atomic_load_explicit(&s->chunk, memory_order_relaxed) == c;
        atomic_flag_clear_explicit(&s->chunk_lock, memory_order_release);
        if (failed) return NULL;
    }
}

static void warn_full(const struct intern_set *s)
{
    gt_warn_once(full, "the %s table is full; further entries are dropped", s->name);
}

/* Fill a slot we claimed; returns the id, or 0 (slot marked dead) if out of ids or memory. */
static uint64_t fill(struct intern_set *s, _Atomic uint64_t *slot, uint64_t tag, const void *key,
                     size_t len)
{
    uint64_t id = atomic_fetch_add_explicit(&s->next_id, 1, memory_order_relaxed) + 1;
    struct intern_entry *e = id <= s->max_ids ? entry_new(s, id) : NULL;
    if (e && entry_back(s, id, e) != 0) e = NULL;
    unsigned char *copy = e ? key_alloc(s, len + 1) : NULL;
    if (!copy) {
        atomic_store_explicit(slot, tag | DEAD_ID, memory_order_release);
        warn_full(s);
        return 0;
    }
    memcpy(copy, key, len);
    copy[len] = 0;
    e->len = len;
    atomic_signal_fence(memory_order_release); /* a dead process's reader: bytes last */
    e->bytes = copy;
    atomic_store_explicit(slot, tag | id, memory_order_release);
    return id;
}

/* Wait until a claimed slot is published; returns its value, or 0 if we gave up. */
static uint64_t wait_filled(_Atomic uint64_t *slot, uint64_t v)
{
    for (uint32_t i = 0; (uint32_t)v == 0; i++) {
        if (i >= WAIT_SPINS + WAIT_YIELDS) return 0;
        if (i < WAIT_SPINS)
            __builtin_ia32_pause();
        else
            sched_yield();
        v = atomic_load_explicit(slot, memory_order_acquire);
    }
    return v;
}

/* Level k of s: its slots, *mask = its slot count - 1. */
static _Atomic uint64_t *level(const struct intern_set *s, unsigned k, uint64_t *mask)
{
    uint64_t size = (uint64_t)1 << (s->first_log + k);
    *mask = size - 1;
    return s->slots + (size - ((uint64_t)1 << s->first_log));
}

/* Level k (the top) stops taking keys: the next one does (never past the last). */
static uint64_t close_level(struct intern_set *s, unsigned k)
{
    unsigned expect = k;
    if (k + 1 < s->nlevels) atomic_compare_exchange_strong(&s->top, &expect, k + 1);
    return k + 1 < s->nlevels ? ABSENT : 0;
}

/* Inserts key into the empty slot (index i of all) of the top level k: its id, 0 when out of
 * ids or memory, ABSENT when the level is closed (look in the next), AGAIN when the slot was
 * taken or the level closed meanwhile (look in level k again). A claim counts only if k is still
 * the top after it (seq_cst): then every insert that reads a higher top afterwards sees it. */
static uint64_t claim(struct intern_set *s, unsigned k, uint64_t i, uint64_t tag, const void *key,
                      size_t len)
{
    uint64_t v = 0;
    if (k + 1 < s->nlevels && atomic_load_explicit(&s->claimed[k], memory_order_relaxed) >=
                                  (uint64_t)1 << (s->first_log + k - 1)) /* half of it */
        return close_level(s, k);
    /* When out of ids, do not claim (a dead slot would lengthen every later probe). */
    if (atomic_load_explicit(&s->next_id, memory_order_relaxed) >= s->max_ids) {
        warn_full(s);
        return 0;
    }
    _Atomic uint64_t *slot = &s->slots[i];
    int rec = claim_begin(s, i);
    uint64_t id = AGAIN;
    if (atomic_compare_exchange_strong(slot, &v, tag)) {
        if (atomic_load(&s->top) == k) {
            atomic_fetch_add_explicit(&s->claimed[k], 1, memory_order_relaxed);
            id = fill(s, slot, tag, key, len);
        } else {
            atomic_store_explicit(slot, tag | DEAD_ID, memory_order_release);
        }
    }
    claim_end(s, rec);
    return id;
}

/* Looks for key in level k: its id, ABSENT (not in this level, which is below the top), AGAIN
 * (look in this level again) or 0 (given up); in the top level, inserts it when absent. */
static uint64_t probe(struct intern_set *s, unsigned k, uint64_t h, uint64_t tag, const void *key,
                      size_t len)
{
    uint64_t mask;
    _Atomic uint64_t *slots = level(s, k, &mask);
    for (uint64_t n = 0, i = h & mask; n <= mask; n++, i = (i + 1) & mask) {
        uint64_t v = atomic_load_explicit(&slots[i], memory_order_acquire);
        if (v == 0)
            return atomic_load(&s->top) > k
                       ? ABSENT
                       : claim(s, k, (uint64_t)(slots - s->slots) + i, tag, key, len);
        if ((v & ~(uint64_t)DEAD_ID) != tag) continue;
        v = wait_filled(&slots[i], v);
        if (v == 0) {
            gt_warn_once(stuck, "the %s table: a concurrent insert did not finish", s->name);
            return 0;
        }
        uint64_t id = (uint32_t)v;
        if (id == DEAD_ID) continue;
        const struct intern_entry *e = entry(s, id);
        if (e->len == len && memcmp(e->bytes, key, len) == 0) return id;
    }
    if (atomic_load(&s->top) > k) return ABSENT;
    if (k + 1 == s->nlevels) warn_full(s);
    return close_level(s, k);
}

uint64_t intern_insert(struct intern_set *s, const void *key, size_t len)
{
    if (len > INTERN_MAX_KEY) return 0;
    uint64_t h = hash(key, len), tag = (h >> 32 | 1) << 32, id = ABSENT;
    for (unsigned k = 0; k < s->nlevels && id == ABSENT;) {
        id = probe(s, k, h, tag, key, len);
        if (id == ABSENT) k++;
        if (id == AGAIN) id = ABSENT;
    }
    return id == ABSENT ? 0 : id;
}

static uint64_t id_count(const struct intern_set *s)
{
    uint64_t n = atomic_load_explicit(&s->next_id, memory_order_relaxed);
    return n < s->max_ids ? n : s->max_ids;
}

const void *intern_get(const struct intern_set *s, uint64_t id, size_t *len)
{
    const struct intern_entry *e = id && id <= id_count(s) ? entry(s, id) : NULL;
    if (!e || !e->bytes) return NULL;
    *len = e->len;
    return e->bytes;
}

void intern_mark(struct intern_set *s, uint64_t id, uint64_t gen)
{
    struct intern_entry *e = id && id <= s->max_ids ? entry(s, id) : NULL;
    if (!e) return;
    _Atomic uint64_t *m = &e->mark[gen & 1];
    if (atomic_load_explicit(m, memory_order_relaxed) != gen + 1)
        atomic_store_explicit(m, gen + 1, memory_order_relaxed);
}

void intern_foreach_marked(const struct intern_set *s, uint64_t gen, intern_visit_fn fn, void *ctx)
{
    uint64_t n = id_count(s);
    for (uint64_t id = 1; id <= n; id++) {
        const struct intern_entry *e = entry(s, id);
        if (e && atomic_load_explicit(&e->mark[gen & 1], memory_order_relaxed) == gen + 1 &&
            e->bytes)
            fn(ctx, id, e->bytes, e->len);
    }
}
