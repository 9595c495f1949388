/* process.c: interposed process-level functions. Descriptors: close_range, closefrom,
 * dup2 and dup3 leave the tracer's kept descriptors alone (fds.h; close is hooked in
 * hooks/syscalls.c), and pipe2 called for the tracer (libunwind's validation pipe) puts the
 * pipe at high numbers. Ends: abort and __assert_fail write the complete generations first
 * (a flush, not the final write: a SIGABRT handler may longjmp and the program go on).
 * Keys: pthread_key_create called for the tracer takes the highest free key below 32.
 * Invariants: to the program a kept descriptor does not exist (dup2/dup3 from it fail with
 * EBADF, onto it succeed after it moved away, a range close skips it); each hook otherwise
 * returns what the real function returns, with its errno. Nothing here changes a signal
 * disposition, mask or resource limit. */
#include "fds.h"
#include "hooks.h"
#include "real.h"
#include "stack.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
    return fds_close_range(lo, hi, flags, REAL(close_range));
}

/* glibc's closefrom closes with close_range and falls back to /proc/self/fd on kernels
 * without it (< 5.9); the fallback cannot skip ours and is used only then. */
EXPORT void closefrom(int lo)
{
    int saved = errno;
    if (fds_close_range(lo < 0 ? 0 : (unsigned)lo, ~0U, 0, REAL(close_range)) != 0 &&
        errno == ENOSYS)
        REAL(closefrom)(lo);
    errno = saved;
}

#define DUP_HOOK(from, to, call)                                                                   \
    if (!fds_dup_allowed(from, to)) {                                                              \
        errno = EBADF;                                                                             \
        return -1;                                                                                 \
    }                                                                                              \
    return call

EXPORT int dup2(int from, int to)
{
    DUP_HOOK(from, to, REAL(dup2)(from, to));
}

EXPORT int dup3(int from, int to, int flags)
{
    DUP_HOOK(from, to, REAL(dup3)(from, to, flags));
}

EXPORT int pipe2(int fds[2], int flags)
{
    int r = REAL(pipe2)(fds, flags);
    if (r == 0 && tr_inside()) {
        fds[0] = fds_keep(fds[0], NULL);
        fds[1] = fds_keep(fds[1], NULL);
    }
    return r;
}

/* glibc keeps a thread's values of keys below this in the thread itself; a higher key's first
 * pthread_setspecific in a thread allocates (calloc), which a signal handler must not do. */
#define KEYS_IN_THREAD 32

/* A key created for the tracer (libunwind's per-thread cache, set from whatever context a
 * thread first falls back in, signal handlers included) takes the highest free number below
 * KEYS_IN_THREAD, so the program's first 31 keys are numbered as untraced: take free keys
 * (glibc gives the lowest) up to that one, keep it, give back the others. If the program holds
 * all of them, the lowest free key. The stack module learns it (stack.h, stack_key_created). */
EXPORT int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
    if (!tr_inside()) return REAL(pthread_key_create)(key, destructor);
    pthread_key_t taken[KEYS_IN_THREAD];
    int n = 0;
    while (n < KEYS_IN_THREAD && REAL(pthread_key_create)(&taken[n], destructor) == 0)
        if (taken[n++] >= KEYS_IN_THREAD - 1) break;
    if (n == 0) return EAGAIN;
    int keep = n - 1;
    if (taken[keep] >= KEYS_IN_THREAD && keep > 0) keep--; /* the highest below the limit */
    *key = taken[keep];
    for (int i = 0; i < n; i++)
        if (i != keep) REAL(pthread_key_delete)(taken[i]);
    stack_key_created(*key);
    return 0;
}

EXPORT void abort(void)
{
    tr_flush_now();
    REAL(abort)();
    __builtin_unreachable();
}

EXPORT void __assert_fail(const char *expr, const char *file, unsigned line, const char *fn)
{
    tr_flush_now();
    REAL(__assert_fail)(expr, file, line, fn);
    __builtin_unreachable();
}
