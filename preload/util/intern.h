/* intern.h: a lock-free, append-only hash set of byte keys with dense, stable ids (1, 2, 3, ...),
 * shared by the string table and the stack table.
 * Invariants: intern_insert, intern_get and intern_mark are safe from any thread concurrently,
 * never call malloc and take no lock, except a spinlock held only while mmap'ing a new arena
 * chunk (rare); an inserter finding a slot another thread has claimed but not yet published for
 * a key with the same hash waits for it (bounded, then gives up with 0). Entries are never
 * removed or moved: an id and the bytes it names stay valid for the life of the process. Each
 * entry has one mark word per generation parity: intern_foreach_marked(gen) is race-free as
 * long as nobody marks gen or gen + 2 while it runs. When the set is full, intern_insert
 * returns 0 and warns once.
 * Levels: the slots grow without moving a key. Level 0 has 2^9 slots (fewer if the set is
 * smaller), each next level twice as many, up to 2^log2_slots; new keys go to the top level
 * until half of it is taken, then to the next. A lookup probes the levels from the first, each
 * until an empty slot, so a process that stores little touches the first pages only (a flat
 * table is touched at random: a page fault per key). A claim counts only if its level is still
 * the top right after it (otherwise the slot is marked dead and the insert looks again), so a
 * key has one id even when threads insert it while the set grows.
 * Fork: intern_fork_child, in a forked child before it starts threads, repairs every set
 * intern_init set up (at most INTERN_MAX_SETS, each living as long as the process): a chunk lock
 * a parent thread held (mid-refill) is released, and a slot a parent thread had claimed but not
 * yet published (mid-insert) is marked dead, so the child neither spins on the lock nor waits
 * for that slot; a later insert of the key takes another slot. To find those slots without
 * reading the whole slot array, an inserter records the slot it is about to claim in one of
 * INTERN_INFLIGHT records (or, when all are taken, counts itself in untracked: the child then
 * reads every slot) until the slot is published; lookups of present keys never touch them. */
#ifndef GOTRACE_INTERN_H
#define GOTRACE_INTERN_H
#include "gt_live.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define INTERN_MAX_KEY 4096  /* longest key accepted (bytes) */
#define INTERN_INFLIGHT 64   /* records of inserts in progress (fork repair) */
#define INTERN_PAGE_WORDS 16 /* bits for 1024 pages of entries (131072 ids) */
#define INTERN_MAX_LEVELS 16

struct intern_entry;
struct intern_chunk;

struct intern_set {
    const char *name;   /* for the "table full" warning */
    uint64_t nslots;    /* slots of all levels */
    uint64_t max_ids;   /* ids are 1..max_ids (3/4 of the last level's slots) */
    unsigned first_log; /* level k has 2^(first_log + k) slots, after those of level k - 1 */
    unsigned nlevels;
    _Atomic unsigned top;                        /* the level that takes new keys */
    _Atomic uint64_t claimed[INTERN_MAX_LEVELS]; /* keys each level took */
    _Atomic uint64_t *slots; /* 0 empty, else hash tag << 32 | id (id 0: being filled) */
    _Atomic(struct intern_entry *) *segs; /* entries by id, in segments (intern.c) */
    uint64_t nsegs;
    _Atomic uint64_t backed[INTERN_PAGE_WORDS]; /* entry pages known backed, one bit each */
    _Atomic uint64_t next_id;                   /* last id handed out */
    _Atomic(struct intern_chunk *) chunk;       /* current arena chunk */
    atomic_flag chunk_lock;
    _Atomic uint64_t inflight[INTERN_INFLIGHT]; /* slot index + 1 being claimed/filled, 0 free */
    atomic_uint untracked;                      /* claims/fills without a record */
};

#define INTERN_MAX_SETS 8

/* Set up a set whose last level has 2^log2_slots slots and whose first key bytes (with its
 * segment table) take first_pages pages, backed at once (a set of big keys fills one page
 * soon); 0 on success, -1 if mmap fails. Not thread-safe. */
int intern_init(struct intern_set *s, const char *name, unsigned log2_slots, unsigned first_pages);
/* In a forked child, while it has one thread: repairs the sets (see above). */
void intern_fork_child(void);
/* The id of key (inserting it if new), or 0 if the set is full or len > INTERN_MAX_KEY. The
 * stored copy is 8-byte aligned and followed by a NUL byte. */
uint64_t intern_insert(struct intern_set *s, const void *key, size_t len);
/* The bytes of id (returned by intern_insert), NULL for an unknown id. */
const void *intern_get(const struct intern_set *s, uint64_t id, size_t *len);
/* Record that id is used in generation gen (no-op for id 0). */
void intern_mark(struct intern_set *s, uint64_t id, uint64_t gen);
/* Records where s's entries are in the live file's head (common/gt_live.h), if there is one. */
void intern_publish(const struct intern_set *s, struct gt_live_set *out);
typedef void (*intern_visit_fn)(void *ctx, uint64_t id, const void *key, size_t len);
/* Visit, in id order, every entry marked with gen. */
void intern_foreach_marked(const struct intern_set *s, uint64_t gen, intern_visit_fn fn, void *ctx);
#endif
