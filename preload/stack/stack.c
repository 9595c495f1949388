/* stack.c: stack capture with the fast CFI walker (walk.h), falling back to libunwind's
 * unw_step for stacks it cannot walk, and the process-wide stack table (an intern set
 * keyed by the pc array). See stack.h for the
 * invariants. Frame selection: leading frames whose return address lies in section gotrace_api
 * (stack_capture itself and the tracer API) are dropped; the stack ends before the first frame
 * in section gotrace_tramp; at most max_depth frames are kept. The section bounds come from the
 * linker's __start_/__stop_ symbols (weak: an absent section selects nothing). */
#define UNW_LOCAL_ONLY
#include "stack.h"

#include "go_wire.h"
#include "intern.h"
#include "walk.h"

#include <libunwind.h>
#include <stdatomic.h>
#include <string.h>

#define SLACK 16 /* frames unwound beyond max_depth to cover the dropped tracer frames */

#define SECTION_BOUNDS(name)                                                                       \
    extern const char __start_##name[] __attribute__((weak, visibility("hidden")));                \
    extern const char __stop_##name[] __attribute__((weak, visibility("hidden")))
SECTION_BOUNDS(gotrace_api);
SECTION_BOUNDS(gotrace_tramp);

static struct intern_set stacks;
static int depth;   /* max frames kept, 1..GO_MAX_STACK_FRAMES */
static int capture; /* capture enabled */
static int ready;   /* table initialised */

static _Atomic uint32_t epoch; /* memos recorded in another epoch are stale */

/* pc is a return address: the call instruction, hence the function, is at pc - 1. */
static int in_section(uintptr_t pc, const char *lo, const char *hi)
{
    uintptr_t a = pc - 1;
    return lo && a >= (uintptr_t)lo && a < (uintptr_t)hi;
}

int stack_init(int max_depth, int enabled)
{
    if (!ready && intern_init(&stacks, "stack", 17) != 0) return -1;
    ready = 1;
    atomic_fetch_add_explicit(&epoch, 1, memory_order_relaxed); /* the depth may change */
    depth = max_depth < 1 ? 1 : max_depth > GO_MAX_STACK_FRAMES ? GO_MAX_STACK_FRAMES : max_depth;
    capture = enabled;
    if (!enabled) return 0;
    /* Per-thread caches: no libunwind lock (its locks are pthread mutexes, which we hook). This
     * policy governs libunwind's DWARF register-state cache (used on trace-cache misses), not
     * the trace cache of unw_backtrace, which is not used: general_backtrace). */
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    (void)walk_init(); /* without its cache, walks read the unwind tables each time */
    return 0;
}

/* libunwind's walk, for stacks with a frame the fast walker cannot model: step by step, not
 * unw_backtrace, whose per-thread trace cache would take one of the program's pthread keys
 * (and 256 KiB a thread). Its first pc is in this function (section gotrace_api: dropped like
 * the tracer's other frames). */
GOTRACE_API_FN static int general_backtrace(uintptr_t *pcs, int max)
{
    unw_context_t uc;
    unw_cursor_t cur;
    int n = 0, cancel;
    /* Not cancelled in here (libunwind may write() to its validation pipe, a cancellation
     * point): the event being written would vanish from the trace. */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    if (unw_getcontext(&uc) == 0 && unw_init_local(&cur, &uc) == 0) {
        unw_word_t ip;
        while (n < max && unw_get_reg(&cur, UNW_REG_IP, &ip) == 0) {
            pcs[n++] = (uintptr_t)ip;
            if (unw_step(&cur) <= 0) break;
        }
    }
    pthread_setcancelstate(cancel, NULL);
    return n;
}

/* The last frame index of pcs[0..n) the stack's id depends on: the trampoline or depth cut, or
 * the walk's end (n: what ended it). */
static int last_used(const uintptr_t *pcs, int first, int n)
{
    int end = first;
    while (end < n && end - first < depth &&
           !in_section(pcs[end], __start_gotrace_tramp, __stop_gotrace_tramp))
        end++;
    return end;
}

/* Moves way i of the memo to the front: most recently hit first. By swaps of neighbours (a
 * shifting loop compiles to two memmove calls, costly for the one or two places moved here). */
static void memo_front(struct stack_memo *m, int i)
{
    for (; i > 0; i--) {
        const struct walk_chain *k = m->known[i];
        uint64_t id = m->id[i];
        m->known[i] = m->known[i - 1];
        m->id[i] = m->id[i - 1];
        m->known[i - 1] = k;
        m->id[i - 1] = id;
    }
}

/* Keeps a recorded walk (memo->scratch) for the stack id, in a free way or in place of the
 * least recently hit. */
static void memo_keep(struct stack_memo *m, int last, uint64_t id)
{
    struct walk_chain *c = &m->scratch;
    int keep = 0;
    while (keep < c->n && c->frame[keep] <= last)
        keep++;
    if (c->n < 0 || keep == 0 || !id) return;
    struct walk_chain *slot = m->used < STACK_MEMO_WAYS
                                  ? &m->chain[m->used++]
                                  : (struct walk_chain *)m->known[STACK_MEMO_WAYS - 1];
    memcpy(slot->frame, c->frame, (size_t)keep);
    memcpy(slot->c, c->c, (size_t)keep * sizeof c->c[0]);
    slot->n = keep;
    m->known[m->used - 1] = slot; /* the last way: new, or the one replaced */
    m->id[m->used - 1] = id;
    memo_front(m, m->used - 1);
}

GOTRACE_API_FN uint64_t stack_capture(struct stack_memo *memo)
{
    if (!capture) return 0;
    uintptr_t pcs[GO_MAX_STACK_FRAMES + SLACK];
    uint32_t now = atomic_load_explicit(&epoch, memory_order_relaxed);
    if (memo && memo->epoch != now) {
        memo->epoch = now;
        memo->used = 0;
    }
    int n = walk_here(pcs, depth + SLACK, memo ? memo->known : NULL, memo ? memo->used : 0,
                      memo ? &memo->scratch : NULL);
    if (n <= -2) {
        memo_front(memo, -2 - n);
        return memo->id[0];
    }
    int fast = n >= 0;
    if (!fast) n = general_backtrace(pcs, depth + SLACK);
    int first = 0;
    while (first < n && in_section(pcs[first], __start_gotrace_api, __stop_gotrace_api))
        first++;
    int end = last_used(pcs, first, n);
    uint64_t id = stack_from_pcs(pcs + first, end - first);
    if (fast && memo) memo_keep(memo, end, id);
    /* A stack's first capture is always a miss: a hit never needs this test. */
    int nfirst = memo ? atomic_load_explicit(&memo->nfirst, memory_order_relaxed) : STACK_FIRST;
    if (id && nfirst < STACK_FIRST) {
        memo->first[nfirst] = id;
        atomic_store_explicit(&memo->nfirst, nfirst + 1, memory_order_release);
    }
    return id;
}

void stack_forget(void)
{
    walk_forget();
    atomic_fetch_add_explicit(&epoch, 1, memory_order_relaxed);
}

GOTRACE_API_FN uint64_t stack_capture_interrupted(const struct walk_regs *at)
{
    if (!capture) return 0;
    uintptr_t pcs[GO_MAX_STACK_FRAMES + SLACK];
    pcs[0] = at->pc + 1; /* an exact pc: made to look like a return address */
    int n = walk_stack(*at, pcs + 1, depth - 1);
    if (n >= 0) return stack_from_pcs(pcs, last_used(pcs, 0, n + 1));
    n = general_backtrace(pcs, depth + SLACK); /* the handler's frames, the signal frame, pc... */
    int first = 0;
    while (first < n && pcs[first] != at->pc)
        first++;
    if (first == n) return 0;
    pcs[first] = at->pc + 1;
    return stack_from_pcs(pcs + first, last_used(pcs, first, n) - first);
}

uint64_t stack_from_pcs(const uintptr_t *pcs, int n)
{
    if (!ready || n <= 0) return 0;
    if (n > GO_MAX_STACK_FRAMES) n = GO_MAX_STACK_FRAMES;
    return intern_insert(&stacks, pcs, (size_t)n * sizeof *pcs);
}

uint64_t stack_named(struct stack_memo *memo, void *start)
{
    memo->start = start;
    uintptr_t pcs[2] = {(uintptr_t)start + 1, STACK_PC_SYNTH | (uintptr_t)memo};
    return stack_from_pcs(pcs, 2);
}

static void *_Atomic main_fn;

uint64_t stack_named_main(void)
{
    uintptr_t pc = STACK_PC_MAIN;
    return stack_from_pcs(&pc, 1);
}

void stack_set_main(void *fn)
{
    atomic_store_explicit(&main_fn, fn, memory_order_release);
}

void *stack_main(void)
{
    return atomic_load_explicit(&main_fn, memory_order_acquire);
}

int stack_first(const struct stack_memo *memo, const uint64_t **ids)
{
    *ids = memo->first;
    return atomic_load_explicit(&memo->nfirst, memory_order_acquire);
}

int stack_enabled(void)
{
    return capture;
}

int stack_pcs(uint64_t id, const uintptr_t **pcs)
{
    size_t len = 0;
    *pcs = ready && id ? intern_get(&stacks, id, &len) : NULL;
    return *pcs ? (int)(len / sizeof(uintptr_t)) : 0;
}

int stack_depth(uint64_t id)
{
    size_t len = 0;
    if (!ready || !id || !intern_get(&stacks, id, &len)) return 0;
    return (int)(len / sizeof(uintptr_t));
}

void stack_mark(uint64_t id, uint64_t gen)
{
    if (ready) intern_mark(&stacks, id, gen);
}

struct visit {
    stack_visit_fn fn;
    void *ctx;
};

static void visit_one(void *ctx, uint64_t id, const void *key, size_t len)
{
    const struct visit *v = ctx;
    v->fn(v->ctx, id, key, (int)(len / sizeof(uintptr_t)));
}

void stack_foreach_marked(uint64_t gen, stack_visit_fn fn, void *ctx)
{
    struct visit v = {fn, ctx};
    if (ready) intern_foreach_marked(&stacks, gen, visit_one, &v);
}
