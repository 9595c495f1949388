/* cfi.h: the unwind rule of one code address, read from its object's DWARF call-frame
 * information (.eh_frame, found through .eh_frame_hdr). x86_64 only.
 * A rule says how to find the caller's frame from this one: the canonical frame address (CFA)
 * is RSP or RBP plus an offset, the return address is stored at CFA - 8, and RBP is either
 * unchanged or saved at CFA - 8 * bp_slot. A signal frame (the kernel's return trampoline, whose
 * CIE says 'S') is CFI_SIGNAL and code that no FDE covers CFI_NO_INFO: the walker has its own
 * steps for both (walk.c). Anything else (a CFA from another register or an expression) is
 * CFI_COMPLEX: the general unwinder must handle it.
 * Invariants: cfi_rule_for only reads the loaded objects' mapped, read-only unwind tables (found
 * with _dl_find_object, which is lock-free and async-signal-safe); it never allocates, locks or
 * writes, so it may run in a signal handler or while another thread loads a library. */
#ifndef GOTRACE_CFI_H
#define GOTRACE_CFI_H
#include <stddef.h>
#include <stdint.h>

enum cfi_kind {
    CFI_NONE = 0,  /* not a rule (an empty cache slot) */
    CFI_CFA_SP,    /* CFA = RSP + cfa_off */
    CFI_CFA_BP,    /* CFA = RBP + cfa_off */
    CFI_OUTERMOST, /* the return address is undefined: the first frame of a thread */
    CFI_COMPLEX,   /* not expressible here */
    CFI_SIGNAL,    /* a signal frame: the caller's registers are in the frame's ucontext */
    CFI_NO_INFO,   /* no FDE covers the address (code without CFI, or not in a loaded object) */
};

struct cfi_rule {
    uint8_t kind;     /* enum cfi_kind */
    uint16_t bp_slot; /* 0: RBP unchanged; k: the caller's RBP is at CFA - 8k */
    uint32_t cfa_off; /* < CFI_MAX_CFA_OFF */
};

#define CFI_MAX_CFA_OFF (1u << 20)
#define CFI_MAX_BP_SLOT 511u

/* The rule in force at code address pc (an exact instruction address: for a return address
 * pass ra - 1). */
struct cfi_rule cfi_rule_for(uintptr_t pc);

/* The last entry of an .eh_frame_hdr search table t (count {initial location, FDE} pairs of
 * int32, sorted by location) whose location is <= rel, given t[0] <= rel. Code addresses are
 * spread evenly enough that an interpolation guess lands a few entries away: a few cache lines
 * of a large table (libpython's: 120 KB) are read, where a binary search reads one per halving,
 * and in a short process each is a miss. Exposed for the unit tests. */
uint64_t cfi_fde_index(const int32_t *t, uint64_t count, intptr_t rel);

/* The rule in force at pc inside the function whose FDE starts at fde (an .eh_frame entry);
 * exposed for the unit tests, which feed hand-made CIE/FDE bytes. */
struct cfi_rule cfi_rule_from_fde(const unsigned char *fde, uintptr_t pc);
#endif
