/* syncobj.h: which object a sync wait is on, and who held it (docs/locks.md).
 * Names: every wait on a lock, condvar, semaphore or barrier gets a block reason of its own
 * object, "sync: mutex ledger_lock": a string interned per (reason, address) whose bytes are a
 * placeholder; the flusher writes the object's name in its place when it writes a generation's
 * string table (flush/syncobj_encode.h, from what this table knows of the object: so_object_at).
 * The strings are bounded by the number of objects waited on, and at most 8192 objects get one
 * (the string table is shared with the stacks' names); the others keep the generic reason.
 * Records: a wait's holder (a TID read from the object at block time) and a release with
 * waiters queued (with the releaser's stack) are appended to a per-generation table, which the
 * flusher writes as gotrace's experimental batch (GT_EXP_SYNC, go_wire.h; Go's tools ignore it).
 * Invariants: this module owns the object table and the records; nothing here allocates or
 * locks on the event path (the tables are fixed, a full one drops records, counted);
 * so_record_* run inside the writer's section, so the flusher finds every record of a
 * generation complete once its sections ended; the functions marked Flusher run on the flusher
 * only. */
#ifndef GOTRACE_SYNCOBJ_H
#define GOTRACE_SYNCOBJ_H
#include "writer.h"

#include <stddef.h>
#include <stdint.h>

/* pthread_*_init(addr) was called from pc (lock-free, no allocation). */
void so_note_init(const void *addr, uintptr_t pc);
/* The reason string of a wait on addr whose generic reason is base (a string id), by a wait
 * with stack stk (remembered as the object's first wait); base when the table is full.
 * Inline: the calling thread's last answer (a thread waits on the same object again and
 * again; a signal handler never runs so_reason while it is interrupted: the thread is inside
 * the tracer). */
struct so_last {
    uint64_t base, id;
    const void *addr;
};
extern __thread struct so_last so__last __attribute__((tls_model("initial-exec")));
uint64_t so_reason_slow(uint64_t base, const void *addr, uint64_t stk);
static inline uint64_t so_reason(uint64_t base, const void *addr, uint64_t stk)
{
    if (so__last.id && so__last.addr == addr && so__last.base == base) return so__last.id;
    return so_reason_slow(base, addr, stk);
}
/* Records, inside w's section, after the event they belong to (its time). holder: a TID, 0
 * unknown, or minus the goroutine id of a thread that has not started yet. */
void so_record_wait(struct gt_writer *w, uint64_t reason, const void *addr, int64_t holder);
void so_record_release(struct gt_writer *w, const void *addr, uint64_t stk);
/* Flusher, after a library was unloaded: every object's name word back to 0, so that the
 * static names found so far are looked up again (its data addresses may now hold other
 * objects). */
void so_forget_names(void);
/* In a forked child, single-threaded: the records are the parent's; dropped. */
void so_fork_child(void);
/* Flusher: whether string s (len bytes) is an object's placeholder (so_reason); if so, its
 * generic reason's string id and the object's address. */
int so_placeholder(const char *s, size_t len, uint64_t *base, uintptr_t *addr);
/* Flusher: what the table knows of the object at addr (its slot claimed if new): the caller of
 * its pthread_*_init (0 unknown), the stack of its first wait (0 none yet), and the name word
 * the flusher keeps for it (so_set_name; 0 until set, and again after so_forget_names). */
struct so_object {
    uintptr_t init_pc;
    uint64_t wait_stk;
    uint64_t name;
};
struct so_object so_object_at(uintptr_t addr);
void so_set_name(uintptr_t addr, uint64_t name);
/* A record of lock tracking (GT_SYNC_ORDER, GT_SYNC_EXIT_HELD: lockorder.h), with v its
 * values after the object (as many as go_wire.h says for the type). */
void so_record_ext(struct gt_writer *w, uint8_t type, const void *addr, const uint64_t v[6]);
/* A record (type GT_SYNC_*, go_wire.h): time, thread, object, then for a wait reason and
 * holder, for a release stack, for lock tracking's v[0..5] (a, b, v[2..5]). */
struct so_rec {
    uint8_t type;
    uint64_t ts, m, addr, a, b, v[4];
};
/* Flusher: generation gen's records in the order claimed, *n of them (those beyond the table's
 * room were dropped); so_drop_records forgets them once written. */
const struct so_rec *so_records(uint64_t gen, unsigned *n);
void so_drop_records(uint64_t gen);
#endif
