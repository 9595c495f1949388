/* symbolize.h: pc -> (function, file, line) with elfutils libdw, for the flusher only.
 * Invariants: never called on the event path; results are cached across generations;
 * modules loaded after start (dlopen) are found by re-reporting the process maps on a miss.
 * Function and file names are interned in the string table (strings.h). */
#ifndef GOTRACE_SYMBOLIZE_H
#define GOTRACE_SYMBOLIZE_H
#include <stdint.h>

struct sym_frame {
    uintptr_t pc;      /* identity of the frame in the Stacks batch */
    uint64_t func_str; /* string id, 0 if unknown */
    uint64_t file_str; /* string id, 0 if unknown */
    uint64_t line;
};
int sym_init(void);
/* Frames for return address pc (inlined frames expanded, innermost first), at most max;
 * returns how many were written (>= 1). */
int sym_lookup(uintptr_t pc, struct sym_frame *out, int max);
void sym_fini(void);
#endif
