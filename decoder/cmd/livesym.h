/* livesym.h: symbolization of a dead process's code addresses from the modules its live file
 * recorded (common/gt_live.h), with libdw on the files still on this machine.
 * The process is gone, so its address space is rebuilt from the module list its tracer kept
 * (path, code range, load bias): each file is read where it is now, at the bias it had.
 * Invariants: one frame per address (no inlined frames: the tracer's symbolizer shows them, this
 * one keeps to what libdw gives for an address); an address in no recorded module, or in a
 * module whose file is gone, gets no function (the caller shows the address); nothing checks
 * that a file still on disk is the build the process ran (the live file records no build id),
 * so a program rebuilt between its death and the recovery is symbolized with the new build's
 * names; names are demangled (C++, Rust); returned strings live as long as the symbolizer. */
#ifndef GOTRACE_DECODER_LIVESYM_H
#define GOTRACE_DECODER_LIVESYM_H

#include "live.h"

#include <stdint.h>

struct gd_livesym;

/* A symbolizer for the modules l records; NULL when out of memory. A symbolizer whose libdw
 * session could not start is still returned, and knows no address. */
struct gd_livesym *gd_livesym_new(const struct gd_live *l);
/* Frees s and every string it returned; NULL is fine. */
void gd_livesym_free(struct gd_livesym *s);
/* Return address pc (the call's instruction is at pc - 1): function, file ("" if unknown),
 * line (0). Returns 0 when the function is unknown (*func is then NULL). */
int gd_livesym_frame(struct gd_livesym *s, uint64_t pc, const char **func, const char **file,
                     uint64_t *line);
#endif
