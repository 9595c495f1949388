/* locktrack.h: what the lock hooks tell the tracker of lock order and hold times
 * (writer/lockorder.h; GOTRACE_LOCK_ORDER, GOTRACE_LOCK_HOLDS; docs/locks.md section 7).
 * A hook asks LOCK_ON() first (one load of a word set once at start, a predictable branch),
 * and calls nothing here when it is 0. tr_lock_wanted: before a lock call waits, the order
 * edges from the locks the caller holds to key; tr_lock_taken: key was taken (edges too unless
 * mode has LO_NOEDGE: a try cannot deadlock, and a wait's edges were recorded before it);
 * tr_lock_dropped: before key's release (its hold ends). pc is the lock call's return address.
 * Invariants: nothing happens on a thread without a record or inside the tracer; an edge's
 * stack is captured only the first time the process sees the edge; a hold's stack only when it
 * is the lock's longest so far; no malloc, no lock. */
#ifndef GOTRACE_LOCKTRACK_H
#define GOTRACE_LOCKTRACK_H
#include "lockorder.h"
#include "thread.h"

#include <stdint.h>

#define LOCK_ON() __builtin_expect(lo__on, 0)
#define LO_NOEDGE 8u /* tr_lock_taken: record no edge */

void tr_lock_wanted(const void *key, unsigned mode);
void tr_lock_taken(const void *key, unsigned mode, uintptr_t pc);
void tr_lock_dropped(const void *key);
/* Thread t (inside the tracer, in tr_exit_begin) ends: a record for each lock it still holds. */
void tr_lock_exit(struct gt_thread *t);
#endif
