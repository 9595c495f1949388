/* flusher.h: generations and the output file (Go's trace.go advance + tracebuf flushing).
 * A flusher thread switches the generation every period (sooner when what the generation holds
 * passes the configured size: see flusher_note_full; buffers then come back to the pool while
 * resident), waits until no thread is inside a section of the old generation, claims the new
 * generation's statuses for threads that did not yet write them, and writes the old generation: its
 * batches, stack table, string table and frequency, as one contiguous write. Invariants: only one
 * switch runs at a time (the flush lock); generations are written in order, each complete and
 * self-contained, numbered 1, 2, 3... in the file; after a write error or memory exhaustion nothing
 * more is written, so the file keeps only whole generations; the flusher thread never emits events
 * (gt_internal). Before each write it checks that its descriptor still refers to the file it opened
 * (device and inode): one the program closed or replaced with a system call the hooks do not see
 * ends tracing with one message, and is never written, truncated or closed by the tracer. */
#ifndef GOTRACE_FLUSHER_H
#define GOTRACE_FLUSHER_H
#include "config.h"

int flusher_start(const struct gt_config *cfg, const char *path);
/* Bytes of generation gen that no thread adds to any more (a full buffer; the pages an exited
 * thread's last buffer touched, and its record, reused only after generations end): when they
 * pass the configured size, asks the flusher thread to end gen, once (a request for a
 * generation that has ended since is dropped: one switch per size passed, not two).
 * A live thread's partly filled buffer does not count, so many threads with little to say do
 * not force switch after switch, and buffers come back to the pool (resident) early. */
void flusher_note_full(uint64_t gen, size_t bytes);
void flusher_kick(void); /* wake the flusher thread now */
void flusher_fail(const char *why);
void flusher_flush_now(void); /* switch and write synchronously (before exec) */
void flusher_final(void);
/* A library was unloaded: the next generation written symbolizes with fresh module maps. */
void flusher_code_unloaded(void); /* last switch and write; nothing is written after it */
/* Fork: prepare takes the flush lock (waiting for a switch in progress), parent and child
 * release it. In the child, with a path: a fresh flusher thread writes PATH (opened when the
 * first generation is written, so a child that only execs leaves no file), from file
 * generation 1; 0, or -1 after a message. Without: nothing more is written (untraced). */
void flusher_fork_prepare(void);
void flusher_fork_parent(void);
int flusher_fork_child(const char *path);
#endif
