/* threads.c: interposed thread lifecycle functions: __libc_start_main (to name and bound
 * the main thread), pthread_create, the pthread_join family, _exit.
 * Invariants: each hook returns exactly what the real function returns, with the same errno;
 * with tracing off or inside the tracer it only forwards. The trampolines are the outermost
 * tracer frames of every traced thread (section gotrace_tramp: stacks stop there). */
#include "hooks.h"
#include "plainlock.h"
#include "real.h"
#include "stack.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

/* ---- the main thread ---- */

static int (*app_main)(int, char **, char **);

/* The thread's record is tr_self(), not the one it started with: a forked child adopts its
 * forking thread anew. returned: from the start routine, to the trampoline (tracer.h). */
static inline void exit_self(int returned)
{
    struct gt_thread *t = tr_self();
    if (t) waitq_thread_exit(t, returned);
}

/* The cleanup handler: runs only when a thread leaves by unwinding (pthread_exit or
 * cancellation). A frame of its own, which test/tsan.supp names: TSan ignores the
 * synchronization of a thread cancelled inside one of its blocking interceptors. A trampoline,
 * so stacks captured below it end there, as below thread_trampoline. */
GOTRACE_TRAMPOLINE static void exit_unwinding(void *arg)
{
    (void)arg;
    exit_self(0);
    __asm__ volatile(""); /* keeps this frame: no tail call into the tracer */
}

GOTRACE_TRAMPOLINE static int main_trampoline(int argc, char **argv, char **envp)
{
    tr_main_start((void *)app_main);
    int r;
    pthread_cleanup_push(exit_unwinding, NULL);
    r = app_main(argc, argv, envp);
    pthread_cleanup_pop(0);
    __asm__ volatile("" : "+r"(r)); /* keeps this frame: no tail call into main */
    return r;
}

EXPORT int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
                             void (*init)(void), void (*fini)(void), void (*rtld_fini)(void),
                             void *stack_end)
{
    plainlock_init(); /* resolves the real functions first */
    app_main = main;
    stack_set_main((void *)main);
    return gt_real.libc_start_main(main_trampoline, argc, argv, init, fini, rtld_fini, stack_end);
}

/* ---- threads ---- */

GOTRACE_TRAMPOLINE static void *thread_trampoline(void *arg)
{
    void *start_arg;
    void *(*start)(void *) = tr_thread_start(arg, &start_arg);
    void *ret;
    pthread_cleanup_push(exit_unwinding, NULL);
    ret = start(start_arg);
    pthread_cleanup_pop(0);
    exit_self(1);
    __asm__ volatile("" : "+r"(ret));
    return ret;
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg)
{
    plainlock_threads_begin();
    tr_threads_begin(); /* the flusher thread first, if the program had one thread */
    struct gt_thread *self = tr_current();
    struct gt_thread *child = self ? tr_create_prepare(self, start, arg) : NULL;
    int r = REAL(pthread_create)(th, attr, child ? thread_trampoline : start, child ? child : arg);
    if (r != 0) {
        if (child) tr_create_failed(child);
        return r;
    }
    waitq_thread_created(*th, child); /* its handle may be an ended thread's (waitq.h) */
    if (child) tr_create_done(child, *th);
    return r;
}

/* ---- joins: try first; only a join that waits is a block, unless the thread's exit has
 * woken its joiners already (waitq.h: blocked and queued in one piece) ---- */

#define JOIN_HOOK(untimed, call_real)                                                              \
    struct gt_thread *self = tr_current();                                                         \
    if (!self) return call_real;                                                                   \
    int r = REAL(pthread_tryjoin_np)(th, ret);                                                     \
    if (r != EBUSY) return r;                                                                      \
    return WAIT_WITH(self, waitq_join_block(self, th, tr_thread_tid(th), untimed), (void)0,        \
                     waitq_remove(self), call_real)

EXPORT int pthread_join(pthread_t th, void **ret)
{
    JOIN_HOOK(1, REAL(pthread_join)(th, ret));
}

EXPORT int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abstime)
{
    JOIN_HOOK(0, REAL(pthread_timedjoin_np)(th, ret, abstime));
}

EXPORT int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clk,
                                const struct timespec *abstime)
{
    JOIN_HOOK(0, REAL(pthread_clockjoin_np)(th, ret, clk, abstime));
}

/* ---- _exit skips destructors: write the last generation first ---- */

EXPORT void _exit(int status)
{
    tr_shutdown();
    REAL(_exit)(status);
    __builtin_unreachable();
}

EXPORT void _Exit(int status)
{
    tr_shutdown();
    REAL(_Exit)(status);
    __builtin_unreachable();
}
