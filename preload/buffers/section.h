/* section.h: the per-thread seqlock sections that every event is written in (writer.h).
 * A thread enters (seq becomes odd), reads the generation, writes into that generation's
 * buffers, leaves (seq becomes even). The flusher stores the new generation, calls
 * fence_sync(), then waits for every odd seq it reads to change. The pairing needs the
 * thread's seq store ordered before its generation load, and the flusher's generation store
 * before its seq loads: fence.h's asymmetric fence (one plain increment on the thread's side
 * where the kernel offers membarrier, else a locked add on both ends).
 * Leaving is a release on x86 (stores are not reordered with older stores) in either mode. The
 * generation is loaded with acquire (a plain load on x86): the flusher's release of a parity's
 * buffers happens before a thread writes that parity again, two switches later.
 * Invariants: sections are only entered by their owner thread (or a signal handler on it, which
 * leaves before it returns); an increment is one instruction, so a nested section on the same
 * thread still sees a whole update. */
#ifndef GOTRACE_SECTION_H
#define GOTRACE_SECTION_H
#include "fence.h"

#include <stdatomic.h>
#include <stdint.h>

static inline __attribute__((always_inline)) void sect_bump(_Atomic uint32_t *seq, int enter)
{
#if GT_FENCE_CAN_ASYM
    if (__builtin_expect(fence_asym, 1)) {
        __asm__ volatile("incl %0" : "+m"(*(uint32_t *)seq)::"memory");
        return;
    }
#endif
    atomic_fetch_add_explicit(seq, 1, enter ? memory_order_seq_cst : memory_order_release);
}

/* Enter: seq odd, then the caller may load the generation. */
static inline __attribute__((always_inline)) void sect_enter(_Atomic uint32_t *seq)
{
    sect_bump(seq, 1);
}

/* Leave: every event written before is visible to a flusher that sees seq change. */
static inline __attribute__((always_inline)) void sect_leave(_Atomic uint32_t *seq)
{
    sect_bump(seq, 0);
}
#endif
