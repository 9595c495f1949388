/* buf.c: the buffer pool and stream lists. See buf.h for the invariants. */
#include "buf.h"

#include "arena.h"
#include "invariant.h"
#include "pages.h"
#include "spinlock.h"

#include <stddef.h>

#define CHUNK_BUFS 4
#define FIRST_READY 4096 /* bytes of a buffer backed at first (its header and payload) */

static gt_spinlock pool_lock;
static struct gt_buf *free_list;
static uint8_t *fresh; /* the chunk being handed out: fresh_left buffers never used, unbacked */
static int fresh_left;
static size_t buf_size = 64 * 1024; /* payload bytes per buffer */

int buf_pool_init(size_t buf_bytes)
{
    buf_size = buf_bytes;
    return 0;
}

void buf_publish_layout(void)
{
    struct gt_live_head *h = arena_head();
    if (!h) return;
    h->layout.b_next = offsetof(struct gt_buf, next);
    h->layout.b_base_ts = offsetof(struct gt_buf, base_ts);
    h->layout.b_len = offsetof(struct gt_buf, len);
    h->layout.b_cap = offsetof(struct gt_buf, cap);
    h->layout.b_data = offsetof(struct gt_buf, data);
    h->layout.s_cur = offsetof(struct gt_stream, cur);
    h->layout.s_len = offsetof(struct gt_stream, len);
    h->layout.s_full_head = offsetof(struct gt_stream, full_head);
}

/* A buffer never used before, from a chunk of CHUNK_BUFS (pool_lock held), or NULL. Buffers are
 * page-aligned: each one's first page is backed when it is first handed out (its header and the
 * start of its payload: a process that uses one buffer backs one page), the rest by buf_extend
 * as its writer reaches it. */
static struct gt_buf *fresh_locked(void)
{
    size_t one = (sizeof(struct gt_buf) + buf_size + GT_PAGE - 1) & ~(GT_PAGE - 1);
    if (!fresh_left) {
        fresh = arena_alloc(ARENA_BUFFERS, one * CHUNK_BUFS, 0);
        if (!fresh) return NULL;
        fresh_left = CHUNK_BUFS;
    }
    struct gt_buf *b = (struct gt_buf *)fresh;
    size_t first = one < FIRST_READY ? one : FIRST_READY;
    if (arena_back(b, first) != 0) return NULL;
    fresh += one;
    fresh_left--;
    b->cap = (uint32_t)buf_size;
    b->ready = arena_holds(b) ? (uint32_t)(first - sizeof *b) : b->cap;
    if (b->ready > b->cap) b->ready = b->cap;
    return b;
}

int buf_extend(struct gt_buf *b)
{
    size_t backed = sizeof *b + b->ready;
    size_t more = backed; /* doubles what is backed: few calls for a busy thread */
    if (b->ready + more > b->cap) more = b->cap - b->ready;
    if (arena_back(b->data + b->ready, more) != 0) return -1;
    b->ready += (uint32_t)more;
    return 0;
}

struct gt_buf *buf_get(void)
{
    spin_lock(&pool_lock);
    struct gt_buf *b = free_list;
    if (b)
        free_list = b->next;
    else
        b = fresh_locked();
    spin_unlock(&pool_lock);
    if (!b) return NULL;
    b->next = NULL;
    b->len = 0;
    b->base_ts = b->last_ts = 0;
    return b;
}

void buf_put(struct gt_buf *b)
{
    spin_lock(&pool_lock);
    b->next = free_list;
    free_list = b;
    spin_unlock(&pool_lock);
}

void buf_fork_child(void)
{
    spin_unlock(&pool_lock); /* a parent thread may have held it */
    free_list = NULL; /* the parent's buffers: its file's (arena_fork_settle gives a new one) */
    fresh = NULL;
    fresh_left = 0;
}

void stream_push_full(struct gt_stream *s, struct gt_buf *b)
{
    GT_ASSERT(b->len <= b->cap);
    b->next = NULL;
    atomic_signal_fence(memory_order_release); /* len and next before the link (buf.h) */
    if (s->full_tail)
        s->full_tail->next = b;
    else
        s->full_head = b;
    s->full_tail = b;
}

void stream_release(struct gt_stream *s)
{
    struct gt_buf *b = s->full_head;
    while (b) {
        struct gt_buf *next = b->next;
        buf_put(b);
        b = next;
    }
    if (s->cur) buf_put(s->cur);
    s->cur = s->full_head = s->full_tail = NULL;
    s->len = s->room = 0;
    s->last_ts = 0;
}
