/* test_stack.c: stack capture and the stack table (stack.h).
 * Invariants: the call paths under test are noinline and not tail calls (an empty asm after
 * each call), so the frames the assertions expect exist at -O2. */
#include "stack.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#define NO_TAIL() __asm__ volatile("" ::: "memory")
#define NEAR(pc, fn) ((pc) > (uintptr_t)(fn) && (pc) <= (uintptr_t)(fn) + 256)

struct got {
    uint64_t id;
    uintptr_t pcs[128];
    int n;
};

static void find(void *ctx, uint64_t id, const uintptr_t *pcs, int n)
{
    struct got *g = ctx;
    if (id != g->id) return;
    memcpy(g->pcs, pcs, (size_t)n * sizeof *pcs);
    g->n = n;
}

static struct got lookup(uint64_t id)
{
    static uint64_t gen;
    struct got g = {.id = id, .n = -1};
    stack_mark(id, ++gen);
    stack_foreach_marked(gen, find, &g);
    return g;
}

/* The calling thread's memo, or NULL: the tests run with and without one. */
static __thread struct stack_memo *memo;
/* The calling thread's stack state (stack_set_self), or NULL: then memo is passed. */
static __thread struct stack_thread *self_st;
static struct stack_thread *self_stacks(void)
{
    return self_st;
}

/* The tracer API layer: two nested API functions, as event.c calls into stack.c. */
GOTRACE_API_FN static uint64_t api_inner(void)
{
    uint64_t id = stack_capture(self_st ? self_st->memo : memo);
    NO_TAIL();
    return id;
}

GOTRACE_API_FN static uint64_t api_outer(void)
{
    uint64_t id = api_inner();
    NO_TAIL();
    return id;
}

/* Stands for an interposed hook: the first frame kept. */
__attribute__((noinline)) static uint64_t hook(void)
{
    uint64_t id = api_outer();
    NO_TAIL();
    return id;
}

__attribute__((noinline)) static uint64_t user_a(void)
{
    uint64_t id = hook();
    NO_TAIL();
    return id;
}

__attribute__((noinline)) static uint64_t user_b(void)
{
    uint64_t id = hook();
    NO_TAIL();
    return id;
}

__attribute__((noinline)) static uint64_t recurse(int n)
{
    uint64_t id = n == 0 ? hook() : recurse(n - 1);
    NO_TAIL();
    return id;
}

GOTRACE_TRAMPOLINE static uint64_t trampoline(uint64_t (*start)(void))
{
    uint64_t id = start();
    NO_TAIL();
    return id;
}

Test(stack, first_frame_is_the_api_caller)
{
    cr_assert_eq(stack_init(32, 1), 0);
    uint64_t id = user_a();
    cr_assert_neq(id, 0);
    struct got g = lookup(id);
    cr_assert_geq(g.n, 3);
    cr_assert(NEAR(g.pcs[0], hook), "leaf %#lx is not in hook %p", (unsigned long)g.pcs[0],
              (void *)hook);
    cr_assert(NEAR(g.pcs[1], user_a));
    for (int i = 0; i < g.n; i++) {
        cr_assert_not(NEAR(g.pcs[i], api_inner));
        cr_assert_not(NEAR(g.pcs[i], api_outer));
    }
}

Test(stack, same_path_same_id)
{
    cr_assert_eq(stack_init(32, 1), 0);
    uint64_t a[3], b[3];
    volatile int count = 3; /* the loop must not be unrolled into three call sites */
    for (int i = 0; i < count; i++) {
        a[i] = user_a();
        b[i] = user_b();
    }
    cr_assert_neq(a[0], 0);
    cr_assert_neq(b[0], 0);
    cr_assert_neq(a[0], b[0]);
    for (int i = 1; i < 3; i++) {
        cr_assert_eq(a[i], a[0]);
        cr_assert_eq(b[i], b[0]);
    }
}

/* A variable-size frame (RBP-based CFA) on the path: the memo must check RBP too. */
__attribute__((noinline)) static uint64_t user_alloca(volatile size_t n)
{
    char *buf = __builtin_alloca(n);
    buf[0] = 1;
    __asm__ volatile("" : : "r"(buf) : "memory");
    uint64_t id = hook();
    NO_TAIL();
    return id;
}

struct round {
    uint64_t a, b, c, r, r45;
};

/* One call site per path, whatever the loop around it becomes. */
__attribute__((noinline, noclone)) static struct round one_round(int i)
{
    struct round o;
    /* From 50 on, the variable frame changes size: its chain no longer holds (its CFA is
     * RBP-based), so each capture walks again, with the same result. */
    o.a = user_a(), o.b = user_b(), o.c = user_alloca(i < 50 ? 16 : (size_t)i * 32);
    o.r = recurse(5), o.r45 = recurse(4 + i % 2);
    NO_TAIL();
    return o;
}

/* Stacks stop before a trampoline: the call sites of round_at do not matter. */
GOTRACE_TRAMPOLINE static struct round round_at(int i)
{
    struct round o = one_round(i);
    NO_TAIL();
    return o;
}

Test(stack, memo_returns_the_ids_of_a_fresh_walk)
{
    cr_assert_eq(stack_init(32, 1), 0);
    static struct stack_memo m;
    struct round first[2];
    first[0] = round_at(0); /* without a memo */
    first[1] = round_at(1);
    memo = &m;
    for (int i = 0; i < 100; i++) {
        if (i == 50) stack_forget();
        struct round o = round_at(i);
        cr_assert(first[0].a && first[0].b && first[0].c && first[0].r && first[0].r45);
        cr_assert_eq(o.a, first[0].a);
        cr_assert_eq(o.b, first[0].b);
        cr_assert_eq(o.c, first[0].c);
        cr_assert_eq(o.r, first[0].r);
        cr_assert_eq(o.r45, first[i % 2].r45, "recursion depths 4 and 5 alternate");
        if (i == 49) cr_assert_eq(m.used, 6, "each path recorded once, then found");
    }
    cr_assert_neq(first[0].a, first[0].b);
    cr_assert_neq(first[0].r45, first[1].r45, "a shorter path is another stack");
    struct got g = lookup(first[0].a);
    cr_assert(NEAR(g.pcs[0], hook));
    cr_assert(NEAR(g.pcs[1], user_a));
    memo = NULL;
}

/* The stacks below stop at the trampoline: the same path whatever the test's call site. */
static int cold_depth;
static uint64_t cold_start(void)
{
    return recurse(cold_depth);
}

/* More paths than ways: each capture still gives the id of a fresh walk, and a path hit at every
 * other capture is in the memo at the end, once. */
Test(stack, memo_with_more_paths_than_ways)
{
    cr_assert_eq(stack_init(32, 1), 0);
    static struct stack_memo m;
    uint64_t hot = trampoline(user_a), cold[12];
    for (int k = 0; k < 12; k++) {
        cold_depth = k;
        cold[k] = trampoline(cold_start);
    }
    memo = &m;
    volatile int count = 120;
    for (int i = 0; i < count; i++) {
        cr_assert_eq(trampoline(user_a), hot);
        cold_depth = i % 12;
        cr_assert_eq(trampoline(cold_start), cold[i % 12]);
    }
    memo = NULL;
    cr_assert_eq(m.used, STACK_MEMO_WAYS);
    int kept = 0;
    for (int i = 0; i < STACK_MEMO_WAYS; i++)
        kept += m.id[i] == hot;
    cr_assert_eq(kept, 1, "the path hit at every other capture is kept, once");
}

/* A thread's stack state: its first distinct stacks are noted; its memo is put to use, and
 * written, only from its first repeated stack on, or after more distinct stacks than it notes.
 * (Stacks stop at the trampoline: the same path from each call site.) */
Test(stack, memo_in_use_from_a_threads_first_repeat)
{
    cr_assert_eq(stack_init(32, 1), 0);
    static struct stack_memo m, m2, zero;
    static struct stack_thread st = {.own = &m}, st2 = {.own = &m2};
    stack_set_self(self_stacks);
    self_st = &st;
    uint64_t a = trampoline(user_a), b = trampoline(user_b);
    cr_assert(st.nfirst == 2 && st.first[0] == a && st.first[1] == b, "the first stacks");
    cr_assert_null(st.memo, "two distinct stacks: no memo in use");
    cr_assert_eq(memcmp(&m, &zero, sizeof m), 0, "nor written");
    cr_assert_eq(trampoline(user_a), a);
    cr_assert_eq(st.memo, &m, "in use from the first repeat on");
    cr_assert_eq(st.nfirst, 2, "a repeat is not noted again");
    cr_assert_eq(trampoline(user_a), a);
    cr_assert(m.used == 1 && m.clock == 1, "the next capture misses and is kept");
    cr_assert_eq(trampoline(user_a), a);
    cr_assert(m.used == 1 && m.clock == 2, "then it hits");
    self_st = &st2;
    uint64_t r[STACK_FIRST + 1];
    for (int k = 0; k <= STACK_FIRST; k++) {
        cr_assert_null(st2.memo, "%d distinct stacks: no memo in use", k);
        cold_depth = k;
        r[k] = trampoline(cold_start);
    }
    cr_assert_eq(st2.nfirst, STACK_FIRST);
    cr_assert_eq(memcmp(st2.first, r, sizeof st2.first), 0, "the first ones noted");
    cr_assert_eq(st2.memo, &m2, "in use after more distinct stacks than are noted");
    self_st = NULL;
    stack_set_self(NULL);
}

Test(stack, trampoline_cuts)
{
    cr_assert_eq(stack_init(32, 1), 0);
    struct got g = lookup(trampoline(user_a));
    cr_assert_eq(g.n, 2);
    cr_assert(NEAR(g.pcs[0], hook));
    cr_assert(NEAR(g.pcs[1], user_a));
}

Test(stack, depth_limit)
{
    cr_assert_eq(stack_init(3, 1), 0);
    struct got g = lookup(recurse(10));
    cr_assert_eq(g.n, 3);
    cr_assert(NEAR(g.pcs[0], hook));
    cr_assert(NEAR(g.pcs[1], recurse));
    cr_assert_eq(stack_init(128, 1), 0);
    cr_assert_geq(lookup(recurse(10)).n, 13);
}

Test(stack, disabled_returns_zero)
{
    cr_assert_eq(stack_init(32, 0), 0);
    cr_assert_eq(user_a(), 0);
    uintptr_t one = (uintptr_t)user_a;
    uint64_t id = stack_from_pcs(&one, 1);
    cr_assert_neq(id, 0);
    cr_assert_eq(stack_from_pcs(&one, 1), id);
    struct got g = lookup(id);
    cr_assert_eq(g.n, 1);
    cr_assert_eq(g.pcs[0], one);
    cr_assert_eq(stack_from_pcs(&one, 0), 0);
}

#define THREADS 4
static pthread_barrier_t start;

static void *capturer(void *out)
{
    pthread_barrier_wait(&start);
    uint64_t *ids = out;
    volatile int count = 1000;
    for (int i = 0; i < count; i++)
        ids[i] = trampoline(user_a);
    return NULL;
}

Test(stack, concurrent_captures_share_ids)
{
    cr_assert_eq(stack_init(32, 1), 0);
    static uint64_t ids[THREADS][1000];
    pthread_barrier_init(&start, NULL, THREADS);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, capturer, ids[t]), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    cr_assert_neq(ids[0][0], 0);
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < 1000; i++)
            cr_assert_eq(ids[t][i], ids[0][0]);
}

/* Every allocation of the process goes through here; the thread under test counts its own. */
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
static __thread int counting;
static int allocations;

void *malloc(size_t n)
{
    allocations += counting;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    allocations += counting;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    allocations += counting;
    return __libc_realloc(p, n);
}

static void *capture_counting(void *arg)
{
    counting = 1;
    int all = user_a() && user_b() && recurse(20) && trampoline(user_a);
    counting = 0;
    return all ? arg : NULL;
}

Test(stack, capture_does_not_malloc_on_a_fresh_thread)
{
    cr_assert_eq(stack_init(64, 1), 0);
    static int captured;
    pthread_t th;
    void *ok;
    cr_assert_eq(pthread_create(&th, NULL, capture_counting, &captured), 0);
    pthread_join(th, &ok);
    cr_assert_eq(ok, &captured, "a capture returned 0");
    cr_assert_eq(allocations, 0);
}
