/* invariant.h: GT_ASSERT, the tracer's checked invariants (Go's tracer throws, LTTng warns).
 * Compiled in by `make DEBUG=1` and by the sanitizer builds (make test-asan, test-tsan); a no-op
 * otherwise, with its condition still type-checked and never evaluated.
 * Invariants: a failed check writes one "gotrace: invariant failed" line (file, line, the
 * condition) with async-signal-safe calls and aborts: it runs in debug builds only, where a
 * broken invariant must stop the test that found it, never in a user's build. */
#ifndef GOTRACE_INVARIANT_H
#define GOTRACE_INVARIANT_H

#if defined(GT_DEBUG_ASSERT) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GT_ASSERT_ON 1
#else
#define GT_ASSERT_ON 0
#endif

__attribute__((noreturn, cold)) void gt_assert_fail(const char *file, int line, const char *cond);

#define GT_ASSERT(cond)                                                                            \
    do {                                                                                           \
        if (GT_ASSERT_ON && __builtin_expect(!(cond), 0))                                          \
            gt_assert_fail(__FILE__, __LINE__, #cond);                                             \
    } while (0)
#endif
