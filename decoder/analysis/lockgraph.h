/* lockgraph.h: lock tracking's records read from a trace (GT_SYNC_ORDER, GT_SYNC_HOLD,
 * GT_SYNC_EXIT_HELD, go_wire.h; docs/locks.md section 7): the lock-order graph (an edge a -> b:
 * lock b taken while a was held, with both sites) and its cycles (the inversions), each lock's
 * hold statistics, and the locks threads held when they ended. Locks are nodes by a caller's
 * index (holders.c's objects), texts are interned by the caller (analysis.h gd_intern).
 * Invariants: an edge is kept once (the first record of it: its sites are those of its first
 * time); a lock's hold statistics are the latest record of it (they are cumulative); a cycle is
 * elementary, listed once (from its smallest node), at most LG_CYCLE_MAX locks long, and at
 * most LG_CYCLES_MAX are listed (lg.cycles_over says more were left out). */
#ifndef GOTRACE_DECODER_LOCKGRAPH_H
#define GOTRACE_DECODER_LOCKGRAPH_H

#include "hmap.h"

#include <stddef.h>
#include <stdint.h>

#define LG_CYCLE_MAX 8
#define LG_CYCLES_MAX 200

struct lg_edge {
    uint32_t from, to; /* lock (caller's index): to taken while from was held */
    uint32_t stack;    /* interned text of the stack that took `to`, 0 none */
    uint32_t site;     /* interned text of where `from` was taken (one frame), 0 none */
    uint64_t m;        /* the thread that took them */
    unsigned modes;    /* to's mode | from's << 4 (1 read, 2 write, 4 try) */
    int64_t t;         /* when (ns) */
};

struct lg_hold {
    uint32_t lock;
    uint64_t acq, changes;
    int64_t total, longest; /* ns */
    uint32_t stack;         /* interned text of the stack that ended the longest hold */
};

struct lg_exit {
    uint32_t lock;
    uint64_t m;    /* the thread that ended holding it */
    uint32_t site; /* interned text of where it took it */
    int64_t t;
};

struct lg_cycle {
    uint32_t n;
    uint32_t edge[LG_CYCLE_MAX]; /* indices in edges, each one's `to` the next one's `from` */
};

struct lg {
    struct lg_edge *edges;
    size_t nedges, ecap;
    struct gd_hmap edgemap; /* from << 32 | to -> index */
    struct lg_hold *holds;
    size_t nholds, hcap;
    struct gd_hmap holdmap; /* lock -> index */
    struct lg_exit *exits;
    size_t nexits, xcap;
    struct lg_cycle *cycles; /* lg_find_cycles */
    size_t ncycles, ccap;
    int cycles_over;
    int any; /* a record of lock tracking was read */
};

void lg_free(struct lg *g);
/* The records, as read (0 ok, -1 out of memory). */
int lg_add_edge(struct lg *g, const struct lg_edge *e);
int lg_add_hold(struct lg *g, const struct lg_hold *h);
int lg_add_exit(struct lg *g, const struct lg_exit *x);
/* Fills g->cycles with the graph's elementary cycles, shortest first (0 ok, -1 out of
 * memory). */
int lg_find_cycles(struct lg *g);
#endif
