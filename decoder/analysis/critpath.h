/* critpath.h: the critical path of a target (a thread's lifetime, a region, a task, a time
 * window), from the intervals of a sync analysis (holders.h, want_intervals): from the end of
 * the target, walk back along its thread; a wait that another thread ended (a wake-up)
 * continues on the waker from the wake-up; a lock wait ended after a release continues on the
 * releaser from its release (the "hand-off" in between stays on the waiter); a thread's start
 * continues on its creator; a wait on a lock or a join still under way at the window's end
 * (cut by --to, or open when the trace ends: a hung program) continues on the object's holder
 * then (holders.h hd_holder_at), at the same time, until a thread that does something else
 * (its segment follows), a holder already visited at that time (a cycle: the wait is a segment
 * noted CP_NOTE_CYCLE) or a holder that exited holding the lock (CP_NOTE_EXITED); anything
 * else (running, runnable, a wait nobody ended: sleep, timeout, I/O) is a segment of the path.
 * Used by `gotrace critical-path` and the report.
 * Invariants: the segments are disjoint and cover [from, to] exactly (what the walk cannot
 * reach, before a thread that existed before the trace or past the walk's step budget, is one
 * segment "before the trace", thread HD_NONE); the shares by thread and by function each sum
 * to to - from. Memory: the segments and shares of one path, on top of the intervals. */
#ifndef GOTRACE_DECODER_CRITPATH_H
#define GOTRACE_DECODER_CRITPATH_H

#include "holders.h"

/* Why a wait still under way at the window's end is itself on the path (cp_seg.note). */
enum {
    CP_NOTE_NONE,
    CP_NOTE_CYCLE, /* its holder then was already on the path at that time: each waits for the
                      other (ABBA); the walk stops following holders there */
    CP_NOTE_EXITED /* its holder exited holding the lock (at the segment's start, or before) */
};

/* One stretch of the path: thread g in one state over [start, end). */
struct cp_seg {
    uint32_t g;    /* goroutine index, HD_NONE: before the trace */
    uint8_t state; /* GS_* */
    uint8_t note;  /* CP_NOTE_*: a wait under way at its end whose holder the walk did not follow */
    int handoff;   /* a lock wait's hand-off after the holder's release */
    int64_t start, end;
    uint32_t stack, reason; /* of the interval it comes from (stack: the event that began it);
                               interned, 0 none */
    uint32_t holder;        /* note CYCLE, EXITED: the holder (goroutine index) */
};

/* Time of the path spent on one thread or in one function. */
struct cp_share {
    uint32_t key; /* goroutine index (HD_NONE: before the trace) or interned function */
    int64_t ns;
};

struct cp_path {
    int64_t from, to;
    struct cp_seg *seg; /* oldest first */
    size_t nseg;
    struct cp_share *byg, *byf; /* by thread, by function; largest first */
    size_t ng, nf;
};

/* The path of goroutine g's work ending at to, back to from, into p (free it with cp_free).
 * s must have kept its intervals (hd_init with want_intervals, not over its iv_budget). An
 * empty window (to <= from) gives no segment. 0, or -1 when out of memory (p is then empty). */
int cp_compute(struct hd *s, uint32_t g, int64_t from, int64_t to, struct cp_path *p);
/* Frees p's arrays and empties it. */
void cp_free(struct cp_path *p);
/* The main thread (the goroutine started by "main", else the first one); HD_NONE if none. */
uint32_t cp_main_thread(const struct hd *s);
/* The goroutine named want (as the commands print it, its label, its start routine, or
 * G<id>); HD_NONE if none. */
uint32_t cp_find_thread(const struct hd *s, const char *want);
/* "running", "runnable", "waiting", "syscall", "hand-off", or "-". */
const char *cp_state_name(uint8_t state, int handoff);
#endif
