/* test_symbolize.c: pc -> (function, file, line) with libdwfl (symbolize.h).
 * Invariants: the functions whose return addresses are looked up are noipa and their calls are
 * not tail calls, so the expected frames exist at -O2; each expected line is the line of the
 * call, recorded by AT_LINE on that same line. */
#include "strtab.h"
#include "stack.h"
#include "symbolize.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NO_TAIL() __asm__ volatile("" ::: "memory")
/* Evaluates call after storing the line it is written on. */
#define AT_LINE(line, call) (*(line) = __LINE__, (call))

static const char *str(uint64_t id)
{
    size_t len;
    const char *s = str_get(id, &len);
    return s ? s : "";
}

__attribute__((noipa)) static uintptr_t return_address(void)
{
    return (uintptr_t)__builtin_return_address(0);
}

__attribute__((noipa)) static uintptr_t known_function(int *line)
{
    uintptr_t pc = AT_LINE(line, return_address());
    NO_TAIL();
    return pc;
}

static inline __attribute__((always_inline)) uintptr_t inlined_function(int *line)
{
    uintptr_t pc = AT_LINE(line, return_address());
    NO_TAIL();
    return pc;
}

__attribute__((noipa)) static uintptr_t inlining_function(int *inner, int *outer)
{
    uintptr_t pc = AT_LINE(outer, inlined_function(inner));
    NO_TAIL();
    return pc;
}

static void init(void)
{
    cr_assert_eq(str_init(), 0);
    cr_assert_eq(sym_init(), 0);
}

Test(symbolize, known_function, .init = init, .fini = sym_fini)
{
    int line;
    uintptr_t pc = known_function(&line);
    struct sym_frame f[8];
    int n = sym_lookup(pc, f, 8);
    cr_assert_eq(n, 1);
    cr_assert_eq(f[0].pc, pc);
    cr_assert_str_eq(str(f[0].func_str), "known_function");
    cr_assert(strstr(str(f[0].file_str), "test_symbolize.c"), "file %s", str(f[0].file_str));
    cr_assert_eq(f[0].line, (uint64_t)line);
    struct sym_frame again[8];
    cr_assert_eq(sym_lookup(pc, again, 8), 1);
    cr_assert_eq(memcmp(again, f, sizeof f[0]), 0);
}

Test(symbolize, inlined_frames_expanded, .init = init, .fini = sym_fini)
{
    int inner, outer;
    uintptr_t pc = inlining_function(&inner, &outer);
    struct sym_frame f[8];
    int n = sym_lookup(pc, f, 8);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(str(f[0].func_str), "inlined_function");
    cr_assert_eq(f[0].line, (uint64_t)inner);
    cr_assert_eq(f[0].pc, pc);
    cr_assert_str_eq(str(f[1].func_str), "inlining_function");
    cr_assert(strstr(str(f[1].file_str), "test_symbolize.c"));
    cr_assert_eq(f[1].line, (uint64_t)outer);
    cr_assert_neq(f[1].pc, pc);
    cr_assert_eq(sym_lookup(pc, f, 1), 1, "max is respected");
}

struct marked {
    uint64_t want[2];
    int seen[2];
};

static void saw(void *ctx, uint64_t id, const char *s, size_t len)
{
    (void)s, (void)len;
    struct marked *m = ctx;
    for (int i = 0; i < 2; i++)
        m->seen[i] += id == m->want[i];
}

/* Strings marked for generation gen among want's. */
static struct marked marked_for(uint64_t gen, const struct sym_frame *f)
{
    struct marked m = {{f[0].func_str, f[1].func_str}, {0, 0}};
    str_foreach_marked(gen, saw, &m);
    return m;
}

/* The frames' strings are marked for each generation that looks them up, even when a lookup
 * of the same pc in an earlier generation marked them already (once per pc and generation). */
Test(symbolize, lookup_for_marks_every_generation, .init = init, .fini = sym_fini)
{
    int inner, outer;
    uintptr_t pc = inlining_function(&inner, &outer);
    struct sym_frame f[8], g[8];
    for (uint64_t gen = 41; gen <= 45; gen += 2) {
        cr_assert_eq(sym_lookup_for(pc, gen, f, 8), 2);
        struct marked m = marked_for(gen, f);
        cr_assert(m.seen[0] == 1 && m.seen[1] == 1, "generation %lu: marked %d, %d",
                  (unsigned long)gen, m.seen[0], m.seen[1]);
        cr_assert_eq(sym_lookup(pc, g, 8), 2);
        cr_assert_eq(memcmp(f, g, 2 * sizeof f[0]), 0, "the same frames as sym_lookup");
    }
    cr_assert_eq(marked_for(44, f).seen[0], 0, "a generation that did not look it up");
}

/* A stand-in for the flusher's encoding (encode.h): a frame as its four fields, 8 bytes each. */
static size_t raw_frames(uint8_t *out, const struct sym_frame *f, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t v[4] = {f[i].pc, f[i].func_str, f[i].file_str, f[i].line};
        memcpy(out + sizeof v * (size_t)i, v, sizeof v);
    }
    return 32 * (size_t)n;
}

/* With an encoding given, a pc's frames come back in that form: the encoding of what
 * sym_lookup gives, with their strings marked for each generation that asks. */
Test(symbolize, encoded_frames_are_the_lookups, .init = init, .fini = sym_fini)
{
    sym_set_encoding(raw_frames);
    int inner, outer;
    uintptr_t pc = inlining_function(&inner, &outer);
    struct sym_frame f[8];
    cr_assert_eq(sym_lookup(pc, f, 8), 2);
    uint8_t want[64];
    cr_assert_eq(raw_frames(want, f, 2), sizeof want);
    const uint8_t *bytes;
    size_t len;
    for (uint64_t gen = 41; gen <= 43; gen += 2) {
        cr_assert_eq(sym_encoded_for(pc, gen, &bytes, &len), 2);
        cr_assert_eq(len, sizeof want);
        cr_assert_eq(memcmp(bytes, want, sizeof want), 0, "the encoded lookup");
        struct marked m = marked_for(gen, f);
        cr_assert(m.seen[0] == 1 && m.seen[1] == 1, "generation %lu: marked %d, %d",
                  (unsigned long)gen, m.seen[0], m.seen[1]);
    }
    cr_assert_eq(sym_encoded_for(STACK_PC_MAIN, 41, &bytes, &len), 0, "synthetic: not kept");
}

Test(symbolize, libc_function, .init = init, .fini = sym_fini)
{
    struct sym_frame f[8];
    int n = sym_lookup((uintptr_t)qsort + 1, f, 8);
    cr_assert_geq(n, 1);
    cr_assert(strstr(str(f[n - 1].func_str), "qsort"), "func %s", str(f[n - 1].func_str));
}

Test(symbolize, library_loaded_after_init, .init = init, .fini = sym_fini)
{
    void *h = dlopen("libcrypt.so.1", RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(h);
    void *fn = dlsym(h, "crypt_r");
    cr_assert_not_null(fn);
    struct sym_frame f[8];
    int n = sym_lookup((uintptr_t)fn + 1, f, 8);
    cr_assert_geq(n, 1);
    cr_assert(strstr(str(f[n - 1].func_str), "crypt"), "func %s", str(f[n - 1].func_str));
    cr_assert(strstr(str(f[n - 1].file_str), "libcrypt"), "file %s", str(f[n - 1].file_str));
}

Test(symbolize, unknown_pc, .init = init, .fini = sym_fini)
{
    struct sym_frame f[8];
    uintptr_t pcs[] = {0, 16, (uintptr_t)1 << 46, UINTPTR_MAX};
    for (size_t i = 0; i < sizeof pcs / sizeof pcs[0]; i++) {
        cr_assert_eq(sym_lookup(pcs[i], f, 8), 1);
        cr_assert_eq(f[0].pc, pcs[i]);
        cr_assert_str_eq(str(f[0].func_str), "?");
    }
}

/* The synthetic frames of stack.h: STACK_PC_MAIN is "main" (at main's line once stack_set_main
 * named it; here a stand-in function); a late frame of a thread whose start routine is the
 * program's own resolves to nothing (the start routine names the thread), and its next threads
 * are then named by [start] alone, until stack_forget. */
Test(symbolize, synthetic_frames, .init = init, .fini = sym_fini)
{
    cr_assert_eq(stack_init(8, 1), 0);
    struct sym_frame f[8];
    cr_assert_eq(sym_lookup(STACK_PC_MAIN, f, 8), 1);
    cr_assert_str_eq(str(f[0].func_str), "main");
    int line;
    stack_set_main((void *)known_function);
    (void)known_function(&line);
    cr_assert_eq(sym_lookup(STACK_PC_MAIN, f, 8), 1);
    cr_assert_str_eq(str(f[0].func_str), "main");
    cr_assert(strstr(str(f[0].file_str), "test_symbolize.c"), "file %s", str(f[0].file_str));
    cr_assert_eq(f[0].pc, STACK_PC_MAIN);
    stack_set_main(NULL);

    static struct stack_thread st;
    uint64_t id = stack_named(&st, (void *)known_function);
    const uintptr_t *pcs;
    cr_assert_eq(stack_pcs(id, &pcs), 2);
    cr_assert(stack_pc_late(pcs[1]));
    cr_assert_eq(sym_lookup(pcs[1], f, 8), 0, "the program's own start routine: no late frame");
    /* Learnt: the next threads it starts share the one-frame stack [start]. */
    static struct stack_thread st2, st3;
    uint64_t shared = stack_named(&st2, (void *)known_function);
    cr_assert_eq(stack_pcs(shared, &pcs), 1, "[start] alone");
    cr_assert_eq(pcs[0], (uintptr_t)known_function + 1);
    cr_assert_eq(stack_named(&st3, (void *)known_function), shared, "one stack for every thread");
    cr_assert_eq(st3.start, (void *)known_function, "the record still knows its routine");
    stack_forget(); /* a library unloaded: the address may hold other code */
    cr_assert_eq(stack_pcs(stack_named(&st3, (void *)known_function), &pcs), 2, "forgotten");
}

/* A thread's whole stack, as a thread the tracer adopted has it: its function, then libc's
 * start_thread and clone3 (no trampoline of the tracer's in between). */
struct walked {
    uintptr_t pcs[16];
    int n;
};

__attribute__((noipa)) static void *adopted_routine(void *arg)
{
    struct walked *w = arg;
    w->n = walk_here(w->pcs, (struct walk_limit){16, 16, 0, 0}, NULL);
    NO_TAIL();
    return NULL;
}

/* A thread the tracer adopted (stack_named without a start routine: [late frame]) is named by
 * the outermost frame of its first stack, its start routine; libc's thread-start frames below
 * it show in no stack (they resolve to no frame). */
Test(symbolize, adopted_thread_named_by_its_start_routine, .init = init, .fini = sym_fini)
{
    cr_assert_eq(stack_init(8, 1), 0);
    static struct walked w;
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, adopted_routine, &w), 0);
    cr_assert_eq(pthread_join(th, NULL), 0);
    cr_assert_geq(w.n, 3, "the routine, start_thread, clone3: %d frames", w.n);
    struct sym_frame f[8];
    cr_assert_eq(sym_lookup(w.pcs[0], f, 8), 1);
    cr_assert_str_eq(str(f[0].func_str), "adopted_routine");
    for (int i = 1; i < w.n; i++) /* libc's, named with its debug symbols (libc6-dbg) */
        cr_assert_eq(sym_lookup(w.pcs[i], f, 8), 0, "frame %d of libc shown: %s", i,
                     str(f[0].func_str));

    static struct stack_thread st;
    uint64_t id = stack_named(&st, NULL);
    const uintptr_t *pcs;
    cr_assert_eq(stack_pcs(id, &pcs), 1, "[late frame] alone");
    cr_assert(stack_pc_late(pcs[0]));
    st.first[0] = stack_from_pcs(w.pcs, w.n);
    st.nfirst = 1;
    cr_assert_eq(sym_lookup(pcs[0], f, 8), 1);
    cr_assert_str_eq(str(f[0].func_str), "adopted_routine");
    cr_assert_eq(f[0].pc, pcs[0]);
}
