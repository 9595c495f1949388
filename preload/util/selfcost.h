/* selfcost.h: the tracer's own time in the process it runs in, timed inside it (docs/cost.md,
 * "The tracer's time, reported by itself"): its start-up, the stack walks of captures the memo
 * did not know and the unwind rules they read anew, backing the live file's pages, the stack
 * tables' writes (symbolization), the final write, the process's forks (from the prepare handler
 * to the parent's, the kernel's fork included) and, in a forked child, its set-up at its first
 * record (lifecycle.c settle_child). With GOTRACE_DEBUG=1 one line at exit
 * says how long each took and how often; perf or a whole process's time cannot resolve these
 * parts (tens of µs each) on shared CPUs.
 * Invariants: off until selfcost_enable(1): selfcost_begin then reads no clock and nothing is
 * counted; lock-free (relaxed adds), so any thread may count; a part's time is CLOCK_MONOTONIC
 * from selfcost_begin to selfcost_end, nested parts included (a walk's rules are in its time). */
#ifndef GOTRACE_SELFCOST_H
#define GOTRACE_SELFCOST_H
#include <stddef.h>
#include <stdint.h>

enum selfcost_part {
    SC_START,   /* the tracer's set-up (tr_init) */
    SC_WALK,    /* a capture's walk and its stack-table insert (memo misses) */
    SC_RULE,    /* an unwind rule read from a module's tables (the walker's cache misses) */
    SC_BACK,    /* backing live-file pages (counted in pages) */
    SC_SYMBOLS, /* a generation's stack table: symbolizing its frames */
    SC_FINAL,   /* the last write, at exit */
    SC_FORK,    /* a fork, prepare handler to parent handler (counted in forks) */
    SC_CHILD,   /* a forked child's set-up, at its first record */
    SC_PARTS
};

void selfcost_enable(int on);
/* A start time for selfcost_end, 0 when off. */
uint64_t selfcost_begin(void);
/* Counts n more of part, taking the time since t0 (nothing when t0 is 0). */
void selfcost_end(enum selfcost_part part, uint64_t t0, uint64_t n);
/* In a forked child: the counts so far were the parent's. */
void selfcost_fork_child(void);
/* The report line (no prefix) into buf; its length (cut to cap - 1). */
int selfcost_format(char *buf, size_t cap);
#endif
