/* log.h: the tracer's only output to the user: "gotrace: " lines on stderr.
 * Invariants: async-signal-safe (vsnprintf into a stack buffer, one write(2) on fd 2 through
 * the raw syscall); never allocates; errno is preserved across every call. gt_warn_once prints
 * a given warning at most once per process (the caller passes a static flag). gt_assert_fail
 * (invariant.h's GT_ASSERT, debug builds only) logs the broken invariant and aborts. */
#ifndef GOTRACE_LOG_H
#define GOTRACE_LOG_H
#include <stdatomic.h>

void gt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Debug lines, only when GOTRACE_DEBUG=1. */
void gt_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gt_log_set_debug(int on);
#define gt_warn_once(flag, ...)                                                                    \
    do {                                                                                           \
        static atomic_int flag;                                                                    \
        if (!atomic_exchange_explicit(&flag, 1, memory_order_relaxed)) gt_log(__VA_ARGS__);        \
    } while (0)
#endif
