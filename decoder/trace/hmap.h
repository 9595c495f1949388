/* hmap.h: open-addressing hash map from uint64 keys to uint32 values.
 * Every id table of the decoder is one: string, stack and pc tables of a generation, goroutine,
 * proc, thread and task states. Values are indices into the caller's arrays, never pointers, so
 * those arrays may grow (and move) freely while the map still points at the right element.
 * Invariants: capacity is a power of two and at most half full, so a probe always ends at an
 * empty slot; any uint64 is a valid key (occupancy is tracked separately: goroutine 0 and
 * GD_NONE are ids like any other); deletion uses backward shift, so lookups never see
 * tombstones and a table with many deletions (goroutines come and go) stays fast. Growth is the
 * only allocation; gd_hm_put reports allocation failure. */
#ifndef GOTRACE_DECODER_HMAP_H
#define GOTRACE_DECODER_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct gd_hm_ent {
    uint64_t key;
    uint32_t val;
    uint32_t used; /* 0: empty slot */
};

struct gd_hmap {
    struct gd_hm_ent *ents;
    size_t cap; /* power of two, or 0 */
    size_t len;
};

/* Frees the table; m is then an empty map again (usable without init). */
void gd_hm_free(struct gd_hmap *m);
/* Empties the map but keeps its capacity: the reader refills the same maps each generation. */
void gd_hm_clear(struct gd_hmap *m);
/* Returns a pointer to the value of key, or NULL. Valid until the next put or delete. */
uint32_t *gd_hm_get(const struct gd_hmap *m, uint64_t key);
/* Inserts or overwrites; returns 0, or -1 when out of memory. */
int gd_hm_put(struct gd_hmap *m, uint64_t key, uint32_t val);
/* Removes key if present. */
void gd_hm_del(struct gd_hmap *m, uint64_t key);
/* Bytes held by the table (the reader's memory cap counts them). */
static inline size_t gd_hm_bytes(const struct gd_hmap *m)
{
    return m->cap * sizeof(*m->ents);
}

#endif
