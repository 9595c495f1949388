/* flight.h: the flight recorder (GOTRACE_MODE=flight, Go 1.25's runtime/trace.FlightRecorder):
 * generations are kept encoded in memory instead of written, the oldest dropped once the ones
 * after it still cover the last GOTRACE_FLIGHT_S seconds, or once they pass GOTRACE_FLIGHT_MB;
 * a dump writes the kept ones as one complete trace (renumbered 1, 2, ...) and tracing goes on.
 * The first dump goes to the output path, dump n > 1 to <stem>-dump<n>.trace (as exec's files).
 * Invariants: used by whoever holds the output lock (the flusher, or a process without one);
 * the newest kept generation is never dropped; a dump file is complete or removed. */
#ifndef GOTRACE_FLIGHT_H
#define GOTRACE_FLIGHT_H
#include <stddef.h>
#include <stdint.h>

/* window_s 0: off (the file mode). */
void flight_init(uint32_t window_s, uint32_t cap_mb, const char *path);
int flight_on(void);
/* The number to encode the next kept generation with (renumbered at the dump). */
uint64_t flight_next_number(void);
/* Keeps an encoded generation (copied; without the trace header). */
void flight_keep(const uint8_t *p, size_t len);
/* Writes the kept generations as a trace; 0, or -1 after a message. */
int flight_dump(void);
/* In a forked child: nothing kept; dumps are named from path. */
void flight_fork_child(const char *path);
#endif
