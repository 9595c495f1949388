/* lockorder.h: lock tracking (GOTRACE_LOCK_ORDER, GOTRACE_LOCK_HOLDS; docs/locks.md section 7):
 * the locks each thread holds, the lock-order edges of the process (lock b taken while a was
 * held), each lock's hold statistics, and the locks a thread held when it ended.
 * The held set is per thread (thread-local, LO_HELD_MAX entries, more are counted, not kept);
 * an edge is claimed once per process in a fixed lock-free set (a full set drops new edges,
 * counted); the hold table is a fixed lock-free table by address (a full table drops locks,
 * counted). The edge and held-at-exit records go into the generation's sync records
 * (syncobj.h, GT_SYNC_ORDER, GT_SYNC_EXIT_HELD); the hold statistics are cumulative and written
 * by the flusher at each generation for the locks whose numbers changed (lo_foreach_changed).
 * Invariants: nothing here allocates, locks or makes a system call; lo__on is set once, before
 * the first traced thread runs, and never changes; with it 0 the hooks call nothing here. */
#ifndef GOTRACE_LOCKORDER_H
#define GOTRACE_LOCKORDER_H
#include "writer.h"

#include <stdint.h>

enum { LO_ORDER = 1, LO_HOLDS = 2 }; /* bits of lo__on */
/* How a lock was taken (the mode bits of a held entry and of an edge record's flags). */
enum { LO_MUTEX = 0, LO_READ = 1, LO_WRITE = 2, LO_TRY = 4 };
#define LO_HELD_MAX 16

struct lo_held {
    const void *addr;
    uintptr_t pc; /* return address of the lock call: the acquisition site */
    uint64_t t0;  /* when it was taken (gt_now; 0 without LO_HOLDS) */
    unsigned mode;
};
struct lo_set {
    unsigned n;    /* entries in h */
    unsigned over; /* locks held beyond LO_HELD_MAX (not kept) */
    struct lo_held h[LO_HELD_MAX];
};
extern int lo__on;
extern __thread struct lo_set lo__held __attribute__((tls_model("initial-exec")));

/* Set once at start: which tracking is on, and the generic reason string ids that name a
 * mutex's and a rwlock's object (syncobj.h so_reason). */
void lo_init(int order, int holds, uint64_t mutex_reason, uint64_t rwlock_reason);
/* The reason string naming the lock at addr, taken in mode (0 when the name budget is spent). */
uint64_t lo_name(const void *addr, unsigned mode);
/* 1 when the edge a -> b (b taken while a held) is new to the process (claimed now). */
int lo_edge_claim(const void *a, const void *b);
/* The edge a -> b's record values, made before the section (names and stacks are interned):
 * b's name, the stack that took it (stk), a's address, name and acquisition site (a one-frame
 * stack), the modes (b's | a's << 4); then the record in w's section. */
void lo_edge_values(const struct lo_held *a, const void *b, unsigned bmode, uint64_t stk,
                    uint64_t v[6]);
void lo_record_edge(struct gt_writer *w, const void *b, const uint64_t v[6]);
/* A hold of addr by thread tid ended after d ticks: its counts. 1 when d is its longest
 * hold so far (then lo_hold_stack names the stack). */
int lo_hold_done(const void *addr, unsigned mode, int64_t tid, uint64_t d);
void lo_hold_stack(const void *addr, uint64_t stk);
/* w's thread ends holding h: the record's values (made before the section: h's name and
 * site), then the record and an entry for the live report (lo_exits_drain). */
void lo_exit_values(const struct lo_held *h, uint64_t v[6]);
void lo_record_exit_held(struct gt_writer *w, const struct lo_held *h, const uint64_t v[6]);
/* A lock taken beyond LO_HELD_MAX held (not kept): counted. */
void lo_note_overflow(void);

/* Flusher: the hold statistics changed since the last call, each once: fn(ctx, v) with v =
 * {addr, name, acquisitions, owner changes, total ticks, longest ticks, longest's stack}; the
 * names and stacks are marked in generation gen. */
typedef void (*lo_hold_fn)(void *ctx, const uint64_t v[7]);
void lo_foreach_changed(uint64_t gen, lo_hold_fn fn, void *ctx);
/* Flusher: the locks threads held when they ended, since the last call, each once: the
 * thread's TID, name string and start routine, the lock's reason string, the site's pc. */
struct lo_exit {
    int64_t tid;
    uint64_t name_str;
    void *start;
    uint64_t obj;
    uintptr_t pc;
};
typedef void (*lo_exit_fn)(void *ctx, const struct lo_exit *e);
void lo_exits_drain(lo_exit_fn fn, void *ctx);
/* Counts of what did not fit (held beyond LO_HELD_MAX, edges, locks), for the debug log. */
void lo_lost(uint64_t *held, uint64_t *edges, uint64_t *locks);
#endif
