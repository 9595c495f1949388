/* gt_live.h: the live file, the format shared by the tracer (preload/util/arena.c and the
 * modules that publish their state in it) and `gotrace recover` (decoder/cmd_recover.c).
 *
 * A traced process keeps its trace buffers, thread records, string and stack tables and the
 * few words that say what of them is written in one file on tmpfs, /dev/shm/gotrace.<pid>.live
 * (GT_LIVE_DIR), mapped shared at one address range: every store the process makes into it is
 * in the file the moment it is made, so it outlives a process killed by any signal. A clean end
 * (the last generation written) removes the file; `gotrace recover` reads a dead process's file
 * and appends the generations it had not written to its trace.
 *
 * Layout: the head below at offset 0; the tables region [GT_LIVE_HEAD_BYTES, GT_LIVE_TABLES);
 * the buffers region [GT_LIVE_TABLES, size). A pointer p stored in the file is an address in the
 * process: its file offset is p - base. The reader bounds-checks every pointer and length it
 * follows (a process may die mid-update) and reads fields by the offsets in `layout`, so it
 * depends on no structure of the tracer's but those defined here.
 *
 * Invariants: the head's fields are each written by one module (named beside it); every record
 * the reader follows is fully written before it is linked or counted (compiler barriers where
 * the process writes; x86 keeps stores in order); the process writes nothing into the file that
 * it does not need for the trace. */
#ifndef GOTRACE_GT_LIVE_H
#define GOTRACE_GT_LIVE_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GT_LIVE_DIR "/dev/shm"
#define GT_LIVE_PREFIX "gotrace."
#define GT_LIVE_SUFFIX ".live"
#define GT_LIVE_MAGIC "GTLIVE01"
#define GT_LIVE_VERSION 3u
#define GT_LIVE_HEAD_BYTES 16384ull
#define GT_LIVE_TABLES (128ull << 20) /* the tables region ends here */
#define GT_LIVE_SIZE (1ull << 30)     /* the reserved range (sparse file) */
#define GT_LIVE_MODULES 256           /* code modules recorded */
#define GT_LIVE_PATH 4096
#define GT_LIVE_MLESS_BYTES (16u << 10) /* statuses of threads without an M, per parity */
#define GT_LIVE_NAME 72 /* a process name's bytes: GT_PROC_NAME_MAX (go_wire.h) + NUL */

enum { GT_LIVE_RUNNING = 1, GT_LIVE_COMPLETE = 2 };

/* A process's start time (clock ticks since boot) in the NUL-terminated text of its
 * /proc/<pid>/stat (field 22), 0 if it is not there. */
static inline uint64_t gt_live_start_ticks(const char *stat)
{
    const char *p = strrchr(stat, ')'); /* fields count from after the command name */
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* Whether the process now running with a head's pid, which started at start_ticks (of tick_ns
 * nanoseconds each), is the head's: the one whose tracer began at began_ns (CLOCK_BOOTTIME)
 * started no later (an exec keeps the pid and the start), and one that reused the pid started
 * after that one ended. (Both in the same 10 ms tick would need the pid reused that fast.) */
static inline int gt_live_same_process(uint64_t start_ticks, uint64_t tick_ns, uint64_t began_ns)
{
    return start_ticks * tick_ns <= began_ns;
}

/* Nanoseconds a clock tick of /proc/<pid>/stat lasts, 0 if unknown. */
static inline uint64_t gt_live_tick_ns(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? 1000000000ull / (uint64_t)hz : 0;
}

/* A sync object's name in the string table, until the flusher renders it (syncobj.c): the
 * bytes {GT_LIVE_OBJ_TAG, reason's string id (8), the object's address (8)}. */
#define GT_LIVE_OBJ_TAG 0x01
#define GT_LIVE_OBJ_LEN 17

/* Byte offsets of the fields the reader follows in the tracer's structures. */
struct gt_live_layout {
    uint32_t t_next, t_tid, t_stream, t_stream_size, t_prefix, t_prefix_size; /* thread */
    uint32_t s_cur, s_len, s_full_head;                                       /* stream */
    uint32_t p_bytes, p_len, p_ts;                                            /* prefix */
    uint32_t b_next, b_base_ts, b_len, b_cap, b_data;                         /* buffer */
    uint32_t e_size, e_bytes, e_len, e_mark;                                  /* intern entry */
};

/* An intern set (strings, stacks): its entries live in segments of seg_ids ids; segs is the
 * address of its array of nsegs segment addresses (0: not allocated). Entry id is at
 * segs[id / seg_ids] + (id % seg_ids) * e_size; its mark[gen & 1] holds gen + 1 when gen uses it.
 */
struct gt_live_set {
    uint64_t segs;
    uint32_t nsegs, seg_ids;
};

/* A loaded code module: [lo, hi) holds its code, loaded at bias (dl_iterate_phdr's dlpi_addr). */
struct gt_live_module {
    uint64_t lo, hi, bias;
    char path[488];
};

/* Status events of threads without an M (created, not started) claimed at a switch. */
struct gt_live_mless {
    uint64_t ts;
    uint32_t len; /* bytes; 0 none, GT_LIVE_LOST when they did not fit (not recoverable) */
    uint8_t bytes[GT_LIVE_MLESS_BYTES];
};
#define GT_LIVE_LOST UINT32_MAX

struct gt_live_head {
    char magic[8];                /* arena.c */
    uint32_t version, head_bytes; /* arena.c */
    uint64_t base, size;          /* arena.c: the address of offset 0; bytes reserved */
    int64_t pid;                  /* arena.c */
    uint64_t began_ns;            /* arena.c: CLOCK_BOOTTIME at the tracer's start (a reused pid) */
    uint32_t state;               /* arena.c: GT_LIVE_RUNNING, GT_LIVE_COMPLETE */
    uint32_t lost;                /* arena.c: memory ran out in the file (some state is not) */
    uint64_t ticks_per_sec;       /* arena.c: the trace's time unit */
    char out_path[GT_LIVE_PATH];  /* output.c: the trace file (absolute once it is made) */
    uint64_t out_dev, out_ino;    /* output.c */
    uint64_t out_size, out_gens;  /* output.c: bytes and generations of it that are whole */
    uint64_t gen_written;         /* generation.c: the last generation written (or empty) */
    uint64_t gen_current;         /* state.c: the generation being written */
    uint64_t mless[2];            /* generation.c: struct gt_live_mless by parity */
    uint64_t registry;            /* thread.c: the first registered thread (0: none) */
    struct gt_live_set strings;   /* strtab.c (intern.c) */
    struct gt_live_set stacks;    /* stack.c (intern.c) */
    uint64_t modules;             /* modules.c: struct gt_live_module[GT_LIVE_MODULES] */
    uint32_t nmodules;            /* modules.c: how many of them are recorded */
    uint32_t pad;
    struct gt_live_layout layout; /* arena.c with each module's offsets */
    int64_t ppid;                 /* arena.c: the parent's pid when the tracer started */
    char name[GT_LIVE_NAME];      /* arena.c: program_invocation_short_name, NUL-terminated */
    int64_t flusher_tid;          /* flusher.c: the TID of the tracer's thread, 0 unknown (the
                                     hang check of another process skips it: hangproc.c) */
};

_Static_assert(sizeof(struct gt_live_head) <= GT_LIVE_HEAD_BYTES, "the head fits its region");
_Static_assert(offsetof(struct gt_live_head, out_path) == 64, "test/integration/run.sh reads it");
_Static_assert(sizeof(struct gt_live_module) == 512, "eight modules a page");
_Static_assert(offsetof(struct gt_live_head, registry) ==
                   offsetof(struct gt_live_head, mless) + 2 * sizeof(uint64_t),
               "mless and registry are adjacent: a reaper reads them alone (arena.c)");

/* Whether a file's process traced nothing, from its head's mless[0], mless[1] and registry (no
 * status batch, no thread registered): a forked child that died before any hook ran in it. Its
 * file holds nothing to recover. */
static inline int gt_live_traced_nothing(uint64_t mless0, uint64_t mless1, uint64_t registry)
{
    return !mless0 && !mless1 && !registry;
}
#endif
