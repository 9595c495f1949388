/* fence.h: the asymmetric fence between the threads that write events and the flusher (the
 * seqlock sections of section.h) and between the lone thread and the thread that ends the lone
 * mode (plainlock.h). A writer needs its store of a counter ordered before its next load
 * (store-load, which x86 reorders); the other side needs the same after its own store:
 *  - asymmetric (fence_asym, decided by fence_init when the kernel offers it): the writer's side
 *    is one plain instruction and a compiler barrier; fence_sync() is
 *    membarrier(PRIVATE_EXPEDITED), a full barrier on every CPU running one of our threads (a
 *    thread not running passed one when it was switched out);
 *  - otherwise (no membarrier, another architecture, ThreadSanitizer, which does not see the
 *    asymmetric pairing): the writer uses locked instructions and fence_sync() does nothing.
 * Invariants: fence_asym only changes while no other thread can be inside a section (before
 * tracing starts, or in a fork child, single-threaded). */
#ifndef GOTRACE_FENCE_H
#define GOTRACE_FENCE_H

#if defined(__SANITIZE_THREAD__)
#define GT_FENCE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GT_FENCE_TSAN 1
#endif
#endif
#if defined(__x86_64__) && !defined(GT_FENCE_TSAN)
#define GT_FENCE_CAN_ASYM 1
#else
#define GT_FENCE_CAN_ASYM 0
#endif

extern int fence_asym;

/* At start (before any section) and in a fork child: picks the mode. */
void fence_init(void);
/* The heavy side, after its store and before its loads: 0, or -1 if the fence failed (the
 * caller must not trust what it reads). */
int fence_sync(void);
#endif
