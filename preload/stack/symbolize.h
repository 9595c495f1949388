/* symbolize.h: pc -> (function, file, line) with elfutils libdw, for the flusher only.
 * Invariants: never called on the event path; results are cached across generations, and on
 * disk across processes (symcache.h: a pc the machine's cache knows costs no libdw at all);
 * libdwfl is begun at the first pc the cache does not know, not at start; modules loaded after
 * start (dlopen) are found by re-reporting the process maps on a miss. Function and file names
 * are interned in the string table (strings.h). */
#ifndef GOTRACE_SYMBOLIZE_H
#define GOTRACE_SYMBOLIZE_H
#include "symcache.h"

#include <stddef.h>
#include <stdint.h>

#define SYM_MAX_FRAMES 16     /* the frames of one pc at most (itself and its inlined callers) */
#define SYM_MAX_WIRE_FRAME 40 /* bytes a frame takes on the wire at most (sym_set_encoding) */

/* 0 on success; calls str_init. Cheap: no file is read until the first lookup. */
int sym_init(void);
/* Frames for return address pc (inlined frames expanded, innermost first), at most max;
 * returns how many were written (>= 1 when max >= 1, but 0 for a stack_named frame with
 * nothing to show and for libc's start of a thread: start_thread, clone3, clone). Names are
 * demangled (C++, Rust legacy and v0); the tracer's own inlined helpers never show (its hooks
 * appear as the interposed function only, with no line and as file the path of the module that
 * defines the function it stands in front of, e.g. libc's, 0 when none does: the tracer's API);
 * the synthetic pcs of stack.h resolve to "main" and to a thread's first frame of the program's
 * own code. The innermost frame has .pc == pc; the k-th enclosing inlined caller has
 * .pc == pc | k << 56, so a pc still names one frame. No DWARF: the ELF symbol (or
 * "module+0xoff") with the module's path as file and line 0; no module: func "?". Before
 * sym_init: one frame with no strings. A caller filling a Stack must cap the total at
 * GO_MAX_STACK_FRAMES (inline expansion can make a stack longer than its pcs) and str_mark the
 * func/file ids it writes. With DEBUGINFOD_URLS set in the traced process, libdw may query
 * debuginfod servers for modules without local debug info. */
int sym_lookup(uintptr_t pc, struct sym_frame *out, int max);
/* sym_lookup, with the strings of pc's frames marked as used by generation gen (str_mark): for
 * a real pc, once per generation (its cache entry remembers the last; generations only grow,
 * in a forked child too). */
int sym_lookup_for(uintptr_t pc, uint64_t gen, struct sym_frame *out, int max);
/* The wire form of frames, given by the flusher before its first lookup (its encoding,
 * encode.h's enc_frames): encode writes f[0..n) into out, at most n * SYM_MAX_WIRE_FRAME bytes, and
 * returns the length. Every pc resolved from then on keeps its frames in that form too
 * (sym_encoded_for), valid as long as its cached frames are, since their string ids never
 * change. */
void sym_set_encoding(size_t (*encode)(uint8_t *out, const struct sym_frame *f, int n));
/* The frames of real pc in the wire form (*bytes, *len bytes; all of them, uncut), marked for
 * gen as sym_lookup_for marks them: their count; 0 when pc is synthetic, uncached or no
 * encoding was given (then sym_lookup_for answers). */
int sym_encoded_for(uintptr_t pc, uint64_t gen, const uint8_t **bytes, size_t *len);
/* The static object holding data address addr, as "symbol" or "symbol+offset" (demangled)
 * into buf (cap bytes): its length, 0 when addr is in no symbol of a module (heap, stacks).
 * With DWARF, a member or element of a struct or array is named by its path ("queue.mu",
 * "locks[3]"; not into pthread_* or sem_t types); finding the variable reads every unit's
 * top-level entries of its module: callers cache the answer. */
int sym_data(uintptr_t addr, char *buf, size_t cap);
void sym_fini(void); /* frees the cache and the Dwfl; sym_init may be called again */
#endif
