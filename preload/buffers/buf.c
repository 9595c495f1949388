/* buf.c: the buffer pool and stream lists. See buf.h for the invariants. */
#include "buf.h"

#include "invariant.h"
#include "spinlock.h"

#include <sys/mman.h>

#define CHUNK_BUFS 16

static gt_spinlock pool_lock;
static struct gt_buf *free_list;
static size_t buf_size = 64 * 1024; /* payload bytes per buffer */

int buf_pool_init(size_t buf_bytes)
{
    buf_size = buf_bytes;
    return 0;
}

static struct gt_buf *refill_locked(void)
{
    size_t one = sizeof(struct gt_buf) + buf_size;
    one = (one + 63) & ~(size_t)63;
    uint8_t *mem =
        mmap(NULL, one * CHUNK_BUFS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return NULL;
    for (int i = 0; i < CHUNK_BUFS; i++) {
        struct gt_buf *b = (struct gt_buf *)(mem + (size_t)i * one);
        b->cap = (uint32_t)buf_size;
        b->next = free_list;
        free_list = b;
    }
    return free_list;
}

struct gt_buf *buf_get(void)
{
    spin_lock(&pool_lock);
    struct gt_buf *b = free_list ? free_list : refill_locked();
    if (b) free_list = b->next;
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

void buf_fork_prepare(void)
{
    spin_lock(&pool_lock);
}
void buf_fork_parent(void)
{
    spin_unlock(&pool_lock);
}

void buf_fork_child(void)
{
    spin_unlock(&pool_lock);
}

void stream_push_full(struct gt_stream *s, struct gt_buf *b)
{
    GT_ASSERT(b->len <= b->cap);
    b->next = NULL;
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
