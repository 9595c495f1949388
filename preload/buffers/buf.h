/* buf.h: trace buffers and the pool they come from (the seqlock they are written under is
 * section.h's). A buffer holds the payload of one batch (events of one thread, one generation).
 * Invariants: a buffer is written only by the thread that owns it, and only inside that thread's
 * seqlock section (seq odd); the flusher reads it only after the generation it belongs to is
 * closed and every section of that generation has ended. buf_get/buf_put are the only way
 * buffer memory is obtained/returned (blocks of the live file's buffers region, util/arena.h, so
 * a killed process's buffers can be recovered). They take a spinlock and may make system calls:
 * callers use them only when a buffer fills, never per event. A buffer's payload is backed by
 * memory in steps (ready bytes; buf_extend backs more), so a thread that writes little holds
 * little. For the reader of a killed process's file (common/gt_live.h): a buffer's len is stored
 * after its bytes, a full buffer is linked after its len is stored, and a stream's cur is set
 * after its len is reset (and is still on the full list if the process died in between). */
#ifndef GOTRACE_BUF_H
#define GOTRACE_BUF_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct gt_buf {
    struct gt_buf *next; /* link in a stream's full list or the pool's free list */
    uint64_t base_ts;    /* timestamp the batch header carries (first event's time) */
    uint64_t last_ts;    /* time of the last event written: dts are relative to it */
    uint32_t len;        /* payload bytes used */
    uint32_t cap;        /* payload capacity */
    uint32_t ready;      /* payload bytes backed by memory (<= cap): writable without a fault */
    uint8_t data[];
};

/* One thread's events of one generation parity, in fill order: full buffers, then cur. The
 * writer keeps cur's fill state here, beside the thread's other hot fields, not in cur's header
 * (one cache line fewer per event): len and last_ts are cur's (a full buffer's len is set as it
 * is pushed), room is cur->ready - GT_EV_MAX + 1 (0 without cur): an event is written while
 * len < room. */
struct gt_stream {
    struct gt_buf *cur;
    uint32_t len, room;
    uint64_t last_ts;
    struct gt_buf *full_head, *full_tail;
};

int buf_pool_init(size_t buf_bytes);
struct gt_buf *buf_get(void); /* NULL when memory is exhausted */
void buf_put(struct gt_buf *b);
/* Backs more of b's payload (b->ready grows, at most to cap); -1 when no memory is left. */
int buf_extend(struct gt_buf *b);
/* Records the buffer and stream layout in the live file's head (common/gt_live.h). */
void buf_publish_layout(void);
/* In a forked child, single-threaded: the pool is empty and its lock free (a parent thread may
 * have held it at the fork); the buffers of the parent's threads stay allocated, unused. */
void buf_fork_child(void);

/* Appends b, whose len is set, to s's full list (owner only). */
void stream_push_full(struct gt_stream *s, struct gt_buf *b);
/* Returns every buffer of s (full ones, then cur) to the pool and empties s (flusher only). */
void stream_release(struct gt_stream *s);

#endif
