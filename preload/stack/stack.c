/* stack.c: stack capture with the fast CFI walker (walk.h), falling back to libunwind's
 * unw_step for stacks it cannot walk (libunwind loaded on first need), and the process-wide
 * stack table (an intern set keyed by the pc array). See stack.h for the invariants. Frame
 * selection: leading frames whose return address lies in section gotrace_api
 * (stack_capture itself and the tracer API) are dropped; the stack ends before the first frame
 * in section gotrace_tramp; at most max_depth frames are kept. The section bounds come from the
 * linker's __start_/__stop_ symbols (weak: an absent section selects nothing). */
#define UNW_LOCAL_ONLY
#include "stack.h"

#include "arena.h"
#include "go_wire.h"
#include "intern.h"
#include "log.h"
#include "selfcost.h"
#include "walk.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>

#define SLACK 16 /* frames unwound beyond max_depth to cover the dropped tracer frames */
/* The stack set's first key bytes: 2 pages, about 28 stacks of 32 frames (Debian's python starts
 * with 20), backed at start-up with the rest of its first block: a chunk added at run time costs
 * a populate call, tens of µs cold (docs/cost.md). */
#define STACK_FIRST_PAGES 2

#define SECTION_BOUNDS(name)                                                                       \
    extern const char __start_##name[] __attribute__((weak, visibility("hidden")));                \
    extern const char __stop_##name[] __attribute__((weak, visibility("hidden")))
SECTION_BOUNDS(gotrace_api);
SECTION_BOUNDS(gotrace_tramp);

static struct intern_set stacks;
static int depth;   /* max frames kept, 1..GO_MAX_STACK_FRAMES */
static int capture; /* capture enabled */
static int ready;   /* table initialised */

static _Atomic uint32_t epoch;                /* memos recorded in another epoch are stale */
static struct stack_thread *(*self_of)(void); /* stack_set_self */
__thread struct stack_alt stack_alt;

/* Whether sp lies on the calling thread's alternate signal stack (stack.h). */
static inline int on_altstack(uintptr_t sp)
{
    return sp - stack_alt.lo < stack_alt.size;
}

/* pc is a return address: the call instruction, hence the function, is at pc - 1. */
static int in_section(uintptr_t pc, const char *lo, const char *hi)
{
    uintptr_t a = pc - 1;
    return lo && a >= (uintptr_t)lo && a < (uintptr_t)hi;
}

/* The tracer's own code (stack_own_addr): [own_lo, own_hi), set once by stack_init. */
static uintptr_t own_lo, own_hi;

/* This library's mapping when it is a library of its own (whatever its file's name), not linked
 * into the program (the unit tests link the core archive): the object holding it does not hold
 * the entry point. Else empty. */
static void own_range(void)
{
    struct dl_find_object lib, prog;
    if (_dl_find_object((void *)&stack_init, &lib) == 0 &&
        _dl_find_object((void *)getauxval(AT_ENTRY), &prog) == 0 &&
        lib.dlfo_map_start != prog.dlfo_map_start) {
        own_lo = (uintptr_t)lib.dlfo_map_start;
        own_hi = (uintptr_t)lib.dlfo_map_end;
    }
}

int stack_own_addr(uintptr_t addr)
{
    return addr - own_lo < own_hi - own_lo;
}

/* Whether return address pc is the tracer's: its API section, or any code of the library (its
 * hooks, their .cold parts, helpers). */
static inline int own_pc(uintptr_t pc)
{
    return in_section(pc, __start_gotrace_api, __stop_gotrace_api) || stack_own_addr(pc - 1);
}

/* The first frame a stack keeps of pcs[0..n): past the tracer's leading frames, but their
 * outermost one when it is not an API function (the hook the program called, the leaf: stack.h).
 * n when the walk ended inside them. */
static int first_kept(const uintptr_t *pcs, int n)
{
    int i = 0;
    while (i < n && own_pc(pcs[i]))
        i++;
    if (i == n) return n;
    return i > 0 && !in_section(pcs[i - 1], __start_gotrace_api, __stop_gotrace_api) ? i - 1 : i;
}

/* How far a capture walks for keep frames (walk.h): past its leading frames, the library's code
 * of which the stack keeps the outermost, the hook (so one frame fewer after them), else
 * (linked into the program: the unit tests) the API section. */
static struct walk_limit walk_limit(int max, int keep)
{
    if (own_hi) return (struct walk_limit){max, keep > 1 ? keep - 1 : keep, own_lo, own_hi};
    return (struct walk_limit){max, keep, (uintptr_t)__start_gotrace_api,
                               (uintptr_t)__stop_gotrace_api};
}

int stack_init(int max_depth, int enabled)
{
    if (!ready && intern_init(&stacks, "stack", 17, STACK_FIRST_PAGES) != 0) return -1;
    if (!ready && arena_head()) intern_publish(&stacks, &arena_head()->stacks);
    if (!ready) own_range();
    ready = 1;
    atomic_fetch_add_explicit(&epoch, 1, memory_order_relaxed); /* the depth may change */
    depth = max_depth < 1 ? 1 : max_depth > GO_MAX_STACK_FRAMES ? GO_MAX_STACK_FRAMES : max_depth;
    capture = enabled;
    if (!enabled) return 0;
    (void)walk_init(); /* without its cache, walks read the unwind tables each time */
    return 0;
}

/* libunwind, loaded when a capture first needs it (stack.h) rather than with the tracer: the
 * fast walker takes nearly every stack, and mapping libunwind and liblzma cost every process
 * about 0.1 ms. Its caching policy is set as it is loaded: per-thread caches, no libunwind lock
 * (its locks are pthread mutexes, which we hook). The policy governs libunwind's DWARF
 * register-state cache, not the trace cache of unw_backtrace, which is not used
 * (general_backtrace). */
static struct {
    __typeof__(unw_tdep_getcontext) *getcontext;
    __typeof__(unw_init_local) *init_local;
    __typeof__(unw_get_reg) *get_reg;
    __typeof__(unw_step) *step;
} unw;
enum { UNW_UNWANTED, UNW_WANTED, UNW_LOADED, UNW_FAILED };
static _Atomic int unw_state; /* written by captures (wanted) and the loader (the rest) */

int stack_unwinder_wanted(void)
{
    return atomic_load_explicit(&unw_state, memory_order_relaxed) == UNW_WANTED;
}

void stack_unwinder_load(void)
{
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL), *policy = NULL;
    unw_addr_space_t *local = NULL;
    if (h) {
        policy = dlsym(h, "_ULx86_64_set_caching_policy");
        local = dlsym(h, "_ULx86_64_local_addr_space");
        unw.getcontext = dlsym(h, "_Ux86_64_getcontext");
        unw.init_local = dlsym(h, "_ULx86_64_init_local");
        unw.get_reg = dlsym(h, "_ULx86_64_get_reg");
        unw.step = dlsym(h, "_ULx86_64_step");
    }
    int ok = policy && local && unw.getcontext && unw.init_local && unw.get_reg && unw.step;
    if (ok)
        ((__typeof__(unw_set_caching_policy) *)policy)(*local, UNW_CACHE_PER_THREAD);
    else
        gt_log("cannot load libunwind (%s): stacks the walker cannot follow end where it stops",
               h ? "a function is missing" : dlerror());
    atomic_store_explicit(&unw_state, ok ? UNW_LOADED : UNW_FAILED, memory_order_release);
}

/* libunwind's walk, for stacks with a frame the fast walker cannot model: step by step, not
 * unw_backtrace, whose per-thread trace cache would take one of the program's pthread keys
 * (and 256 KiB a thread). Its first pc is in this function (section gotrace_api: dropped like
 * the tracer's other frames). -1 while libunwind is not loaded: the capture asks for it. */
GOTRACE_API_FN static int general_backtrace(uintptr_t *pcs, int max)
{
    unw_context_t uc;
    unw_cursor_t cur;
    int n = 0, cancel, state = atomic_load_explicit(&unw_state, memory_order_acquire);
    if (state != UNW_LOADED) {
        if (state == UNW_UNWANTED)
            atomic_compare_exchange_strong_explicit(&unw_state, &state, UNW_WANTED,
                                                    memory_order_relaxed, memory_order_relaxed);
        return -1;
    }
    /* Not cancelled in here (libunwind may write() to its validation pipe, a cancellation
     * point): the event being written would vanish from the trace. */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    if (unw.getcontext(&uc) == 0 && unw.init_local(&cur, &uc) == 0) {
        unw_word_t ip;
        while (n < max && unw.get_reg(&cur, UNW_REG_IP, &ip) == 0) {
            pcs[n++] = (uintptr_t)ip;
            if (unw.step(&cur) <= 0) break;
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

/* The stack of the walk pcs[0..n) of an interrupted pc: the tracer's leading frames but the hook
 * dropped, as a capture drops them. */
static uint64_t kept_stack(const uintptr_t *pcs, int n)
{
    int first = first_kept(pcs, n);
    return stack_from_pcs(pcs + first, last_used(pcs, first, n) - first);
}

/* Keeps the walk just recorded (m->scratch: walk_here called from capture_miss, called from
 * capture_at, whose CFA is cfa, entry RBP bp and return address ra) for the stack id, rebased
 * on cfa, in a free way or in place of the least recently hit. Rebasing: the walk's offsets are
 * from walk_here's CFA, which lies delta below cfa (the check of frame 2, capture_at's own,
 * reads its return address at cfa - 8). The checks of frames 0 and 1 (walk_here's and
 * capture_miss's) and RBP's in frame 2 (capture_at's frame pointer, if it has one) hold at every
 * capture from here and are dropped; a later frame's RBP check whose value came from the
 * register or from a slot below cfa reads RBP at capture_at's entry (no frame in between
 * changed it, or its own slot would be the source). Only checks of frames up to last are kept
 * (stack.h). */
static void memo_keep(struct stack_memo *m, int last, uint64_t id, uintptr_t cfa, uintptr_t bp,
                      uintptr_t ra)
{
    const struct walk_chain *c = &m->scratch;
    int i = 0;
    while (i < c->n && (c->frame[i] < 2 || (c->frame[i] == 2 && (c->c[i].off & 1))))
        i++;
    if (!id || i >= c->n || c->frame[i] != 2 || c->c[i].want != ra) return;
    intptr_t delta = -(c->c[i].off + 8);
    struct walk_check w[WALK_MAX_CHECKS];
    int n = 0;
    for (i++; i < c->n && c->frame[i] <= last; i++) {
        intptr_t off = c->c[i].off;
        uintptr_t want = c->c[i].want;
        if (!(off & 1)) { /* a return address */
            off += delta;
            if (off < 0) return;
        } else { /* RBP, relative to the base */
            want += (uintptr_t)delta;
            off = off == WALK_BP_REG ? STACK_ENTRY_BP : ((off & ~(intptr_t)1) + delta) | 1;
            if (off < 0) off = STACK_ENTRY_BP;
            if (off == STACK_ENTRY_BP && want + cfa != bp) return;
        }
        w[n++] = (struct walk_check){off, want};
    }
    int way = 0;
    if (m->used < STACK_MEMO_WAYS)
        way = m->used++;
    else
        for (int k = 1; k < STACK_MEMO_WAYS; k++)
            if (m->last[k] - m->last[way] > UINT32_MAX / 2) way = k; /* hit longer ago (wraps) */
    memcpy(m->chain[way].c, w, (size_t)n * sizeof w[0]);
    m->chain[way].n = n;
    m->ra[way] = ra;
    m->id[way] = id;
    m->last[way] = ++m->clock;
}

/* Whether every check of way w holds for the frames above cfa (stack.h). Reads the frames'
 * own stack slots, which a sanitizer may consider out of bounds. */
__attribute__((no_sanitize("address"))) static inline int way_holds(const struct stack_way *w,
                                                                    uintptr_t cfa, uintptr_t bp)
{
    for (const struct walk_check *c = w->c, *end = c + w->n; c < end; c++) {
        intptr_t off = c->off;
        uintptr_t v;
        if (__builtin_expect(!(off & 1), 1)) /* a return address, the usual check */
            v = *(const uintptr_t *)(cfa + (uintptr_t)off);
        else
            v = (off == STACK_ENTRY_BP ? bp : *(const uintptr_t *)(cfa + (uintptr_t)off - 1)) - cfa;
        if (v != c->want) return 0;
    }
    return 1;
}

/* A stack the calling thread captured without a hit (a stack's first capture is always a miss:
 * a hit never needs this): one of its first stacks, or a second capture, which puts its memo to
 * use (stack.h). */
static void note_stack(struct stack_thread *st, uint64_t id)
{
    int n = atomic_load_explicit(&st->nfirst, memory_order_relaxed), i = 0;
    while (i < n && st->first[i] != id)
        i++;
    if (i < n || n == STACK_FIRST) {
        st->memo = st->own;
        return;
    }
    st->first[n] = id;
    atomic_store_explicit(&st->nfirst, n + 1, memory_order_release);
}

/* A capture the memo does not know: the walk (recorded into the memo), the stack table. */
GOTRACE_API_FN __attribute__((noclone)) static uint64_t
capture_miss(struct stack_memo *memo, uintptr_t bp, uintptr_t cfa, uintptr_t ra)
{
    uintptr_t pcs[GO_MAX_STACK_FRAMES + SLACK];
    uint64_t t0 = selfcost_begin();
    int n = walk_here(pcs, walk_limit(depth + SLACK, depth), memo ? &memo->scratch : NULL);
    int fast = n >= 0;
    if (!fast) {
        int general = general_backtrace(pcs, depth + SLACK);
        n = general >= 0 ? general : walk_partial(n); /* the frames above the one it missed */
    }
    int first = first_kept(pcs, n);
    int end = last_used(pcs, first, n);
    uint64_t id = stack_from_pcs(pcs + first, end - first);
    if (fast && memo) memo_keep(memo, end, id, cfa, bp, ra);
    struct stack_thread *st = self_of ? self_of() : NULL;
    if (id && st) note_stack(st, id);
    selfcost_end(SC_WALK, t0, 1);
    return id;
}

/* stack_capture: RBP and the CFA as the caller left them, taken before any compiled code can
 * change RBP, then capture_at in the same frame (a jump: its return address is the caller's). */
__asm__(".pushsection gotrace_api,\"ax\",@progbits\n"
        ".globl stack_capture\n"
        ".hidden stack_capture\n"
        ".type stack_capture, @function\n"
        "stack_capture:\n"
        ".cfi_startproc\n"
        "\tmov %rbp, %rsi\n"
        "\tlea 8(%rsp), %rdx\n"
        "\tjmp capture_at\n"
        ".cfi_endproc\n"
        ".size stack_capture, .-stack_capture\n"
        ".popsection\n");

/* The memo's lookup; a miss walks in a frame of its own (capture_miss: not a tail call, so that
 * the walks it records always pass through this frame, memo_keep), which keeps this one small. */
GOTRACE_API_FN __attribute__((used, noclone)) static uint64_t
capture_at(struct stack_memo *memo, uintptr_t bp, uintptr_t cfa)
{
    if (!capture || on_altstack(cfa)) return 0;
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    if (memo) {
        uint32_t now = atomic_load_explicit(&epoch, memory_order_relaxed);
        if (memo->epoch != now) {
            memo->epoch = now;
            memo->used = 0;
        }
        for (int i = 0; i < memo->used; i++)
            if (memo->ra[i] == ra && way_holds(&memo->chain[i], cfa, bp)) {
                memo->last[i] = ++memo->clock;
                return memo->id[i];
            }
    }
    uint64_t id = capture_miss(memo, bp, cfa, ra);
    __asm__ volatile("" : "+r"(id)); /* not a tail call */
    return id;
}

/* The plain start routines (stack_start_plain) and the ids of their stacks [start]: open
 * addressing, PLAIN_PROBES slots from a routine's hash. A slot is claimed (fn PLAIN_BUSY), its id
 * stored, then fn (release); it changes again only when stack_forget empties the set. */
#define PLAIN_SLOTS 64
#define PLAIN_PROBES 8
#define PLAIN_BUSY ((uintptr_t)1)
static struct {
    _Atomic uintptr_t fn;
    _Atomic uint64_t id;
} plain[PLAIN_SLOTS];

static unsigned plain_slot(uintptr_t fn, unsigned probe)
{
    return ((unsigned)(((uint64_t)fn * 0x9e3779b97f4a7c15ull) >> 58) + probe) & (PLAIN_SLOTS - 1);
}

/* [fn]: a routine's one-frame stack (its entry + 1: pcs are return addresses). */
static uint64_t routine_stack(uintptr_t fn)
{
    uintptr_t pc = fn + 1;
    return stack_from_pcs(&pc, 1);
}

void stack_start_plain(void *start)
{
    uintptr_t fn = (uintptr_t)start;
    uint64_t id = fn > PLAIN_BUSY ? routine_stack(fn) : 0;
    for (unsigned i = 0; i < PLAIN_PROBES && id; i++) {
        unsigned k = plain_slot(fn, i);
        uintptr_t cur = 0;
        if (atomic_compare_exchange_strong_explicit(&plain[k].fn, &cur, PLAIN_BUSY,
                                                    memory_order_relaxed, memory_order_relaxed)) {
            atomic_store_explicit(&plain[k].id, id, memory_order_relaxed);
            atomic_store_explicit(&plain[k].fn, fn, memory_order_release);
            return;
        }
        if (cur == fn) return;
    }
}

/* The id of [fn] if fn is a plain start routine, else 0. */
static uint64_t plain_id(uintptr_t fn)
{
    for (unsigned i = 0; i < PLAIN_PROBES; i++) {
        unsigned k = plain_slot(fn, i);
        uintptr_t cur = atomic_load_explicit(&plain[k].fn, memory_order_acquire);
        if (cur == fn) return atomic_load_explicit(&plain[k].id, memory_order_relaxed);
        if (!cur) return 0;
    }
    return 0;
}

void stack_forget(void)
{
    walk_forget();
    for (int i = 0; i < PLAIN_SLOTS; i++)
        atomic_store_explicit(&plain[i].fn, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&epoch, 1, memory_order_relaxed);
}

GOTRACE_API_FN uint64_t stack_capture_interrupted(const struct walk_regs *at)
{
    if (!capture || on_altstack((uintptr_t)__builtin_frame_address(0))) return 0;
    uintptr_t pcs[GO_MAX_STACK_FRAMES + SLACK];
    pcs[0] = at->pc + 1; /* an exact pc: made to look like a return address */
    int n = walk_stack(*at, pcs + 1, depth - 1), walked = walk_partial(n);
    if (n >= 0) return kept_stack(pcs, n + 1);
    n = general_backtrace(pcs, depth + SLACK); /* the handler's frames, the signal frame, pc... */
    if (n < 0) return kept_stack(pcs, walked + 1);
    int first = 0;
    while (first < n && pcs[first] != at->pc)
        first++;
    if (first == n) return 0;
    pcs[first] = at->pc + 1;
    return kept_stack(pcs + first, n - first);
}

uint64_t stack_from_pcs(const uintptr_t *pcs, int n)
{
    if (!ready || n <= 0) return 0;
    if (n > GO_MAX_STACK_FRAMES) n = GO_MAX_STACK_FRAMES;
    return intern_insert(&stacks, pcs, (size_t)n * sizeof *pcs);
}

void stack_set_self(struct stack_thread *(*self)(void))
{
    self_of = self;
}

uint64_t stack_named(struct stack_thread *st, void *start)
{
    st->start = start;
    uintptr_t late = STACK_PC_SYNTH | (uintptr_t)st;
    if (!start) return stack_from_pcs(&late, 1); /* adopted */
    uint64_t id = plain_id((uintptr_t)start);
    if (id) return id;
    uintptr_t pcs[2] = {(uintptr_t)start + 1, late};
    return stack_from_pcs(pcs, 2);
}

uint64_t stack_routine(void *fn)
{
    uint64_t id = plain_id((uintptr_t)fn);
    return id ? id : routine_stack((uintptr_t)fn);
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

void stack_memo_clear(struct stack_memo *memo)
{
    memset(memo, 0, offsetof(struct stack_memo, scratch));
}

int stack_first(const struct stack_thread *st, const uint64_t **ids)
{
    *ids = st->first;
    return atomic_load_explicit(&st->nfirst, memory_order_acquire);
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
