/* arena.h: the memory of the tracer's state that must outlive the process: trace buffers,
 * thread records, the string and stack tables and the words saying what of them is written
 * (common/gt_live.h describes the file and its reader). arena_init maps one shared file on tmpfs
 * over one reserved range; arena_alloc carves zeroed, page-aligned blocks from its tables or
 * buffers region. Memory handed out is backed before it is used (MADV_POPULATE_WRITE: by
 * arena_alloc up to what its caller asks, the rest by arena_back), so a full tmpfs is an
 * allocation that falls back, never a SIGBUS in the program.
 * The tracer's other memory (hash slots, caches, memos, profiles, the flusher thread's stack) is
 * private: arena_map carves it from a second reserved range, made accessible piece by piece, so
 * that a program's mlockall(MCL_FUTURE) never locks it (util/memlock.h: the tracer's memory is
 * its image and these two ranges).
 * Invariants: blocks are never freed (their owners recycle them); arena_alloc takes a spinlock
 * and makes system calls: never on the event path except when a buffer fills; without a live
 * file (not set up, GOTRACE_LIVE=0, the flight recorder, no tmpfs, a limited address space
 * (RLIMIT_AS: the file's 1 GiB range would come out of the program's), or the file is full) blocks
 * are arena_map's, and once the file was set up its head says some state is elsewhere (lost);
 * arena_head() is NULL exactly when there is no live file. Either range, once reserved, stays
 * the tracer's for the life of the image (a detached child's too). A forked child maps its
 * parent's file until it records anything (arena_fork_settle, single-threaded): it neither
 * writes nor removes it; then it gets a file of its own holding a copy of the tables' backed
 * pages (kept in a bitmap: the parent's file is not read for it) below where the child's
 * allocations stopped; buffers start anew. */
#ifndef GOTRACE_ARENA_H
#define GOTRACE_ARENA_H
#include "gt_live.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum arena_region { ARENA_TABLES, ARENA_BUFFERS };

/* Creates and maps the live file; 0 on success, -1 (nothing changed) otherwise. */
int arena_init(void);
/* Reserves arena_map's range (inaccessible, no memory committed), unless the address space is
 * limited (RLIMIT_AS); once, at set-up, before any arena_map. */
void arena_reserve(void);
/* size zeroed bytes (rounded up to pages) of private memory for good: from the reserved range,
 * else (not reserved, used up) from mmap. NULL when no memory at all. Thread-safe. */
void *arena_map(size_t size);
/* The tracer's reserved ranges (the live file's, arena_map's), [lo, hi) each: how many (0-2). */
struct arena_range {
    uintptr_t lo, hi;
};
int arena_ranges(struct arena_range out[2]);
/* size zeroed bytes (page-aligned, rounded up to pages) of region; backed up to ready bytes
 * (the rest by arena_back before use). NULL when no memory at all. */
void *arena_alloc(enum arena_region region, size_t size, size_t ready);
/* Backs [p, p + size) of a block (pages it rounds to) for writing; 0, or -1 if tmpfs is full. */
int arena_back(void *p, size_t size);
/* The live file's head, or NULL. */
struct gt_live_head *arena_head(void);
/* Whether p lies in the live file's range; whether in a block this process allocated there. */
int arena_holds(const void *p);
int arena_allocated(const void *p);
/* The trace is complete (its last generation written): the file is removed. */
void arena_complete(void);
/* Before an exec that will most likely replace the image: the file's name is removed (its
 * mapping stays in use), so that a new image the tracer is not loaded into (static, setuid,
 * LD_PRELOAD dropped) leaves nothing on tmpfs; a traced one makes its own file. If the exec
 * fails after all, tracing goes on without a file to recover from. */
void arena_unlink(void);
/* The process's effective (file system) user becomes uid, which may not remove a file of
 * another user's in the sticky /dev/shm: while it still may, the live file is given to uid
 * (chown), so that the clean end that removes it works after the change. Nothing when there
 * is no file of this process's own or uid is the current one; a refused chown (a process that
 * is not root) leaves it as it was. Preserves errno. */
void arena_give_to(uid_t uid);
/* A child the caller reaped (pid): the live file it left is removed if it traced nothing (a
 * forked child killed before any hook ran in it: a debugger's or strace's probe). A file with
 * events stays for `gotrace recover`. Sets errno. */
void arena_forget_child(pid_t pid);
/* Fork: the child frees the arena's lock (a parent thread may have held it) and forgets its
 * parent's file name; a traced child gets its own file at its first record (arena_fork_settle:
 * see above); a child that runs untraced detaches without touching the parent's file
 * (arena_head() is NULL from then on). */
void arena_fork_child(void);
void arena_fork_settle(void);
void arena_detach(void);
#endif
