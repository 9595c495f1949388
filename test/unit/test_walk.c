/* test_walk.c: the fast CFI walker (walk.h) and the CFI reader (cfi.h).
 * Invariants: every walk is checked against libunwind's unw_backtrace from the same frame,
 * frame for frame; the call paths under test are noinline and not tail calls (an empty asm
 * after each call), so their frames exist at -O2; the hand-made FDEs are built byte by byte
 * as the GNU assembler lays them out. */
#define UNW_LOCAL_ONLY
#include "cfi.h"
#include "walk.h"

#include <alloca.h>
#include <criterion/criterion.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#define NO_TAIL() __asm__ volatile("" ::: "memory")
#define MAX 64

struct walk {
    uintptr_t fast[MAX], slow[MAX];
    int nfast, nslow;
};

/* Both unwinders from the same function: both pcs[0] are in probe (after the two different
 * calls), the rest must be equal. */
__attribute__((noinline)) static void probe(struct walk *w)
{
    w->nfast = walk_here(w->fast, (struct walk_limit){MAX, MAX, 0, 0}, NULL);
    void *slow[MAX];
    w->nslow = unw_backtrace(slow, MAX);
    for (int i = 0; i < w->nslow; i++)
        w->slow[i] = (uintptr_t)slow[i];
    NO_TAIL();
}

static void assert_same(const struct walk *w)
{
    cr_assert_geq(w->nfast, 0, "the fast walker gave up on an ordinary stack");
    cr_assert_eq(w->nfast, w->nslow, "fast %d frames, libunwind %d", w->nfast, w->nslow);
    for (int i = 1; i < w->nfast; i++)
        cr_assert_eq(w->fast[i], w->slow[i], "frame %d: %#lx vs %#lx", i, (unsigned long)w->fast[i],
                     (unsigned long)w->slow[i]);
}

__attribute__((noinline)) static void recurse(struct walk *w, int n)
{
    if (n == 0)
        probe(w);
    else
        recurse(w, n - 1);
    NO_TAIL();
}

/* A variable-size frame: GCC addresses it from RBP, so the CFA rule is RBP-based. */
__attribute__((noinline)) static void with_alloca(struct walk *w, volatile size_t n)
{
    char *buf = alloca(n);
    memset(buf, 1, n);
    __asm__ volatile("" : : "r"(buf) : "memory");
    recurse(w, 3);
    NO_TAIL();
}

/* Rules between a frame and a frame with RBP saved mid-chain. */
__attribute__((noinline)) static void rbp_chain(struct walk *w, volatile size_t n)
{
    char *buf = alloca(n);
    buf[0] = 0;
    __asm__ volatile("" : : "r"(buf) : "memory");
    with_alloca(w, n + 16);
    NO_TAIL();
}

Test(unwind, matches_libunwind_on_plain_frames)
{
    cr_assert_eq(walk_init(), 0);
    struct walk w;
    recurse(&w, 10);
    assert_same(&w);
    cr_assert_geq(w.nfast, 12);
}

Test(unwind, matches_libunwind_through_rbp_frames)
{
    cr_assert_eq(walk_init(), 0);
    struct walk w;
    rbp_chain(&w, 100);
    assert_same(&w);
    int bp_frames = 0;
    for (int i = 0; i < w.nfast; i++)
        bp_frames += cfi_rule_for(w.fast[i] - 1).kind == CFI_CFA_BP;
    cr_assert_geq(bp_frames, 2, "the alloca frames are RBP-based");
}

Test(unwind, cached_rules_give_the_same_walk_and_forget_keeps_it_right)
{
    cr_assert_eq(walk_init(), 0);
    static struct walk w[3];
    volatile int count = 3; /* one call site: the walks must be equal */
    for (int i = 0; i < count; i++) {
        if (i == 2) walk_forget();
        rbp_chain(&w[i], 40);
    }
    for (int i = 0; i < 3; i++)
        assert_same(&w[i]);
    cr_assert_eq(w[0].nfast, w[1].nfast);
    cr_assert_eq(w[0].nfast, w[2].nfast);
    cr_assert_arr_eq(w[0].fast, w[1].fast, (size_t)w[0].nfast * sizeof w[0].fast[0]);
    cr_assert_arr_eq(w[0].fast, w[2].fast, (size_t)w[0].nfast * sizeof w[0].fast[0]);
}

/* Walks from one call site: unbounded first, then with each of limits[1..n) (a limit whose
 * lead_hi is 1 leads with the first walk's pcs[0], the return address into this function). */
__attribute__((noinline)) static void limited_walks(uintptr_t (*pcs)[MAX], int *counts,
                                                    struct walk_limit *limits, int n)
{
    for (int i = 0; i < n; i++) {
        if (limits[i].lead_hi == 1)
            limits[i].lead_lo = pcs[0][0] - 1, limits[i].lead_hi = pcs[0][0];
        counts[i] = walk_here(pcs[i], limits[i], NULL);
    }
    NO_TAIL();
}

Test(unwind, stops_at_the_frames_its_caller_keeps)
{
    cr_assert_eq(walk_init(), 0);
    static uintptr_t pcs[4][MAX];
    int counts[4];
    struct walk_limit limits[4] = {
        {MAX, MAX, 0, 0}, /* all */
        {MAX, 2, 0, 1},   /* the leading frame, then two */
        {MAX, 2, 0, 0},   /* no leading frame: two */
        {1, 2, 0, 1},     /* max bounds the leading frames too */
    };
    limited_walks(pcs, counts, limits, 4);
    cr_assert_geq(counts[0], 4, "an ordinary stack is deeper than that");
    int want[4] = {counts[0], 3, 2, 1};
    for (int i = 1; i < 4; i++) {
        cr_assert_eq(counts[i], want[i], "limit %d: %d frames, expected %d", i, counts[i], want[i]);
        cr_assert_arr_eq(pcs[i], pcs[0], (size_t)counts[i] * sizeof pcs[0][0]);
    }
}

static void *thread_walk(void *arg)
{
    recurse(arg, 5);
    return NULL;
}

Test(unwind, ends_at_the_thread_start)
{
    cr_assert_eq(walk_init(), 0);
    struct walk w;
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, thread_walk, &w), 0);
    pthread_join(th, NULL);
    assert_same(&w);
}

/* From a signal context, as the CPU profiler walks: the interrupted code's registers. */
static struct walk sig_walk;
static volatile uintptr_t sig_pc;

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
    (void)sig, (void)si;
    const greg_t *g = ((ucontext_t *)ucv)->uc_mcontext.gregs;
    struct walk_regs r = {(uintptr_t)g[REG_RIP], (uintptr_t)g[REG_RSP], (uintptr_t)g[REG_RBP]};
    sig_pc = r.pc;
    sig_walk.nfast = walk_stack(r, sig_walk.fast + 1, MAX - 1);
    sig_walk.nfast += sig_walk.nfast >= 0; /* frame 0 stands for the interrupted pc */
    /* libunwind through the signal frame: the frames after the interrupted pc. */
    void *slow[MAX + 16];
    int n = unw_backtrace(slow, MAX + 16), i = 0;
    while (i < n && (uintptr_t)slow[i] != r.pc)
        i++;
    sig_walk.nslow = 1; /* frame 0 is not compared */
    for (i++; i < n && sig_walk.nslow < MAX; i++)
        sig_walk.slow[sig_walk.nslow++] = (uintptr_t)slow[i];
}

__attribute__((noinline)) static void raise_deep(int n, int sig)
{
    if (n == 0)
        raise(sig);
    else
        raise_deep(n - 1, sig);
    NO_TAIL();
}

Test(unwind, walks_from_a_signal_context)
{
    cr_assert_eq(walk_init(), 0);
    struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO};
    sigaction(SIGUSR1, &sa, NULL);
    raise_deep(4, SIGUSR1);
    cr_assert_neq(sig_pc, 0);
    assert_same(&sig_walk);
}

/* From inside a signal handler, through the signal frame, as a capture in a hook the handler
 * calls walks: libunwind gives the same frames, but the interrupted pc exact where the walker
 * gives it plus one (a return address's form). */
static struct walk in_handler;

static void on_signal_probe(int sig)
{
    (void)sig;
    probe(&in_handler);
    NO_TAIL();
}

static int is_sigreturn(uintptr_t pc)
{
    static const unsigned char code[] = {0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05};
    return memcmp((const void *)pc, code, sizeof code) == 0;
}

Test(unwind, walks_through_a_signal_frame)
{
    cr_assert_eq(walk_init(), 0);
    struct sigaction sa = {.sa_handler = on_signal_probe};
    sigaction(SIGUSR2, &sa, NULL);
    raise_deep(3, SIGUSR2);
    struct walk *w = &in_handler;
    cr_assert_geq(w->nfast, 0, "the walker gave up at the signal frame");
    cr_assert_eq(w->nfast, w->nslow, "fast %d frames, libunwind %d", w->nfast, w->nslow);
    int trampolines = 0;
    for (int i = 1; i < w->nfast; i++) {
        int interrupted = is_sigreturn(w->fast[i - 1]);
        trampolines += interrupted;
        cr_assert_eq(w->fast[i], w->slow[i] + (uintptr_t)interrupted, "frame %d: %#lx vs %#lx", i,
                     (unsigned long)w->fast[i], (unsigned long)w->slow[i]);
    }
    cr_assert_eq(trampolines, 1, "one signal frame on the way");
}

/* A function without CFI that keeps a frame pointer and has locals (hand-written assembly, as
 * JIT code may be): the walker steps over it by RBP, as libunwind does. */
void nocfi_call(void (*fn)(void));
__asm__(".text\n"
        ".type nocfi_call, @function\n"
        "nocfi_call:\n"
        "  push %rbp\n"
        "  mov %rsp, %rbp\n"
        "  sub $32, %rsp\n"
        "  movq $0, (%rsp)\n"
        "  call *%rdi\n"
        "  leave\n"
        "  ret\n"
        ".size nocfi_call, . - nocfi_call\n");

static struct walk through_nocfi;

__attribute__((noinline)) static void probe_through_nocfi(void)
{
    probe(&through_nocfi);
    NO_TAIL();
}

Test(unwind, steps_over_a_frame_without_cfi_by_its_frame_pointer)
{
    cr_assert_eq(walk_init(), 0);
    nocfi_call(probe_through_nocfi);
    cr_assert_eq(cfi_rule_for((uintptr_t)nocfi_call + 8).kind, CFI_NO_INFO);
    assert_same(&through_nocfi);
    int found = 0;
    for (int i = 0; i < through_nocfi.nfast; i++)
        found += through_nocfi.fast[i] - (uintptr_t)nocfi_call < 24;
    cr_assert_eq(found, 1, "the walk goes through nocfi_call");
}

/* A frame whose CFA is an expression (GCC realigns the stack through a register for an
 * over-aligned local beside alloca): the walker stops there, with the frames above it. */
static struct walk realigned_walk;

__attribute__((noinline)) static void realigned(volatile size_t n)
{
    char *p = alloca(n);
    _Alignas(64) char b[64];
    __asm__ volatile("" : : "r"(p), "r"(b) : "memory");
    probe(&realigned_walk);
    NO_TAIL();
}

Test(unwind, stops_at_a_frame_it_cannot_model_with_the_frames_above)
{
    cr_assert_eq(walk_init(), 0);
    realigned(32);
    struct walk *w = &realigned_walk;
    cr_assert_lt(w->nfast, 0, "a CFA from an expression");
    int n = walk_partial(w->nfast);
    cr_assert_geq(n, 1);
    cr_assert_gt(w->nslow, n, "libunwind goes on");
    cr_assert_eq(cfi_rule_for(w->fast[n - 1] - 1).kind, CFI_COMPLEX, "it stopped in realigned");
    for (int i = 1; i < n; i++)
        cr_assert_eq(w->fast[i], w->slow[i], "frame %d", i);
}

/* Hand-made CIE + FDE, as `gcc -O2` emits for a function that pushes RBP, sets RBP = RSP and
 * later pops it: CIE (code align 1, data align -8, RA r16, 'zR' pcrel|sdata4, CFA = rsp+8,
 * RA at CFA-8), FDE: +1 push (CFA off 16, rbp at CFA-16), +3 CFA = rbp+16, +10 remember,
 * CFA = rsp+8 (ret), +1 restore. */
static unsigned char frame[64];
static uintptr_t fn_base;

static const unsigned char *build_fde(void)
{
    static const unsigned char cie[] = {
        0x14, 0,    0,    0, /* length 20 */
        0,    0,    0,    0, /* CIE id */
        1,    'z',  'R',  0, /* version, augmentation */
        1,    0x78, 0x10,    /* code align 1, data align -8, RA register 16 */
        1,    0x1b,          /* augmentation data: FDE encoding pcrel|sdata4 */
        0x0c, 0x07, 0x08,    /* def_cfa rsp+8 */
        0x90, 0x01,          /* offset r16 at CFA-8 */
        0,    0,             /* padding */
    };
    memcpy(frame, cie, sizeof cie);
    unsigned char *f = frame + sizeof cie;
    static const unsigned char insns[] = {
        0x41, 0x0e, 0x10, 0x86, 0x02, /* advance 1; def_cfa_offset 16; rbp at CFA-16 */
        0x43, 0x0d, 0x06,             /* advance 3; def_cfa_register rbp */
        0x4a, 0x0a, 0x0c, 0x07, 0x08, /* advance 10; remember; def_cfa rsp+8 */
        0x41, 0x0b,                   /* advance 1; restore_state */
    };
    uint32_t len = (uint32_t)(4 + 4 + 4 + 1 + sizeof insns);
    uint32_t cie_off = (uint32_t)(f + 4 - frame);
    fn_base = (uintptr_t)&fn_base; /* any address: pcrel from the field */
    int32_t rel = (int32_t)(fn_base - (uintptr_t)(f + 8));
    uint32_t range = 0x40;
    memcpy(f, &len, 4);
    memcpy(f + 4, &cie_off, 4);
    memcpy(f + 8, &rel, 4);
    memcpy(f + 12, &range, 4);
    f[16] = 0; /* augmentation data length */
    memcpy(f + 17, insns, sizeof insns);
    return frame + sizeof cie;
}

Test(cfi, runs_the_instructions_up_to_the_address)
{
    const unsigned char *fde = build_fde();
    struct cfi_rule r = cfi_rule_from_fde(fde, fn_base);
    cr_assert_eq(r.kind, CFI_CFA_SP);
    cr_assert_eq(r.cfa_off, 8);
    cr_assert_eq(r.bp_slot, 0);
    r = cfi_rule_from_fde(fde, fn_base + 1);
    cr_assert_eq(r.kind, CFI_CFA_SP);
    cr_assert_eq(r.cfa_off, 16);
    cr_assert_eq(r.bp_slot, 2);
    r = cfi_rule_from_fde(fde, fn_base + 4);
    cr_assert_eq(r.kind, CFI_CFA_BP);
    cr_assert_eq(r.cfa_off, 16);
    r = cfi_rule_from_fde(fde, fn_base + 14);
    cr_assert_eq(r.kind, CFI_CFA_SP);
    cr_assert_eq(r.cfa_off, 8);
    r = cfi_rule_from_fde(fde, fn_base + 15);
    cr_assert_eq(r.kind, CFI_CFA_BP, "restore_state brings back the RBP rule");
    cr_assert_eq(cfi_rule_from_fde(fde, fn_base + 0x40).kind, CFI_NO_INFO, "outside the FDE");
}

Test(cfi, refuses_what_it_does_not_model)
{
    unsigned char *fde = (unsigned char *)build_fde();
    fde[17 + 5] = 0x0f; /* def_cfa_expression in place of advance 3 ... */
    fde[17 + 6] = 0x01; /* ... of one byte */
    cr_assert_eq(cfi_rule_from_fde(fde, fn_base + 10).kind, CFI_COMPLEX);
    fde = (unsigned char *)build_fde();
    fde[17] = 0x3f; /* an opcode of the user range */
    cr_assert_eq(cfi_rule_from_fde(fde, fn_base + 10).kind, CFI_COMPLEX);
    cr_assert_eq(cfi_rule_for((uintptr_t)frame).kind, CFI_NO_INFO, "data has no FDE");
}

Test(cfi, this_function_has_a_plain_rule)
{
    uintptr_t here = (uintptr_t)probe + 1;
    struct cfi_rule r = cfi_rule_for(here);
    cr_assert(r.kind == CFI_CFA_SP || r.kind == CFI_CFA_BP);
}

/* The last index whose location is <= rel, by a scan from the end (the obvious answer). */
static uint64_t scan(const int32_t *t, uint64_t count, intptr_t rel)
{
    uint64_t i = count - 1;
    while (i > 0 && t[2 * i] > rel)
        i--;
    return i;
}

/* Around every location of a table, and past its end, against a scan: evenly
 * spread, bunched at one end (interpolation guesses far off), with repeats, 1 and 2 entries. */
Test(cfi, the_fde_search_finds_the_last_entry_at_or_below)
{
    enum { N = 3000 };
    static int32_t t[2 * N];
    for (int shape = 0; shape < 4; shape++) {
        uint64_t count = shape == 3 ? 1 + (uint64_t)(N % 2) : N;
        int32_t at = -5000;
        for (uint64_t i = 0; i < count; i++) {
            t[2 * i] = at;
            t[2 * i + 1] = (int32_t)i;
            at += shape == 0   ? 37
                  : shape == 1 ? (int32_t)(i * i / 300 + 1)
                               : (int32_t)(i % 3 == 0) * 5;
        }
        for (uint64_t i = 0; i < count; i++) { /* each location, its neighbours, midway on */
            intptr_t next = i + 1 < count ? t[2 * (i + 1)] : t[2 * i] + 100;
            intptr_t rel[4] = {t[2 * i] - 1, t[2 * i], t[2 * i] + 1, (t[2 * i] + next) / 2};
            for (int k = 0; k < 4; k++)
                if (rel[k] >= t[0])
                    cr_assert_eq(cfi_fde_index(t, count, rel[k]), scan(t, count, rel[k]),
                                 "shape %d, location %ld", shape, (long)rel[k]);
        }
    }
    int32_t two[4] = {10, 0, 20, 1};
    cr_assert_eq(cfi_fde_index(two, 2, 10), 0);
    cr_assert_eq(cfi_fde_index(two, 2, 19), 0);
    cr_assert_eq(cfi_fde_index(two, 2, 20), 1);
}
