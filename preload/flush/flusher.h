/* flusher.h: the flusher thread and the writes other threads ask of it (Go's trace reader
 * goroutine). It switches the generation every period (sooner when the generation's full
 * buffers pass the configured size or a thread kicks it: state.h) and writes the old one
 * (generation.h). The writes that other threads need now (exec, abort, dlclose, exit) are
 * asked of it (flusher_ask), since the asking thread may be in a signal handler that
 * interrupted malloc, and writing allocates. A program with one thread gets no flusher thread
 * until it starts one or its first generation is due at a moment when a thread may start
 * (flusher.c lazy_poll): it stays single-threaded, as untraced (glibc's single-thread paths;
 * a fork that takes no malloc lock). Until then its generations stay in the live file and are
 * written at its end, on its own thread; when it dies of a signal or aborts, a child forked
 * without fork handlers writes the last one.
 * Invariants: every switch and write runs under the output lock; the flusher thread never
 * emits events (gt_internal) and blocks every signal; only a process without a flusher thread
 * writes on the asking thread; nothing is written after the final write; a process whose
 * every application thread has ended (main called pthread_exit) exits with status 0 after the
 * final write, as glibc would (the flusher thread must not keep it alive). */
#ifndef GOTRACE_FLUSHER_H
#define GOTRACE_FLUSHER_H
#include "config.h"

/* Opens the output, sets symbolization up and starts the flusher thread, or leaves it for later
 * when lone (the program has one thread: see above); -1 after a message (the program then runs
 * untraced). */
int flusher_start(const struct gt_config *cfg, const char *path, int lone);
/* The program starts a thread (or one was found): the flusher thread starts if it has not. */
void flusher_need_thread(void);
/* Whether the flusher thread has not started yet (the program has had one thread). */
int flusher_lazy(void);
void flusher_flush_now(void); /* switch and write synchronously (before exec) */
/* The last switch and write; nothing is written after it. The signals another process may send
 * stay blocked from here on: the process ends, as it would have ended untraced before them. */
void flusher_final(void);
/* The same from a signal handler or before abort: asked of the flusher thread only (never
 * written on the calling thread, which may hold what the write needs; without a flusher thread,
 * by a forked child), waiting at most ms; 0 when written. The process must die after it. */
int flusher_final_within(uint32_t ms);
/* The flight recorder (GOTRACE_MODE=flight, flight.h): a dump after the next switch, asked
 * from a signal handler (async-signal-safe, returns at once), or written now (the generation in
 * progress too): 0, or -1 when not in flight mode. */
void flusher_flight_request(void);
int flusher_flight_dump(void);
/* A library was unloaded: the next generation written symbolizes with fresh module maps. */
void flusher_code_unloaded(void);
/* Fork: prepare takes the output lock (waiting for a switch in progress, unless stop() says so
 * meanwhile: then -1, nothing taken), parent and child release it; the child closes the parent's
 * output and has no flusher thread. Then, at the child's first record (flusher_fork_settle), with a
 * path: a fresh flusher thread writes PATH (opened when the first generation is written, so a child
 * that only execs leaves no file), from file generation 1; 0, or -1 after a message. Without:
 * nothing more is written (untraced). */
int flusher_fork_prepare(int (*stop)(void));
void flusher_fork_parent(void);
void flusher_fork_child(void);
int flusher_fork_settle(const char *path);
#endif
