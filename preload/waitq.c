/* waitq.c: waiters keyed by address. See waitq.h for the invariants. */
#include "waitq.h"

#include "tracer.h"

#include <stddef.h>

#define NBUCKETS 1024

struct bucket {
    gt_spinlock lock;
    atomic_int count;
    struct gt_wait *head, *tail;
} __attribute__((aligned(64)));

static struct bucket buckets[NBUCKETS];

static struct bucket *bucket_of(void *key)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
    return &buckets[h >> 54];
}

static struct gt_thread *thread_of(struct gt_wait *w)
{
    return (struct gt_thread *)((char *)w - offsetof(struct gt_thread, wait));
}

void waitq_add(void *key, struct gt_thread *t)
{
    struct bucket *b = bucket_of(key);
    struct gt_wait *w = &t->wait;
    w->key = key;
    w->next = NULL;
    spin_lock(&b->lock);
    w->prev = b->tail;
    if (b->tail)
        b->tail->next = w;
    else
        b->head = w;
    b->tail = w;
    atomic_fetch_add_explicit(&b->count, 1, memory_order_relaxed);
    spin_unlock(&b->lock);
}

void waitq_remove(struct gt_thread *t)
{
    struct gt_wait *w = &t->wait;
    struct bucket *b = bucket_of(w->key);
    spin_lock(&b->lock);
    if (w->prev)
        w->prev->next = w->next;
    else
        b->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        b->tail = w->prev;
    atomic_fetch_sub_explicit(&b->count, 1, memory_order_relaxed);
    spin_unlock(&b->lock);
    w->key = NULL;
}

int waitq_has_waiters(void *key)
{
    return atomic_load_explicit(&bucket_of(key)->count, memory_order_relaxed) != 0;
}

int waitq_wake(void *key, struct gt_thread *self, uint64_t stk, int max)
{
    struct bucket *b = bucket_of(key);
    int woken = 0;
    spin_lock(&b->lock);
    for (struct gt_wait *w = b->head; w && woken < max; w = w->next)
        if (w->key == key && tr_wake(self, thread_of(w), stk)) woken++;
    spin_unlock(&b->lock);
    return woken;
}
