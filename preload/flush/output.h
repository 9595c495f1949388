/* output.h: the trace file. Opened at a high descriptor number (fds.h), locked against other
 * traced processes given the same path (the second one writes PATH.<pid>), written one whole
 * generation per call.
 * Invariants: the file holds a valid trace from its creation (a file opened lazily from its
 * first generation), so what a killed process leaves is one: its header and generation 1's
 * start, then whole generations, each written whole or not at all: a failed write truncates
 * the file back to the generations written before it, and nothing more is written after a
 * failure;
 * before each write the descriptor is checked to still refer to the file opened here (device
 * and inode): one that the program closed or replaced with a system call the hooks do not see
 * ends tracing with one message, and is never written, truncated or closed by the tracer. The
 * output lock is held by whoever switches and writes generations (flusher.c) and by a dup2 of
 * the program onto the output's number (the output then moves), so no write is under way
 * meanwhile. */
#ifndef GOTRACE_OUTPUT_H
#define GOTRACE_OUTPUT_H
#include <stddef.h>
#include <stdint.h>

void output_lock(void);
int output_lock_unless(int (*stop)(void)); /* spinlock.h spin_lock_unless */
void output_unlock(void);
/* Opens path now (-1, after a message, if it cannot be created), or, lazily, at the first
 * write (a forked child: one that only execs leaves no file). */
int output_open(const char *path);
void output_open_lazily(const char *path);
/* A file set up lazily and not opened yet is opened now (the process is about to change its
 * user, after which it may not create the file); nothing otherwise. fresh: nothing was
 * recorded since output_open_lazily, so the file starts as output_open's does, a valid trace
 * with no thread (a child that then execs having written no generation leaves a valid file);
 * else as a lazily opened file (its generation 1 is written next). Takes the output lock. */
void output_open_pending(int fresh);
/* Generations written so far (the next one written is number output_generations() + 1). The
 * file is created with generation 1's frequency batch after its header (and, when opened
 * before any event, one event, so that it is a valid trace from the start): generation 1 is
 * written without one. */
uint64_t output_generations(void);
/* Writes one whole generation (the caller holds the output lock); 0, or -1 after tracing
 * stopped with a message. */
int output_write(const uint8_t *p, size_t n);
void output_close(void); /* closes it if it is still the tracer's */
const char *output_path(void);
#endif
