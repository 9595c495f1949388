/* stacktext.h: the text of a stack of the current generation, the one form in which every
 * command and analysis shows a stack: one line per frame, innermost first, each ending in '\n':
 *   "func file:line"  a frame with a line;
 *   "func (module)"   a frame with no line but a file: the file's basename (libgotrace.so
 *                     writes a module's path there: a function without DWARF, or a hook, the
 *                     interposed function the program called: "pthread_mutex_lock (libc.so.6)");
 *   "func"            a frame with neither (traces of older tracers, some of Go's frames).
 * func is "?" for a pc the generation has no frame for and for a frame with no function name.
 * Invariants: the text of stack 0, of an undefined stack and of a stack with no frames is ""
 * (printers show "(no stack)"); a text is built whole, never cut: when memory runs out it is
 * "" as well. */
#ifndef GOTRACE_DECODER_STACKTEXT_H
#define GOTRACE_DECODER_STACKTEXT_H

#include "reader.h"

#include <stddef.h>
#include <stdint.h>

/* A stack's text, reused from build to build (zero-initialize it; gd_stack_text_free frees it). */
struct gd_stack_text {
    char *s;    /* NUL-terminated text, NULL before the first build */
    size_t len; /* bytes of s */
    size_t cap;
};

/* Builds the text of stack stk of g into t and returns it (NUL-terminated, t->len bytes; valid
 * until t's next build), never NULL. */
const char *gd_stack_text(const struct gd_gen *g, uint64_t stk, struct gd_stack_text *t);
void gd_stack_text_free(struct gd_stack_text *t);

#endif
