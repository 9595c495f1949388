/* test_thread.c: the thread registry: a created thread's record is not reaped (so not reused
 * by another thread) while its creator may still write it, whatever the generations; requeue
 * moves a record to the end of the write order; a reused record reads as a new one (every field
 * zero but the arrays read only below a zeroed count); the creator's tr_create_done publishes the
 * handle and releases the record; thread_find goes by a hint but never returns a stale record.
 * Each Test runs in its own process (Criterion), so each starts with an empty registry. */
#include "tracer.h"
#include "tracing.h"

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct order {
    struct gt_thread *seen[8];
    int n;
};

static void collect(struct gt_thread *t, void *ctx)
{
    struct order *o = ctx;
    if (o->n < 8) o->seen[o->n] = t;
    o->n++;
}

static struct order registry(void)
{
    struct order o = {.n = 0};
    thread_foreach(collect, &o);
    return o;
}

static struct gt_thread *exited_in(uint64_t gen)
{
    struct gt_thread *t = thread_alloc();
    cr_assert_not_null(t);
    thread_register(t);
    t->exit_gen = gen;
    atomic_store(&t->exited, 1);
    return t;
}

Test(thread, reap_waits_for_the_creator)
{
    struct gt_thread *t = exited_in(1);
    atomic_store(&t->creating, 1); /* the child ran and exited before pthread_create returned */
    for (uint64_t gen = 2; gen < 8; gen++)
        thread_reap(gen);
    struct order o = registry();
    cr_assert_eq(o.n, 1, "kept while its creator may still write it");
    cr_assert_eq(o.seen[0], t);
    atomic_store(&t->creating, 0);
    thread_reap(8);
    cr_assert_eq(registry().n, 0, "reaped once the creator is done");
}

Test(thread, reaped_record_reused_only_after_two_reaps)
{
    struct gt_thread *t = exited_in(1);
    thread_reap(1);
    cr_assert_eq(registry().n, 0);
    struct gt_thread *a = thread_alloc();
    cr_assert_neq(a, t, "in limbo after one reap");
    thread_reap(2);
    thread_reap(3);
    struct gt_thread *b = thread_alloc();
    cr_assert_eq(b, t, "reusable after two more reaps");
}

/* Whether byte off of a record lies in an array read only below a count (thread.c). */
static int skipped(size_t off)
{
    for (int i = 0; i < 2; i++) {
        size_t b = offsetof(struct gt_thread, prefix) +
                   (size_t)i * sizeof((struct gt_thread){0}.prefix[0]);
        if (off >= b && off < b + GT_PREFIX_MAX) return 1;
    }
    size_t open = offsetof(struct gt_thread, regions.open);
    return off >= open && off < open + sizeof((struct gt_thread){0}.regions.open);
}

Test(thread, reused_record_reads_as_new)
{
    struct gt_thread *t = exited_in(1);
    uint64_t g = t->g;
    struct gt_thread *next = t->next;
    struct stack_memo *memo = t->stk.own;
    cr_assert_not_null(memo, "a record comes with its memo");
    memset((char *)t, 0xa5, sizeof *t); /* every field dirty, as a long-lived thread leaves it */
    memset((char *)memo, 0xa5, sizeof *memo);
    t->next = next;                  /* but the registry's link, */
    t->stk.own = t->stk.memo = memo; /* the record's memo, in use, */
    t->exit_gen = 1;                 /* and what makes it reapable */
    atomic_store(&t->exited, 1);
    atomic_store(&t->creating, 0);
    thread_reap(1);
    thread_reap(2);
    thread_reap(3);
    struct gt_thread *b = thread_alloc();
    cr_assert_eq(b, t, "the dirty record is the one reused");
    cr_assert(b->stk.own == memo && b->stk.memo == memo, "with its memo, still in use");
    cr_assert_gt(b->g, g, "a new goroutine id");
    const unsigned char *p = (const unsigned char *)b;
    size_t dirty = 0, kept = 0;
    for (size_t off = 0; off < sizeof *b; off++) {
        if (off >= offsetof(struct gt_thread, g) && off < offsetof(struct gt_thread, g) + 8)
            continue;
        if (off >= offsetof(struct gt_thread, stk.memo) &&
            off < offsetof(struct gt_thread, stk.own) + 8)
            continue;
        if (skipped(off))
            kept += p[off] == 0xa5;
        else if (p[off] != 0)
            dirty++;
    }
    cr_assert_eq(dirty, 0, "%zu bytes outside the counted arrays not zeroed", dirty);
    cr_assert_gt(kept, 800, "the counted arrays (prefix bytes, regions) not written");
    cr_assert(b->prefix[0].len == 0 && b->prefix[1].len == 0 && b->regions.depth == 0,
              "their counts are zero");
    const unsigned char *m = (const unsigned char *)memo;
    size_t head = offsetof(struct stack_memo, scratch), mdirty = 0, mkept = 0;
    for (size_t off = 0; off < sizeof *memo; off++)
        if (off < head)
            mdirty += m[off] != 0;
        else
            mkept += m[off] == 0xa5;
    cr_assert_eq(mdirty, 0, "the memo's head is empty");
    cr_assert_eq(mkept, sizeof *memo - head, "its walks (read only below its counts) not written");
}

Test(thread, memos_are_page_aligned_and_apart)
{
    struct gt_thread *a = thread_alloc(), *b = thread_alloc();
    cr_assert(!a->stk.memo && !b->stk.memo, "not in use before a thread repeats a stack");
    uintptr_t ma = (uintptr_t)a->stk.own, mb = (uintptr_t)b->stk.own;
    cr_assert(ma % 4096 == 0 && mb % 4096 == 0, "page-aligned");
    cr_assert(ma != mb && (ma > mb ? ma - mb : mb - ma) >= sizeof(struct stack_memo),
              "one memo each");
    cr_assert_lt(offsetof(struct stack_memo, chain[2]) + sizeof(struct stack_way), 4096,
                 "the head, scratch walk and first ways share the first page");
    cr_assert_lt(sizeof(struct gt_thread), 2048, "a record without its memo is small");
}

Test(thread, requeue_moves_to_the_end)
{
    struct gt_thread *a = thread_alloc(), *b = thread_alloc(), *c = thread_alloc();
    thread_register(a);
    thread_register(b);
    thread_register(c);
    thread_requeue(a);
    struct order o = registry();
    cr_assert_eq(o.n, 3);
    cr_assert(o.seen[0] == b && o.seen[1] == c && o.seen[2] == a, "b, c, a");
    thread_requeue(a); /* already last */
    thread_requeue(b);
    o = registry();
    cr_assert_eq(o.n, 3);
    cr_assert(o.seen[0] == c && o.seen[1] == a && o.seen[2] == b, "c, a, b");
    struct gt_thread *d = thread_alloc();
    thread_register(d);
    o = registry();
    cr_assert(o.n == 4 && o.seen[3] == d, "the tail is still right after a requeue");
}

static void *never_started(void *arg)
{
    return arg;
}

Test(thread, create_done_publishes_the_handle_and_releases)
{
    char path[] = "/tmp/gotrace-thread-XXXXXX";
    tracing_start(path);
    struct gt_thread *self = tr_current();
    cr_assert_not_null(self);
    struct gt_thread *child = tr_create_prepare(self, never_started, NULL);
    cr_assert_not_null(child);
    cr_assert(atomic_load(&child->creating), "pinned from creation");
    tr_create_done(child, (pthread_t)0x1234);
    cr_assert_eq(atomic_load(&child->handle), (pthread_t)0x1234);
    cr_assert_not(atomic_load(&child->creating));
    struct gt_thread *failed = tr_create_prepare(self, never_started, NULL);
    cr_assert_not_null(failed);
    tr_create_failed(failed);
    cr_assert_not(atomic_load(&failed->creating), "a failed creation releases its record");
    tr_shutdown();
    unlink(path);
}

/* thread_find goes by the hint its creator left, and never returns a record the hint names that
 * no longer is the live thread of that handle. */
Test(thread, find_by_hint_never_a_stale_record)
{
    pthread_t h = (pthread_t)0x7f0012345000;
    struct gt_thread *a = thread_alloc(), *b = thread_alloc();
    thread_register(a);
    thread_register(b);
    atomic_store(&a->handle, h);
    thread_hint(a, h);
    cr_assert_eq(thread_find(h), a);
    atomic_store(&a->exited, 1); /* a ended; b is a new thread with the reused handle */
    cr_assert_null(thread_find(h), "an ended thread is not found, hint or not");
    atomic_store(&b->handle, h);
    cr_assert_eq(thread_find(h), b, "the hint names a, which no longer matches: b is found");
    cr_assert_eq(thread_find(h), b);
    cr_assert_null(thread_find((pthread_t)0x7f0012346000));
}
