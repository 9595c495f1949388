/* hang.h: live deadlock detection (GOTRACE_HANG_MS, docs/locks.md). On the flusher's rounds
 * (at least every half period), the wait-for graph of the traced threads: each thread waiting
 * on a sync object points at the object's holder at block time (thread.h wait_*; a release
 * while it waits makes the holder unknown). A cycle whose threads all waited at least the
 * period, or a thread waiting that long on an object whose holder has itself been blocked
 * that long, is reported once: "gotrace: deadlock: ..." lines on stderr (threads, objects,
 * stacks), the same text as a log event in the trace (through the callback given to
 * hang_init), and the caller ends the generation so that it is written. Nothing else changes:
 * the program is not stopped.
 * Invariants: runs on the flusher thread only, under the output lock (symbolization is the
 * flusher's); reads thread records without changing them but hang_seen; a wait is reported
 * at most once. */
#ifndef GOTRACE_HANG_H
#define GOTRACE_HANG_H
#include <stdint.h>

/* Whether the check is on (GOTRACE_HANG_MS > 0): only then do waits keep their view of the
 * wait (thread.h wait_*). */
extern int hang__on;
static inline int hang_on(void)
{
    return hang__on;
}
/* ms 0: off. log writes text into the trace (as the tracer's goroutine). Before any thread
 * waits (the tracer's set-up). */
void hang_init(uint32_t ms, void (*log)(const char *text));
/* The flusher's wait, at most ms, shortened to the check's half period when it is on. */
uint32_t hang_wait_ms(uint32_t ms);
/* One check; 1 when it reported (then end the generation). */
int hang_round(void);
#endif
