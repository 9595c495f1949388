/* strtab.h: the process-wide string table. Strings are interned once and keep a stable id
 * (> 0) for the life of the process; each generation writes only the strings its events used.
 * Invariants: str_intern and str_mark are lock-free, never allocate with malloc and are safe to
 * call from any thread inside a tracer section; the str_foreach_marked visitor runs on the
 * flusher only, for a generation no thread writes any more. Strings longer than
 * GO_MAX_STRING_LEN are truncated. */
#ifndef GOTRACE_STRINGS_H
#define GOTRACE_STRINGS_H
#include <stddef.h>
#include <stdint.h>

/* 0 on success, -1 if memory is unavailable; idempotent (later calls return the first result).
 * Call it once before any thread can intern (the tracer's init, before stack_init/sym_init). */
int str_init(void);
uint64_t str_intern(const char *s, size_t len); /* 0 when the table is full */
uint64_t str_intern_cstr(const char *s);
void str_mark(uint64_t id, uint64_t gen); /* id used by an event of generation gen */
/* The bytes of an id returned by str_intern (NUL-terminated), NULL for an unknown id. */
const char *str_get(uint64_t id, size_t *len);
typedef void (*str_visit_fn)(void *ctx, uint64_t id, const char *s, size_t len);
void str_foreach_marked(uint64_t gen, str_visit_fn fn, void *ctx);
#endif
