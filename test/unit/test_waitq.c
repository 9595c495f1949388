/* test_waitq.c: the wait table's lock-free hints (count, sole key, adds) and the releaser's
 * wake after its release (waitq_wake_released): it wakes the sole waiter queued before the
 * snapshot of adds taken before the release, never one that queued after it, nor an unnumbered
 * wait; a requeue (waitq_requeue) moves earlier waiters to the second key; the solo waiter's CAS
 * paths (add to an empty bucket, remove from an unlocked one) racing with locked adds, removes,
 * counts and requeues lose no thread and corrupt no list; a forked child's queues are empty;
 * a barrier's rounds (waitq_barrier) each have exactly one arrival that does not block. */
#include "tracer.h"
#include "tracing.h"
#include "waitq.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

static struct gt_thread fake[3];
static char keys[1 << 16];

/* Two distinct addresses in keys[] that share a bucket. */
static void colliding(void **a, void **b)
{
    *a = &keys[0];
    for (size_t i = 1; i < sizeof keys; i++)
        if (waitq_bucket_of(&keys[i]) == waitq_bucket_of(*a)) {
            *b = &keys[i];
            return;
        }
    cr_assert_fail("no two keys share a bucket");
}

Test(waitq, hints_follow_the_queue)
{
    void *a, *b;
    colliding(&a, &b);
    unsigned adds0 = waitq_adds(a);
    cr_assert_not(waitq_has_waiters(a));
    waitq_add(a, &fake[0]);
    cr_assert_eq(waitq_bucket_count(a), 1);
    cr_assert(waitq_bucket_only(a), "the first key queued is the bucket's sole key");
    waitq_add(a, &fake[1]);
    cr_assert(waitq_bucket_only(a), "the same key again");
    cr_assert_eq(waitq_count(a), 2);
    waitq_add(b, &fake[2]);
    cr_assert_not(waitq_bucket_only(a), "another key joined: mixed");
    cr_assert_not(waitq_bucket_only(b));
    cr_assert_eq(waitq_bucket_count(b), 3);
    cr_assert_eq(waitq_count(a), 2);
    cr_assert_eq(waitq_adds(a) - adds0, 3u, "every add counted");
    waitq_remove(&fake[2]);
    cr_assert_not(waitq_bucket_only(a), "mixed until the bucket empties");
    waitq_remove(&fake[0]);
    waitq_remove(&fake[1]);
    cr_assert_not(waitq_has_waiters(a));
    waitq_add(b, &fake[2]);
    cr_assert(waitq_bucket_only(b), "an emptied bucket takes a new sole key");
    waitq_remove(&fake[2]);
    cr_assert_eq(waitq_adds(a) - adds0, 4u, "removals do not count");
}

/* After fork (waitq_fork_child): a parent that had other threads leaves their queue nodes, to
 * be emptied; so does a lone thread that forked from a signal handler during its own wait; a
 * parent that only ever had the forking thread, not waiting, left nothing (nothing is read). */
Test(waitq, fork_child_empties_what_the_parent_left)
{
    void *a = &keys[100], *b = &keys[200];
    waitq_add(a, &fake[0]);
    waitq_add(b, &fake[1]);
    waitq_fork_child(&fake[2], 2); /* another thread's record: fake[0]'s */
    cr_assert_not(waitq_has_waiters(a), "other threads' waits emptied");
    cr_assert_not(waitq_has_waiters(b));
    cr_assert_eq(waitq_bucket_count(a), 0);
    waitq_add(a, &fake[0]);
    waitq_fork_child(&fake[0], 1); /* the lone forker was queued itself */
    cr_assert_not(waitq_has_waiters(a), "the forker's own wait emptied");
    waitq_add(a, &fake[1]);
    waitq_remove(&fake[1]);
    waitq_fork_child(&fake[1], 1); /* nothing left: nothing to do */
    cr_assert_not(waitq_has_waiters(a));
    waitq_add(a, &fake[1]); /* the buckets work on */
    cr_assert_eq(waitq_count(a), 1);
    waitq_remove(&fake[1]);
}

Test(waitq, released_wake_ignores_later_waiters)
{
    void *a, *b;
    colliding(&a, &b);
    unsigned before = waitq_adds(a);
    waitq_add(a, &fake[0]); /* queued after the snapshot */
    cr_assert_eq(waitq_wake_released(a, &fake[2], 0, before), 0, "no waiter from before");
    cr_assert_eq(waitq_count(a), 1, "the later waiter stays queued");
    waitq_remove(&fake[0]);
}

/* An unnumbered wait (a condvar's, waitq_add_unnumbered) counts no add, and the wakes by adds
 * (a release, a futex wake or requeue) pass it by, even queued before their snapshot. */
Test(waitq, unnumbered_waits_pass_wakes_by_adds)
{
    void *a, *b;
    colliding(&a, &b);
    unsigned adds0 = waitq_adds(a);
    waitq_add_unnumbered(a, &fake[0]);
    cr_assert_eq(waitq_adds(a), adds0, "no add counted");
    waitq_add(a, &fake[1]);
    cr_assert_eq(waitq_adds(a) - adds0, 1u);
    cr_assert_eq(waitq_count(a), 2, "both queued");
    unsigned before = waitq_adds(a);
    cr_assert_eq(waitq_requeue(a, b, before, 5), 1, "only the numbered wait moves");
    cr_assert_eq(waitq_count(a), 1, "the unnumbered one stays");
    cr_assert_eq(waitq_count(b), 1);
    waitq_remove(&fake[0]);
    waitq_remove(&fake[1]);
    cr_assert_not(waitq_has_waiters(a));
    cr_assert_not(waitq_has_waiters(b));
}

/* A requeue moves the oldest waiters queued before its snapshot, in their order, to the second
 * key (in another bucket, or in the same one), never a later waiter; they count as adds there. */
static void requeue_case(void *a, void *b)
{
    waitq_add(a, &fake[0]);
    waitq_add(a, &fake[1]);
    unsigned before = waitq_adds(a);
    waitq_add(a, &fake[2]); /* queued after the snapshot */
    unsigned adds_b = waitq_adds(b);
    cr_assert_eq(waitq_requeue(a, b, before, 5), 2, "the two waiters from before move");
    cr_assert_eq(waitq_count(a), 1, "the later waiter stays");
    cr_assert_eq(waitq_count(b), 2);
    cr_assert_eq(waitq_adds(b) - adds_b, 2u, "a move counts as an add on the second key's bucket");
    cr_assert_eq(waitq_requeue(b, a, waitq_adds(b), 1), 1, "at most max move");
    cr_assert_eq(waitq_count(a), 2);
    cr_assert_eq(waitq_count(b), 1);
    waitq_remove(&fake[0]); /* moved back to a, after fake[2] */
    cr_assert_eq(waitq_count(a), 1);
    cr_assert_eq(waitq_requeue(a, b, waitq_adds(a), 1), 1, "fake[2], the oldest left on a");
    cr_assert_eq(waitq_count(b), 2);
    cr_assert_eq(waitq_requeue(b, a, waitq_adds(b), 2), 2);
    cr_assert_eq(waitq_count(a), 2);
    waitq_remove(&fake[1]);
    waitq_remove(&fake[2]);
    cr_assert_not(waitq_has_waiters(a));
    cr_assert_not(waitq_has_waiters(b));
}

Test(waitq, requeue_moves_earlier_waiters)
{
    void *a, *b;
    colliding(&a, &b);
    requeue_case(a, b);
    void *c = &keys[0];
    for (size_t i = 1; waitq_bucket_of(c) == waitq_bucket_of(a); i++)
        c = &keys[i];
    requeue_case(a, c);
}

/* ---- races: solo CAS paths against the lock ---- */

#define RACERS 3
#define ROUNDS 100000
#define CHECK_EVERY 64

static struct gt_thread racer_rec[RACERS];
static void *race_keys[2];
static atomic_int arrived, released_round;

/* All racers queued at once, then the main thread counts them (no racer moves meanwhile). */
static void meet(int round)
{
    atomic_fetch_add(&arrived, 1);
    while (atomic_load(&released_round) < round)
        sched_yield();
}

static void *racer(void *arg)
{
    int me = (int)(intptr_t)arg;
    struct gt_thread *t = &racer_rec[me];
    for (int i = 1; i <= ROUNDS; i++) {
        void *key = race_keys[(i + me) & 1];
        waitq_add(key, t);
        if (me == 0) /* the others may be solo or listed: moves them between the keys */
            waitq_requeue(race_keys[i & 1], race_keys[!(i & 1)], waitq_adds(race_keys[0]), 1);
        else if (me == 1)
            (void)waitq_count(key);
        if (i % CHECK_EVERY == 0) meet(i / CHECK_EVERY);
        waitq_remove(t);
        cr_assert_null(__atomic_load_n(&t->wait.key, __ATOMIC_RELAXED), "dequeued");
    }
    return NULL;
}

/* The racers on keys a and b (one bucket or two), checked at rest every CHECK_EVERY rounds. */
static void race(void *a, void *b)
{
    race_keys[0] = a;
    race_keys[1] = b;
    pthread_t th[RACERS];
    for (int i = 0; i < RACERS; i++)
        pthread_create(&th[i], NULL, racer, (void *)(intptr_t)i);
    struct waitq_bucket *ba = waitq_bucket_of(a), *bb = waitq_bucket_of(b);
    for (int round = 1; round <= ROUNDS / CHECK_EVERY; round++) {
        while (atomic_load(&arrived) < RACERS * round)
            sched_yield();
        int n = waitq_count(a) + waitq_count(b);
        cr_assert_eq(n, RACERS, "round %d: %d threads queued of %d", round, n, RACERS);
        int hint = waitq_bucket_count(a) + (ba == bb ? 0 : waitq_bucket_count(b));
        cr_assert_eq(hint, RACERS, "the hint agrees at rest: word %lx count %d",
                     (unsigned long)atomic_load(&ba->word), atomic_load(&ba->count));
        atomic_store(&released_round, round);
    }
    for (int i = 0; i < RACERS; i++)
        pthread_join(th[i], NULL);
    for (struct waitq_bucket *x = ba;; x = bb) {
        cr_assert_eq(atomic_load(&x->word), 0, "unlocked and empty");
        cr_assert_null(x->head);
        cr_assert_eq(atomic_load(&x->count), 0);
        if (x == bb) break;
    }
}

Test(waitq, solo_cas_races_with_the_lock)
{
    void *a, *b;
    colliding(&a, &b);
    race(a, b);
}

/* A requeue to another bucket meanwhile: a thread that leaves follows its node there. */
Test(waitq, solo_cas_races_across_buckets)
{
    void *a = &keys[0], *c = &keys[1];
    for (size_t i = 2; waitq_bucket_of(c) == waitq_bucket_of(a); i++)
        c = &keys[i];
    race(a, c);
}

/* ---- with the tracer: a real waiter is woken by the releaser ---- */

static int key;
static atomic_int phase;

static void *waiter(void *arg)
{
    (void)arg;
    struct gt_thread *self = tr_current();
    cr_assert_not_null(self);
    cr_assert(tr_block(self, GT_R_MUTEX));
    waitq_add(&key, self);
    atomic_store(&phase, 1);
    while (atomic_load(&phase) != 2)
        sched_yield();
    waitq_remove(self);
    tr_unblock(self);
    waitq_thread_exit(self, 0);
    return NULL;
}

Test(waitq, released_wake_wakes_the_sole_waiter)
{
    char path[] = "/tmp/gotrace-waitq-XXXXXX";
    tracing_start(path);
    cr_assert(state_tracing(), "tracing started");
    struct gt_thread *self = tr_current();
    cr_assert_not_null(self);
    unsigned stale = waitq_adds(&key);
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    while (atomic_load(&phase) != 1)
        sched_yield();
    cr_assert_eq(waitq_wake_released(&key, self, 0, stale), 0, "the wait began after the snapshot");
    unsigned snap = waitq_adds(&key);
    static struct gt_thread later;
    waitq_add(&key, &later); /* a second waiter, after the snapshot */
    cr_assert_eq(waitq_wake_released(&key, self, 0, snap), 1, "the waiter from before");
    cr_assert_eq(waitq_count(&key), 1, "the woken waiter is dequeued, the later one stays");
    waitq_remove(&later);
    atomic_store(&phase, 2);
    pthread_join(t, NULL);
    tr_shutdown();
    unlink(path);
}

/* ---- with the tracer: a barrier's rounds (waitq_barrier) ---- */

#define BARRIER_THREADS 4
#define BARRIER_ROUNDS 300
static int bkey;
static pthread_barrier_t real_barrier;
static atomic_int wakers[BARRIER_ROUNDS];

static void *member(void *arg)
{
    (void)arg;
    struct gt_thread *self = tr_current();
    cr_assert_not_null(self);
    for (int r = 0; r < BARRIER_ROUNDS; r++) {
        if (r % 3 == 0) sched_yield(); /* vary the order of arrivals */
        int blocked = waitq_barrier(self, &bkey, BARRIER_THREADS - 1, GT_R_BARRIER, r & 1);
        if (!blocked) atomic_fetch_add(&wakers[r], 1);
        pthread_barrier_wait(&real_barrier);
        if (blocked) {
            waitq_remove(self);
            tr_unblock(self);
        }
        pthread_barrier_wait(&real_barrier); /* the round's counts are read before the next */
    }
    waitq_thread_exit(self, 0);
    return NULL;
}

/* Every round has exactly one arrival that does not block (it found the others queued and woke
 * them), whatever the order the arrivals race in, named or not; no waiter is left queued. */
Test(waitq, barrier_round_has_one_waker)
{
    char path[] = "/tmp/gotrace-waitq-XXXXXX";
    tracing_start(path);
    pthread_barrier_init(&real_barrier, NULL, BARRIER_THREADS);
    pthread_t t[BARRIER_THREADS];
    for (int i = 0; i < BARRIER_THREADS; i++)
        pthread_create(&t[i], NULL, member, NULL);
    for (int i = 0; i < BARRIER_THREADS; i++)
        pthread_join(t[i], NULL);
    for (int r = 0; r < BARRIER_ROUNDS; r++)
        cr_assert_eq(atomic_load(&wakers[r]), 1, "round %d: %d arrivals did not block", r,
                     atomic_load(&wakers[r]));
    cr_assert_not(waitq_has_waiters(&bkey), "no waiter left queued");
    pthread_barrier_destroy(&real_barrier);
    tr_shutdown();
    unlink(path);
}
