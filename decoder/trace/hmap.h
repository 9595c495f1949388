/* hmap.h: open-addressing hash map from uint64 keys to uint32 values.
 * Invariants: capacity is a power of two and at most half full; any uint64 is a valid key
 * (occupancy is tracked separately); deletion uses backward shift, so lookups never see
 * tombstones. Growth is the caller's only allocation; gd_hm_put reports allocation failure. */
#ifndef GOTRACE_DECODER_HMAP_H
#define GOTRACE_DECODER_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct gd_hm_ent {
    uint64_t key;
    uint32_t val;
    uint32_t used;
};

struct gd_hmap {
    struct gd_hm_ent *ents;
    size_t cap; /* power of two, or 0 */
    size_t len;
};

void gd_hm_free(struct gd_hmap *m);
void gd_hm_clear(struct gd_hmap *m);
/* Returns a pointer to the value of key, or NULL. */
uint32_t *gd_hm_get(const struct gd_hmap *m, uint64_t key);
/* Inserts or overwrites; returns 0, or -1 when out of memory. */
int gd_hm_put(struct gd_hmap *m, uint64_t key, uint32_t val);
/* Removes key if present. */
void gd_hm_del(struct gd_hmap *m, uint64_t key);
/* Bytes held by the table. */
static inline size_t gd_hm_bytes(const struct gd_hmap *m)
{
    return m->cap * sizeof(*m->ents);
}

#endif
