/* generation.h: the generation switch (Go's trace.go advance): the next generation begins,
 * the sections of the old one are waited for, every thread's statuses for the new one are
 * claimed where nobody wrote them yet, and the old one is encoded (its batches, then its stack
 * table, string table and frequency) and written as one contiguous write (output.h).
 * Invariants: the caller holds the output lock (one switch at a time); generations are written
 * in order, each complete and self-contained, numbered 1, 2, 3... in the file (or kept by the
 * flight recorder, flight.h, which numbers them when it writes them); a generation
 * with no event is not written; after a failure nothing more is written, so the file keeps only
 * whole generations; the buffers and statuses of the old generation go back to the pool and
 * exited threads are reaped only after it was written. */
#ifndef GOTRACE_GENERATION_H
#define GOTRACE_GENERATION_H
#include <stdint.h>

/* Switches at time ts (0: now); returns the time it used. */
uint64_t generation_switch(uint64_t ts);
/* A library was unloaded: the next generation written symbolizes with fresh module maps. */
void generation_code_unloaded(void);
/* In a forked child: the parent's unwritten statuses are not its own. */
void generation_fork_child(void);
#endif
