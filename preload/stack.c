/* stack.c: stack capture with libunwind's unw_backtrace (its per-thread fast trace cache) and
 * the process-wide stack table (an intern set keyed by the pc array). See stack.h for the
 * invariants. Frame selection: leading frames whose return address lies in section gotrace_api
 * (stack_capture itself and the tracer API) are dropped; the stack ends before the first frame
 * in section gotrace_tramp; at most max_depth frames are kept. The section bounds come from the
 * linker's __start_/__stop_ symbols (weak: an absent section selects nothing). */
#define UNW_LOCAL_ONLY
#include "stack.h"

#include "go_wire.h"
#include "intern.h"

#include <libunwind.h>
#include <sys/mman.h>

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

/* unw_backtrace keeps a per-thread trace cache whatever the caching policy: a table of 2^14
 * frame slots (256 KiB) that libunwind mmaps and fills on a thread's first capture and frees
 * at the thread's exit, through a pthread key. A slot whose address is 0 is empty, so a zeroed
 * page is as good as libunwind's own empty slots: stack_thread_start drops every page of a
 * new thread's table, and the thread then holds only the pages its own frames touch. */
static pthread_key_t cache_key;
static int cache_key_known;
static int warming; /* stack_init's first capture, the one that makes libunwind create its key */

/* pc is a return address: the call instruction, hence the function, is at pc - 1. */
static int in_section(const void *pc, const char *lo, const char *hi)
{
    uintptr_t a = (uintptr_t)pc - 1;
    return lo && a >= (uintptr_t)lo && a < (uintptr_t)hi;
}

int stack_init(int max_depth, int enabled)
{
    if (!ready && intern_init(&stacks, "stack", 17) != 0) return -1;
    ready = 1;
    depth = max_depth < 1 ? 1 : max_depth > GO_MAX_STACK_FRAMES ? GO_MAX_STACK_FRAMES : max_depth;
    capture = enabled;
    if (!enabled) return 0;
    /* Per-thread caches: no libunwind lock (its locks are pthread mutexes, which we hook). This
     * policy governs libunwind's DWARF register-state cache (used on trace-cache misses), not
     * unw_backtrace's trace cache (see stack_thread_start). */
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    void *warm[GO_MAX_STACK_FRAMES];
    warming = 1; /* libunwind creates its trace-cache key now: stack_key_created records it */
    (void)unw_backtrace(warm, GO_MAX_STACK_FRAMES);
    warming = 0;
    return 0;
}

void stack_key_created(pthread_key_t key)
{
    if (warming && !cache_key_known) {
        cache_key = key;
        cache_key_known = 1;
    }
}

/* libunwind's private x86_64 trace cache (src/x86_64/Gtrace.c, unchanged since 2011): a slot
 * (unw_tdep_frame_t) is an address and 64 bits of unwind rules; the cache begins with its
 * table and the table's log2 size. */
struct trace_slot {
    uint64_t addr;
    uint64_t rules;
};
struct trace_cache_head {
    struct trace_slot *frames;
    size_t log_size;
};
#define TRACE_CACHE_LOG_SIZE 14 /* libunwind's HASH_MIN_BITS: the table as created */

void stack_thread_start(void)
{
    if (!capture || !cache_key_known) return;
    void *warm[1];
    int cancel;
    /* Not cancelled in here (libunwind may write() to its validation pipe, a cancellation
     * point): the thread's start would vanish from the trace. */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    (void)unw_backtrace(warm, 1); /* creates this thread's trace cache if it has none */
    pthread_setcancelstate(cancel, NULL);
    const struct trace_cache_head *c = pthread_getspecific(cache_key);
    if (!c || c->log_size != TRACE_CACHE_LOG_SIZE || (uintptr_t)c->frames % 4096) return;
    (void)madvise(c->frames, sizeof(struct trace_slot) << TRACE_CACHE_LOG_SIZE, MADV_DONTNEED);
}

/* The stack of pcs[first..n): at most depth frames, ending before a trampoline frame. */
static inline uint64_t stack_from_first(void *const *pcs, int first, int n)
{
    int end = first;
    while (end < n && end - first < depth &&
           !in_section(pcs[end], __start_gotrace_tramp, __stop_gotrace_tramp))
        end++;
    return stack_from_pcs((const uintptr_t *)pcs + first, end - first);
}

GOTRACE_API_FN uint64_t stack_capture(void)
{
    if (!capture) return 0;
    void *pcs[GO_MAX_STACK_FRAMES + SLACK];
    int n = unw_backtrace(pcs, depth + SLACK);
    int first = 0;
    while (first < n && in_section(pcs[first], __start_gotrace_api, __stop_gotrace_api))
        first++;
    return stack_from_first(pcs, first, n);
}

GOTRACE_API_FN uint64_t stack_capture_interrupted(uintptr_t pc)
{
    if (!capture) return 0;
    void *pcs[GO_MAX_STACK_FRAMES + SLACK];
    int n = unw_backtrace(pcs, depth + SLACK); /* the handler's frames, the signal frame, pc... */
    int first = 0;
    while (first < n && (uintptr_t)pcs[first] != pc)
        first++;
    if (first == n) return 0;
    pcs[first] = (void *)(pc + 1); /* an exact pc: made to look like a return address */
    return stack_from_first(pcs, first, n);
}

uint64_t stack_from_pcs(const uintptr_t *pcs, int n)
{
    if (!ready || n <= 0) return 0;
    if (n > GO_MAX_STACK_FRAMES) n = GO_MAX_STACK_FRAMES;
    return intern_insert(&stacks, pcs, (size_t)n * sizeof *pcs);
}

int stack_enabled(void) { return capture; }

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
