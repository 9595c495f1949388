/* grow.c: the growable array (see grow.h). Sizes come from the trace (counts, lengths), so
 * the doubling is checked against size_t overflow: a hostile count fails here, cleanly, instead
 * of wrapping into a small allocation that later writes would overrun. */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

int gd_grow(void **p, size_t *cap, size_t need, size_t el)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / el) return -1; /* 2 * n * el would wrap */
        n *= 2;
    }
    void *q = realloc(*p, n * el);
    if (!q) return -1; /* *p is still valid and still the caller's to free */
    *p = q;
    *cap = n;
    return 0;
}
