/* thread.c: thread and P allocation, the registry. See thread.h for the invariants.
 * Memory comes from slabs of the live file's tables region (util/arena.h), never malloc: a
 * killed process's records and registry can be read back (common/gt_live.h). A reaped thread
 * waits two generations in limbo before reuse, so a waker still holding its address never
 * touches a new thread's state.
 * A record's stack memo (7 KiB, 85 % of the record it was part of) is private memory, which the
 * reader of a killed process's file never reads: page-aligned slots of anonymous slabs, touched
 * only where used (not at all until a thread captures a stack twice: stack.h; one page for a
 * thread with a few stacks), given once to a record and kept with it across reuse, never freed;
 * kept from forked children (MADV_DONTFORK), which start with records and memos of their own:
 * a fork neither copies their page tables nor makes the parent's next write to each a
 * copy-on-write fault. */
#include "thread.h"

#include "arena.h"

#include <stddef.h>
#include <string.h>

#define TLS_IE __attribute__((tls_model("initial-exec")))
__thread struct gt_thread *gt_self TLS_IE;
__thread int gt_internal TLS_IE;

#define SLAB_THREADS 16 /* 5 pages */
#define SLAB_MEMOS 64
#define MEMO_BYTES ((sizeof(struct stack_memo) + 4095) & ~(size_t)4095)
#define SLAB_PROCS 64

static gt_spinlock reg_lock;
static struct gt_thread *reg_head, *reg_tail;
/* Reaped threads: limbo[0] those reaped by the last thread_reap, limbo[1] by the one before;
 * each thread_reap (one per generation) makes limbo[1] reusable. */
static struct gt_thread *limbo[2], *reusable;
static atomic_int records_made; /* thread_alloc's records since start or fork */
static _Atomic uint64_t next_g = 1;

static struct gt_thread *fresh; /* the slab being used up (zeroed records) */
static size_t fresh_left;
static char *fresh_memo; /* the memo slab being used up (zeroed, untouched slots) */
static size_t fresh_memo_left;

static gt_spinlock proc_lock;
static struct gt_p *proc_free;
static struct gt_p *fresh_p;
static size_t fresh_p_left;
static uint64_t next_p;

/* Records are backed as they are handed out (thread_alloc), Ps all at once (small). */
static void *slab(size_t bytes, size_t ready)
{
    return arena_alloc(ARENA_TABLES, bytes, ready);
}

/* A new memo (reg_lock held), or NULL. */
static struct stack_memo *memo_alloc(void)
{
    if (!fresh_memo_left) {
        void *m = arena_map(MEMO_BYTES * SLAB_MEMOS);
        if (!m) return NULL;
        fresh_memo = m;
        fresh_memo_left = SLAB_MEMOS;
    }
    struct stack_memo *memo = (struct stack_memo *)fresh_memo;
    fresh_memo += MEMO_BYTES;
    fresh_memo_left--;
    return memo;
}

/* The registry's first thread, for the reader of a killed process's file (reg_lock held). */
static void publish_head(void)
{
    struct gt_live_head *h = arena_head();
    if (h) h->registry = (uint64_t)(uintptr_t)reg_head;
}

void thread_publish_layout(void)
{
    struct gt_live_head *h = arena_head();
    if (!h) return;
    h->layout.t_next = offsetof(struct gt_thread, next);
    h->layout.t_tid = offsetof(struct gt_thread, tid);
    h->layout.t_stream = offsetof(struct gt_thread, stream);
    h->layout.t_stream_size = sizeof(struct gt_stream);
    h->layout.t_prefix = offsetof(struct gt_thread, prefix);
    h->layout.t_prefix_size = sizeof(((struct gt_thread *)0)->prefix[0]);
    h->layout.p_bytes = offsetof(struct gt_thread, prefix[0].bytes);
    h->layout.p_len = offsetof(struct gt_thread, prefix[0].len);
    h->layout.p_ts = offsetof(struct gt_thread, prefix[0].ts);
}

/* The record's arrays that are only read up to a count kept elsewhere in it: a reused record
 * need not zero them, and a fresh one (zeroed by mmap) is not written at all, so a short-lived
 * thread touches only the lines it uses. Its memo pointers are kept, a memo in use emptied. The
 * asserts keep every other field inside a zeroed range. */
#define T_OFF(f) offsetof(struct gt_thread, f)
#define T_END(f) (T_OFF(f) + sizeof(((struct gt_thread *)0)->f))
_Static_assert(T_END(stk.memo) == T_OFF(stk.own) && T_END(stk.own) == T_END(stk) &&
                   T_END(stk) == T_OFF(prefix) && T_END(prefix) == T_OFF(exit_gen),
               "the kept memo pointers and skipped prefix bytes are followed by zeroed fields");
_Static_assert(T_OFF(prefix[0].bytes) == T_OFF(prefix[0]), "a prefix's bytes start it");
_Static_assert(T_END(wait) <= 64 && T_OFF(gword) < 64 && T_OFF(seq) < 64,
               "what a waker touches shares the record's first cache line (thread.h)");
static void thread_clear(struct gt_thread *t)
{
    char *b = (char *)t;
    memset(b, 0, T_OFF(stk.memo));
    if (t->stk.memo) stack_memo_clear(t->stk.memo);
    for (int i = 0; i < 2; i++) /* a prefix's bytes: read only below its len */
        memset(t->prefix[i].bytes + GT_PREFIX_MAX, 0, sizeof t->prefix[i] - GT_PREFIX_MAX);
    memset(b + T_OFF(exit_gen), 0, T_OFF(regions.open) - T_OFF(exit_gen));
    /* the open regions: read only below regions.depth */
    memset(b + T_END(regions), 0, sizeof *t - T_END(regions));
}

struct gt_thread *thread_alloc(void)
{
    struct gt_thread *t = NULL;
    int reused = 0;
    spin_lock(&reg_lock);
    if (reusable) {
        t = reusable;
        reusable = t->next;
        reused = 1;
    } else {
        if (!fresh_left) {
            fresh = slab(sizeof(struct gt_thread) * SLAB_THREADS, 0);
            fresh_left = fresh ? SLAB_THREADS : 0;
        }
        if (fresh_left && arena_back(fresh, sizeof *fresh) == 0) {
            if (!fresh->stk.own) fresh->stk.own = memo_alloc(); /* the record's for good */
            if (fresh->stk.own) {
                t = fresh++;
                fresh_left--;
            }
        }
    }
    if (t) atomic_fetch_add_explicit(&records_made, 1, memory_order_relaxed);
    spin_unlock(&reg_lock);
    if (!t) return NULL;
    if (reused) thread_clear(t); /* a fresh one is all zero */
    t->g = atomic_fetch_add(&next_g, 1);
    return t;
}

struct stack_thread *thread_self_stacks(void)
{
    struct gt_thread *t = gt_self;
    return t ? &t->stk : NULL;
}

void thread_register(struct gt_thread *t)
{
    t->next = NULL;
    atomic_signal_fence(memory_order_release); /* the record before its link (gt_live.h) */
    spin_lock(&reg_lock);
    if (reg_tail)
        reg_tail->next = t;
    else
        reg_head = t;
    reg_tail = t;
    publish_head();
    spin_unlock(&reg_lock);
}

void thread_requeue(struct gt_thread *t)
{
    spin_lock(&reg_lock);
    struct gt_thread **pp = &reg_head;
    while (*pp && *pp != t)
        pp = &(*pp)->next;
    if (*pp && t != reg_tail) {
        *pp = t->next;
        t->next = NULL;
        reg_tail->next = t;
        reg_tail = t;
    }
    publish_head();
    spin_unlock(&reg_lock);
}

void thread_foreach(void (*fn)(struct gt_thread *t, void *ctx), void *ctx)
{
    spin_lock(&reg_lock);
    for (struct gt_thread *t = reg_head; t; t = t->next)
        fn(t, ctx);
    spin_unlock(&reg_lock);
}

/* The record last found or created for a handle hashing to each slot: a hint that saves the
 * registry's walk (ended threads stay in it until reaped), checked like any record. Records are
 * never freed, so a stale hint is only a record that no longer matches. */
#define HINTS 256
static struct gt_thread *_Atomic hints[HINTS];

static _Atomic(struct gt_thread *) *hint_of(pthread_t th)
{
    return &hints[((uint64_t)th * 0x9e3779b97f4a7c15ull) >> 56];
}

static int is_live(struct gt_thread *t, pthread_t th)
{
    return t && atomic_load(&t->handle) == th && !atomic_load(&t->exited);
}

void thread_hint(struct gt_thread *t, pthread_t th)
{
    atomic_store_explicit(hint_of(th), t, memory_order_relaxed);
}

struct gt_thread *thread_find(pthread_t th)
{
    spin_lock(&reg_lock);
    struct gt_thread *t = atomic_load_explicit(hint_of(th), memory_order_relaxed);
    if (!is_live(t, th)) {
        for (t = reg_head; t && !is_live(t, th); t = t->next)
            ;
        if (t) thread_hint(t, th);
    }
    spin_unlock(&reg_lock);
    return t;
}

void thread_reap(uint64_t gen)
{
    spin_lock(&reg_lock);
    if (limbo[1]) {
        struct gt_thread *last = limbo[1];
        while (last->next)
            last = last->next;
        last->next = reusable;
        reusable = limbo[1];
    }
    limbo[1] = limbo[0];
    limbo[0] = NULL;
    struct gt_thread **pp = &reg_head, *prev = NULL;
    while (*pp) {
        struct gt_thread *t = *pp;
        if (atomic_load_explicit(&t->exited, memory_order_acquire) && t->exit_gen <= gen &&
            !atomic_load_explicit(&t->creating, memory_order_acquire)) {
            *pp = t->next;
            if (reg_tail == t) reg_tail = prev;
            t->next = limbo[0];
            limbo[0] = t;
        } else {
            prev = t;
            pp = &t->next;
        }
    }
    publish_head();
    spin_unlock(&reg_lock);
}

int thread_records_made(void)
{
    return atomic_load_explicit(&records_made, memory_order_relaxed);
}

/* The parent's records, free or not, are the parent's (its threads may have changed them in
 * the shared file after the fork): the child starts from new slabs, and new memos (the parent's
 * are not mapped here). */
void thread_fork_child(void)
{
    spin_unlock(&reg_lock); /* a parent thread may have held them */
    spin_unlock(&proc_lock);
    atomic_store_explicit(&records_made, 0, memory_order_relaxed);
    reg_head = reg_tail = NULL;
    limbo[0] = limbo[1] = reusable = NULL;
    for (int i = 0; i < HINTS; i++) /* they name the parent's records */
        atomic_store_explicit(&hints[i], NULL, memory_order_relaxed);
    fresh_left = 0;
    fresh_memo_left = 0;
    proc_free = NULL;
    fresh_p_left = 0;
    publish_head();
}

struct gt_p *proc_get(void)
{
    spin_lock(&proc_lock);
    struct gt_p *p = proc_free;
    if (p) {
        proc_free = p->next_free;
    } else {
        if (!fresh_p_left) {
            fresh_p = slab(sizeof(struct gt_p) * SLAB_PROCS, sizeof(struct gt_p) * SLAB_PROCS);
            fresh_p_left = fresh_p ? SLAB_PROCS : 0;
        }
        if (fresh_p_left) {
            p = fresh_p++;
            fresh_p_left--;
            p->id = next_p++;
            atomic_store(&p->word, word_make(0, GO_P_IDLE, 0));
        }
    }
    spin_unlock(&proc_lock);
    return p;
}

void proc_put(struct gt_p *p)
{
    spin_lock(&proc_lock);
    p->next_free = proc_free;
    proc_free = p;
    spin_unlock(&proc_lock);
}
