/* hmap.c: linear-probing uint64 -> uint32 map (see hmap.h for the invariants).
 * A zeroed struct gd_hmap is an empty map: the first put allocates 16 slots. */
#include "hmap.h"

#include <stdlib.h>
#include <string.h>

/* Home slot of k: MurmurHash3's 64-bit finalizer, then the low bits. Keys are often small and
 * dense (goroutine 1, 2, 3...) or share their low bits (pcs); without the mixing they would sit
 * in long adjacent runs, and linear probing degrades on long runs. */
static inline size_t slot(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

void gd_hm_free(struct gd_hmap *m)
{
    free(m->ents);
    m->ents = NULL;
    m->cap = m->len = 0;
}

void gd_hm_clear(struct gd_hmap *m)
{
    if (m->ents && m->len) memset(m->ents, 0, m->cap * sizeof(*m->ents));
    m->len = 0;
}

uint32_t *gd_hm_get(const struct gd_hmap *m, uint64_t key)
{
    if (!m->cap) return NULL;
    for (size_t i = slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        struct gd_hm_ent *e = &m->ents[i];
        if (!e->used) return NULL;
        if (e->key == key) return &e->val;
    }
}

/* Doubles the table and re-inserts every entry at its new home (a home depends on cap). */
static int grow(struct gd_hmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 16;
    struct gd_hm_ent *n = calloc(ncap, sizeof(*n));
    if (!n) return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->ents[i].used) continue;
        size_t j = slot(m->ents[i].key, ncap);
        while (n[j].used)
            j = (j + 1) & (ncap - 1);
        n[j] = m->ents[i];
    }
    free(m->ents);
    m->ents = n;
    m->cap = ncap;
    return 0;
}

int gd_hm_put(struct gd_hmap *m, uint64_t key, uint32_t val)
{
    uint32_t *v = gd_hm_get(m, key);
    if (v) {
        *v = val;
        return 0;
    }
    if ((m->len + 1) * 2 > m->cap && grow(m)) return -1; /* stay at most half full */
    size_t i = slot(key, m->cap);
    while (m->ents[i].used)
        i = (i + 1) & (m->cap - 1);
    m->ents[i] = (struct gd_hm_ent){key, val, 1};
    m->len++;
    return 0;
}

void gd_hm_del(struct gd_hmap *m, uint64_t key)
{
    if (!m->cap) return;
    size_t mask = m->cap - 1, i = slot(key, m->cap);
    while (m->ents[i].used && m->ents[i].key != key)
        i = (i + 1) & mask;
    if (!m->ents[i].used) return;
    /* Backward shift: move later entries of the probe run into the hole. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!m->ents[j].used) break;
        size_t home = slot(m->ents[j].key, m->cap);
        /* Entry j may move to i if its home is not cyclically in (i, j]: a home in (i, j]
         * means a lookup of it starts after the hole and would never look there. */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            m->ents[i] = m->ents[j];
            i = j;
        }
    }
    m->ents[i].used = 0;
    m->len--;
}
