/* walk.h: the fast stack walker: follows the return-address chain with the unwind rule of
 * each frame (cfi.h), kept in a process-wide cache keyed by code address. x86_64.
 * Invariants: a walk never allocates, locks or makes a system call once every rule it needs is
 * cached (a miss reads the unwind tables, see cfi.h), except at a frame without CFI; it is
 * async-signal-safe; it reads only stack slots that the frames' CFI names, the ucontext of a
 * signal frame (the CFI of the kernel's return trampoline names those slots too) and, at a
 * frame without CFI, the frame-pointer slots the kernel found readable. A walk that meets a
 * frame it cannot model (a CFA from an expression, code without CFI that keeps no frame
 * pointer) stops there with -1 - n, n frames walked, and the caller may fall back to the
 * general unwinder (libunwind). The cache is forgotten when a library is unloaded
 * (walk_forget), since another may later be mapped at its addresses. */
#ifndef GOTRACE_WALK_H
#define GOTRACE_WALK_H
#include <stddef.h>
#include <stdint.h>

struct walk_regs {
    uintptr_t pc; /* an exact instruction address (the first frame's rule is looked up at pc) */
    uintptr_t sp, bp;
};

/* A walk can be recorded as the list of stack slots it read, in order: ra slots (off, the
 * value), saved-RBP slots whose value a later frame's CFA used (off | 1, the value minus the
 * base) and the RBP register (off WALK_BP_REG, RBP minus the base); offsets are from the
 * base, the CFA of the walking function. Every check's address follows from the checks before
 * it (the rules depend on pcs alone), so while the first i checks hold, check i reads a live
 * slot of the current stack, and if all hold the walk would give the same pcs. */
#define WALK_MAX_CHECKS 48
#define WALK_BP_REG ((intptr_t)-1)
struct walk_check {
    intptr_t off;
    uintptr_t want;
};
struct walk_chain {
    int n;                                /* checks; -1: too many to record */
    struct walk_check c[WALK_MAX_CHECKS]; /* first: n and the first checks share a line */
    uint8_t frame[WALK_MAX_CHECKS];       /* index in pcs of the frame each check leads to */
};

/* Reads n bytes at addr into dst through the kernel (process_vm_readv), which refuses an address
 * that is not readable, where a load would fault: 0, or -1 if it refused or may not be asked (a
 * seccomp filter could kill the process for the call). A system call each time. */
int walk_peek(void *dst, uintptr_t addr, size_t n);
/* Sets up the rule cache (an anonymous mapping); 0 on success. Without it every walk reads the
 * tables (correct, slower). Idempotent. */
int walk_init(void);
/* The return addresses of the frames enclosing regs, innermost first, at most max; regs.pc
 * itself is not stored; the frame of a signal gives the exact pc it interrupted plus one. The
 * count, or -1 - n if the frame after the first n needs the general unwinder (walk_partial). */
int walk_stack(struct walk_regs regs, uintptr_t *pcs, int max);
/* How far walk_here goes: at most max frames, and at most keep after its leading frames, those
 * whose return address minus one lies in [lead_lo, lead_hi) (the walking code's own, which its
 * caller drops): a walk stops at the last frame its caller keeps. */
struct walk_limit {
    int max, keep;
    uintptr_t lead_lo, lead_hi;
};
/* Same as walk_stack, from inside this function: pcs[0] is the return address into
 * walk_here's caller. If rec, records the walk into it (rec->n = -1 if it does not fit), with
 * offsets from walk_here's CFA and without the check of pcs[0]; a walk through a signal frame
 * or a frame without CFI is not recorded (rec->n = -1). */
int walk_here(uintptr_t *pcs, struct walk_limit lim, struct walk_chain *rec);
/* The frames a walk that returned r got before it stopped: all of them if r >= 0. */
static inline int walk_partial(int r)
{
    return r >= 0 ? r : -1 - r;
}
/* Drops every cached rule (after a library is unloaded). */
void walk_forget(void);
#endif
