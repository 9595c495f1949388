/* grow.h: the growable array every decoder table is built on.
 * Invariants: capacity doubles from 16, so appending n elements costs O(n) copies in all;
 * a size that would overflow size_t is refused (-1) before any allocation, and on failure the
 * array and its capacity are left as they were (the caller still owns and frees *p). */
#ifndef GOTRACE_DECODER_GROW_H
#define GOTRACE_DECODER_GROW_H

#include <stddef.h>

/* Grows *p (elements of size el) so that it holds at least need; returns 0 or -1. Elements
 * may move: callers keep indices, or re-fetch pointers after a call that may grow. */
int gd_grow(void **p, size_t *cap, size_t need, size_t el);

#endif
