/* section.h: the per-thread seqlock sections that every event is written in (see tracer.c),
 * with an asymmetric fence: the thread's side is cheap, the flusher's side heavy.
 * A thread enters (seq becomes odd), reads the generation, writes into that generation's
 * buffers, leaves (seq becomes even). The flusher stores the new generation, calls
 * section_sync(), then waits for every odd seq it reads to change. The pairing needs the
 * thread's seq store ordered before its generation load (store-load, which x86 reorders), and
 * the flusher's generation store before its seq loads:
 *  - asymmetric (gt_sect_asym, set at start when the kernel offers it): the thread bumps seq
 *    with one plain instruction (no lock prefix: a signal handler nesting a section on the same
 *    thread still sees a whole update) and a compiler barrier; section_sync() is
 *    membarrier(PRIVATE_EXPEDITED), a full barrier on every CPU running one of our threads
 *    (a thread not running passed one when it was switched out). So either the flusher sees
 *    the odd seq, or the thread's generation load sees the new generation.
 *  - otherwise (no membarrier, another architecture, ThreadSanitizer, which does not see the
 *    asymmetric pairing): a locked add on both ends and section_sync() does nothing.
 * Leaving is a release on x86 (stores are not reordered with older stores) in either mode. The
 * generation is loaded with acquire (a plain load on x86): the flusher's release of a parity's
 * buffers happens before a thread writes that parity again, two switches later.
 * Invariants: gt_sect_asym only changes while no other thread can be inside a section (before
 * tracing starts, or in a fork child, single-threaded); sections are only entered by their
 * owner thread (or a signal handler on it). */
#ifndef GOTRACE_SECTION_H
#define GOTRACE_SECTION_H
#include <stdatomic.h>
#include <stdint.h>

#if defined(__SANITIZE_THREAD__)
#define GT_SECT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GT_SECT_TSAN 1
#endif
#endif
#if defined(__x86_64__) && !defined(GT_SECT_TSAN)
#define GT_SECT_CAN_ASYM 1
#else
#define GT_SECT_CAN_ASYM 0
#endif

extern int gt_sect_asym;

static inline __attribute__((always_inline)) void sect_bump(_Atomic uint32_t *seq, int enter)
{
#if GT_SECT_CAN_ASYM
    if (__builtin_expect(gt_sect_asym, 1)) {
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

/* At start (before any section) and in a fork child: picks the mode. */
void section_init(void);
/* Flusher, after storing a new generation and before reading seqs: 0, or -1 if the fence
 * failed (the caller must not trust the seqs it reads). */
int section_sync(void);
#endif
