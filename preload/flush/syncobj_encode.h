/* syncobj_encode.h: the flusher's side of the sync objects (writer/syncobj.h keeps the object
 * table and the records, docs/locks.md): the text that replaces an object's placeholder reason
 * in a generation's string table, and a generation's holder and release records as gotrace's
 * experimental batches (GT_EXP_SYNC, go_wire.h), which Go's tools ignore, with lock tracking's
 * records (lockorder.h: order edges, locks held at exit, the hold statistics that changed) after
 * the waits and releases.
 * Invariants: flusher only (it symbolizes and reads DWARF); an object's static name is looked
 * up once, until so_forget_names; a text never passes the caller's buffer; a generation's
 * records are written once, then forgotten. */
#ifndef GOTRACE_SYNCOBJ_ENCODE_H
#define GOTRACE_SYNCOBJ_ENCODE_H
#include "encode.h"

#include <stddef.h>
#include <stdint.h>

/* The text of string s (len bytes) into buf (cap bytes) if s is an object's placeholder: its
 * reason and name ("sync: mutex ledger_lock"), the symbol of a lock in static storage, else its
 * address and where pthread_*_init was called, or failing that where it was first waited on
 * (the first frame of that wait outside Rust's std, core and alloc, C++'s std and libstdc++'s
 * __gthread_ wrappers). A futex word whose first wait went through Rust's std Mutex, RwLock or
 * Condvar is named as one ("sync: mutex 0x... first waited in app::wait_ledger (app.rs:15)"),
 * other futex words "sync: futex". Returns its length, or -1 for any other string. */
int so_text(const char *s, size_t len, char *buf, size_t cap);
/* The name the flusher gives the object at addr in a shared mapping ("shared FILE+0xOFF
 * [MAJ:MIN INODE]", as in a wait's reason), looked up now in /proc/self/maps (raw system calls,
 * no cache: any thread may call it; a few tens of us); its length, 0 if addr is not in a
 * shared mapping. */
int so_shared_name_now(uintptr_t addr, char *buf, size_t cap);
/* Generation gen's records as experimental batches of file generation fg, then forgets them. */
void so_encode(struct gt_bytes *out, uint64_t gen, uint64_t fg);
#endif
