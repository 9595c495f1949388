/* stack.h: capture of the calling thread's stack and the process-wide stack table.
 * A stack is a list of return addresses, innermost first, deduplicated into a stable id (> 0).
 * Captured stacks skip the tracer's own leading frames except the outermost one (the interposed
 * function, e.g. pthread_mutex_lock, is the leaf), whatever part of the library's code they are
 * in (a hook's .cold part, a helper between the hook and the API), and stop before the tracer's
 * trampolines, so the outermost frame is `main` or the thread's start routine (for a thread the
 * tracer adopted, libc's thread-start frames follow it: symbolization shows none of them).
 * Invariants: stack_capture and stack_mark are lock-free and malloc-free (the fast walker's
 * cache misses use the lock-free _dl_find_object; libunwind, the fallback, is loaded by the
 * flusher, never by a capture, and used with per-thread caches); stack_foreach_marked runs on
 * the flusher only, for a generation no thread writes any more. */
#ifndef GOTRACE_STACK_H
#define GOTRACE_STACK_H
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "walk.h"

/* 0 on success, -1 if memory is unavailable. Call it before any thread captures: it sets up the
 * fast walker's rule cache (walk.h) and finds the tracer's own code (stack_own_addr). Later calls
 * keep the table and only change max_depth (clamped to 1..GO_MAX_STACK_FRAMES) and enabled. */
int stack_init(int max_depth, int enabled);
/* Whether addr is the tracer's own code: in this library's mapping, when the tracer is a library
 * of its own (not linked into the program, as the unit tests link the core archive: then no
 * address is). Known from stack_init on; no lock, no system call. */
int stack_own_addr(uintptr_t addr);
/* The fallback: libunwind, for a stack with a frame the fast walker cannot model (a CFA from an
 * expression; code without CFI that keeps no frame pointer). A capture never loads it (a dlopen
 * there could wait for a thread that waits for the capturing one, or run in a signal handler
 * that interrupted malloc): the first capture that needs it asks for it and keeps the frames
 * above the one the walker missed, and the flusher loads it when it sees the request
 * (stack_unwinder_load, under the output lock, so that no fork happens meanwhile), with
 * per-thread caches (libunwind's global cache locks a pthread mutex, which would re-enter our
 * hooks). It steps frame by frame: it takes no pthread key of the program's (unw_backtrace's
 * trace cache would). */
int stack_unwinder_wanted(void);
void stack_unwinder_load(void); /* by the flusher alone, when stack_unwinder_wanted() */
/* A thread's memo of the stacks it captured last, so that a capture of a stack seen lately
 * returns its id without walking or interning: each way is the walk's chain of checks (walk.h),
 * rebased on stack_capture's own CFA, whose first check (the return address into the caller of
 * stack_capture) is kept apart in ra[] to find candidate ways with one compare each; a miss
 * replaces the least recently hit way. Owner-thread only; zeroed is empty. A thread's memo is
 * private memory, never in the live file (`gotrace recover` does not read it): thread.c. */
#define STACK_MEMO_WAYS 8
#define STACK_FIRST 4
/* A check: the value at CFA + off (off even); at CFA + off - 1, minus CFA (off odd); or RBP at
 * stack_capture's entry minus CFA (off STACK_ENTRY_BP). */
#define STACK_ENTRY_BP ((intptr_t)-1)
struct stack_way {
    int n;
    struct walk_check c[WALK_MAX_CHECKS];
};
struct stack_memo {
    /* The head: zero is empty (stack_memo_clear). */
    uint32_t epoch; /* the stack epoch its ways were recorded in (stack_init, stack_forget) */
    int used;
    uint32_t clock;                 /* hits and keeps so far */
    uint32_t last[STACK_MEMO_WAYS]; /* clock at way i's last hit or keep */
    uintptr_t ra[STACK_MEMO_WAYS];  /* the first check of way i (chain[i]) */
    uint64_t id[STACK_MEMO_WAYS];   /* its stack id */
    /* The walks, read only below a count in the head (used, n): written by a miss, never
     * cleared, so that their untouched pages stay untouched; the scratch walk first, then the
     * ways, so that a thread with a few stacks uses the memo's first page only. */
    struct walk_chain scratch; /* the last miss's walk, as walk_here records it */
    struct stack_way chain[STACK_MEMO_WAYS];
};
/* A thread's stack state, in its record (thread.h): a new thread's is zero but for memo and
 * own (thread.c). Read by the flusher too (stack_named): the first STACK_FIRST distinct stacks
 * the thread captured (first[i] set once, before nfirst counts it), and the start routine its
 * creator named it by. memo is NULL or own: own is put to use only when the thread captures a
 * stack a second time, or more distinct stacks than first[] holds, so a thread that blocks once
 * or twice and ends, or stays blocked, never touches its memo's memory. */
struct stack_thread {
    uint64_t first[STACK_FIRST];
    _Atomic int nfirst;
    void *start;
    struct stack_memo *memo; /* owner only: what its captures pass (NULL: not in use yet) */
    struct stack_memo *own;  /* the memo given to the record (thread.c), kept across reuse */
};
/* Where a capture finds the calling thread's stack state: self returns it, or NULL (a thread
 * without one). Set once, before any thread captures; unset, captures record no first stacks
 * and use only the memos passed to them. */
void stack_set_self(struct stack_thread *(*self)(void));
/* Empties memo for a new owner: its head only (the walks are read only below its counts). */
void stack_memo_clear(struct stack_memo *memo);
/* Capture the caller's stack; 0 when capture is disabled, yields no frame or the table is
 * full. memo (the calling thread's own: its stack_thread's memo, or NULL) speeds up repeated
 * stacks; a miss notes the stack in the calling thread's stack_thread (stack_set_self).
 * stack_capture is itself a GOTRACE_API_FN. Not reentrant on one thread (signal handler during a
 * capture): callers must keep the per-thread re-entrancy guard around it. */
uint64_t stack_capture(struct stack_memo *memo);
/* The calling thread's alternate signal stack, as the program sets it (sigaltstack): a capture
 * made on it (in a handler of the program's, or the CPU profiler's interrupting one) is 0. Its
 * room is the program's to size (8 KiB for Rust's), libunwind's fallback needs more, and a
 * memo's checks could read past its top. Set inline, in the caller's code: a sanitizer's runtime
 * sets its own before its instrumentation may run. */
extern __thread struct stack_alt {
    uintptr_t lo; /* [lo, lo + size) */
    size_t size;
} stack_alt __attribute__((tls_model("initial-exec")));

static inline void stack_set_altstack(const stack_t *ss)
{
    stack_alt.lo = ss->ss_flags & SS_DISABLE ? 0 : (uintptr_t)ss->ss_sp;
    stack_alt.size = ss->ss_flags & SS_DISABLE ? 0 : ss->ss_size;
}

/* After a library is unloaded: its code addresses may be reused, every cached unwind rule and
 * memo is dropped. */
void stack_forget(void);
/* From a signal handler: the stack of the code the signal interrupted, whose registers (from
 * the signal context) are at, innermost frame (at->pc) first; 0 if neither unwinder got
 * through. Same re-entrancy rule as stack_capture. */
uint64_t stack_capture_interrupted(const struct walk_regs *at);
/* A stack from explicit pcs (e.g. the one-frame stack naming a start routine). pcs are return
 * addresses (symbolization looks up pc - 1): pass a function's entry address plus 1. At most
 * GO_MAX_STACK_FRAMES are kept; 0 for n <= 0. Works when capture is disabled. */
uint64_t stack_from_pcs(const uintptr_t *pcs, int n);
/* Synthetic frames, resolved when the flusher symbolizes (symbolize.c): never a code address
 * (user addresses are < 2^47). STACK_PC_MAIN is "main" (the process's main thread, stripped or
 * not, whoever created it); stack_named's second frame is the thread's first frame of program
 * code, or nothing. */
#define STACK_PC_SYNTH ((uintptr_t)1 << 63)
#define STACK_PC_MAIN (STACK_PC_SYNTH | 1)
/* Whether pc is a stack_named late frame (a stack_thread's address, 8-aligned, below 2^47). */
static inline int stack_pc_late(uintptr_t pc)
{
    uintptr_t m = pc & ~STACK_PC_SYNTH;
    return (pc & STACK_PC_SYNTH) && m && m < ((uintptr_t)1 << 47) && !(m & 7);
}
/* The stack naming a thread created with start routine start whose own stacks go to st
 * (creator side, before the thread runs): [start, the first frame of the program's own code in
 * the thread's first captured stack] when start is a language runtime's trampoline (libstdc++'s
 * std::thread, libgomp, Rust's std), else just [start]; resolved per generation, so a thread
 * whose first stack comes after its creation's generation was written keeps [start] there.
 * start NULL: a thread the tracer adopted (not created through its hook: thrd_create, the real
 * pthread_create called through dlsym), whose start routine is not known, once its first stack
 * is captured: [the late frame] alone, resolved like a runtime's trampoline's, else to the
 * outermost frame of that first stack, the start routine. */
uint64_t stack_named(struct stack_thread *st, void *start);
/* start is known to be no runtime's trampoline (symbolize.c learns it when a late frame of a
 * thread it started resolves to nothing): from now on stack_named gives [start] alone, one stack
 * that every thread it starts shares, which symbolizes as the two-frame stack would. A small
 * lock-free set; full, it learns no more; stack_forget empties it. */
void stack_start_plain(void *start);
/* [fn]: the one-frame stack naming routine fn (stack_from_pcs of fn's entry + 1), without a
 * table lookup when fn is a plain start routine. */
uint64_t stack_routine(void *fn);
/* [main]: the process's main thread; stack_set_main gives main's address (for its line). */
uint64_t stack_named_main(void);
void stack_set_main(void *fn);
void *stack_main(void);
/* The ids of the first distinct stacks st's thread captured (flusher): their number (at most
 * STACK_FIRST), in *ids. */
int stack_first(const struct stack_thread *st, const uint64_t **ids);
int stack_enabled(void);
int stack_depth(uint64_t id); /* frames of a stack; 0 for id 0 or unknown */
/* The pcs of stack id (innermost first) in *pcs: their number, 0 for id 0 or unknown. */
int stack_pcs(uint64_t id, const uintptr_t **pcs);
void stack_mark(uint64_t id, uint64_t gen);
typedef void (*stack_visit_fn)(void *ctx, uint64_t id, const uintptr_t *pcs, int n);
void stack_foreach_marked(uint64_t gen, stack_visit_fn fn, void *ctx);
/* The tracer's semantic API functions live in this section: stack_capture skips every leading
 * frame inside it (and its own), and every other leading frame of the library's code but the
 * outermost (a helper between the hook and the API, a hook's .cold part, whatever the compiler
 * made of them: stack_own_addr), so the first frame kept is the hook that called the API. A
 * function the program calls that must not be the leaf itself carries it (the annotation API's
 * entry points: the program's call is the leaf), and a hook must not tail-call the API (its own
 * frame would vanish and the user's function would become the leaf). Linked into the program
 * (the unit tests), the library's code is not known: only this section is skipped. */
#define GOTRACE_API_FN __attribute__((section("gotrace_api"), noinline))
/* The tracer's trampolines live in this section; stacks stop at its frames. */
#define GOTRACE_TRAMPOLINE __attribute__((section("gotrace_tramp"), noinline, used))
#endif
