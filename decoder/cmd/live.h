/* live.h: reading the live file a traced process leaves on /dev/shm (common/gt_live.h): find
 * the one that belongs to a trace, tell whether its process is still running, and follow the
 * addresses stored in it.
 * Invariants: the file is mapped read-only and never changed here (gd_live_remove deletes it);
 * every address is translated through gd_live_at, which returns NULL for anything outside the
 * file (a process killed mid-update may leave any value), so nothing read here can crash the
 * reader or make it read past what it checked. */
#ifndef GOTRACE_DECODER_LIVE_H
#define GOTRACE_DECODER_LIVE_H

#include "gt_live.h"

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

struct gd_live {
    char path[512];               /* the live file's, for messages */
    const uint8_t *map;           /* the whole file, read-only */
    uint64_t size;                /* bytes mapped: the bound of every gd_live_at */
    const struct gt_live_head *h; /* = map, once its magic, version and sizes were checked */
};

/* Maps path; 0, or -1 with a message in why (cap bytes): it cannot be opened, is shorter than
 * a head, or is not a live file of this version. */
int gd_live_open(struct gd_live *l, const char *path, char *why, size_t cap);
/* Unmaps l (the file stays); safe after a failed gd_live_open and twice. */
void gd_live_close(struct gd_live *l);
/* n bytes at process address addr, or NULL when they are not all in the file. */
const void *gd_live_at(const struct gd_live *l, uint64_t addr, size_t n);
/* A little-endian field of width 4 or 8 at addr + off; 0 when outside the file. */
uint64_t gd_live_u64(const struct gd_live *l, uint64_t addr, uint32_t off);
uint32_t gd_live_u32(const struct gd_live *l, uint64_t addr, uint32_t off);
/* Whether the process that wrote l still runs (its pid, started no later than its tracer
 * began); 1 also when that cannot be told, so a doubt never lets a live trace be rewritten. */
int gd_live_running(const struct gd_live *l);
/* Waits at most ms milliseconds for l's process to end (gd_live_running false); 0 ended, -1
 * still running. */
int gd_live_wait_end(const struct gd_live *l, int ms);
/* path made absolute and resolved (symbolic links, ".."), into out (cap bytes): realpath when
 * it exists, else its directory's with its last name appended, else as it is. */
void gd_live_resolve(const char *path, char *out, size_t cap);
/* The trace path l's head names, resolved (gd_live_resolve). */
void gd_live_out_path(const struct gd_live *l, char *out, size_t cap);
/* The next live file (GT_LIVE_DIR/gotrace.*.live) of the directory d, opened on GT_LIVE_DIR:
 * its path in out; 1, or 0 when there is none left. */
int gd_live_next(DIR *d, char *out, size_t cap);
/* The unfinished live file of the trace at trace_path (the same absolute path, and the same
 * file when it exists): its path in out; 1 found, 0 none. With dead_only, only one whose
 * process has ended. */
int gd_live_find(const char *trace_path, int dead_only, char *out, size_t cap);
#endif
