/* livesym.h: symbolization of a dead process's code addresses from the modules its live file
 * recorded (common/gt_live.h), with libdw on the files still on this machine.
 * Invariants: one frame per address (no inlined frames); an address in no recorded module, or
 * in a module whose file is gone or changed, gets no function (the caller shows the address);
 * names are demangled (C++, Rust); returned strings live as long as the symbolizer. */
#ifndef GOTRACE_DECODER_LIVESYM_H
#define GOTRACE_DECODER_LIVESYM_H

#include "live.h"

#include <stdint.h>

struct gd_livesym;

struct gd_livesym *gd_livesym_new(const struct gd_live *l);
void gd_livesym_free(struct gd_livesym *s);
/* Return address pc (the call's instruction is at pc - 1): function, file ("" if unknown),
 * line (0). Returns 0 when the function is unknown (*func is then NULL). */
int gd_livesym_frame(struct gd_livesym *s, uint64_t pc, const char **func, const char **file,
                     uint64_t *line);
#endif
