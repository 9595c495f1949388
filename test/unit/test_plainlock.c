/* test_plainlock.c: the hooks' own take and release of glibc's default mutex (plainlock.h):
 * the start-up check accepts this glibc, what the take writes is what glibc's functions read
 * (trylock, unlock, destroy, owner), other mutex types are left to glibc, and the lone mode
 * takes and releases with plain stores until another thread is about to exist. */
#include "plainlock.h"
#include "real.h"
#include "fence.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <unistd.h>

static void start(void)
{
    plainlock_init(); /* resolves the real functions first */
    plainlock_thread_start();
}

Test(plainlock, glibc_is_accepted_and_each_thread_has_its_tid, .init = start)
{
    cr_assert_eq(plainlock_tid, gettid(), "the path is on for glibc 2.36 with its own functions");
}

Test(plainlock, take_is_what_glibc_reads, .init = start)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    cr_assert_eq(plainlock_try(&m), 0);
    cr_assert_eq(m.__data.__lock, 1);
    cr_assert_eq(m.__data.__owner, gettid());
    cr_assert_eq(m.__data.__nusers, 1);
    cr_assert_eq(pthread_mutex_destroy(&m), EBUSY, "glibc sees a held mutex");
    cr_assert_eq(gt_real.pthread_mutex_trylock(&m), EBUSY);
    cr_assert_eq(plainlock_try(&m), EBUSY);
    cr_assert_eq(plainlock_unlock(&m), PLAINLOCK_OTHER, "not alone: glibc's unlock releases");
    cr_assert_eq(gt_real.pthread_mutex_unlock(&m), 0);
    cr_assert(m.__data.__lock == 0 && m.__data.__owner == 0 && m.__data.__nusers == 0);
    cr_assert_eq(pthread_mutex_destroy(&m), 0);
}

Test(plainlock, other_types_are_glibcs, .init = start)
{
    static const int types[] = {PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK};
    for (unsigned i = 0; i < sizeof types / sizeof types[0]; i++) {
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_settype(&a, types[i]);
        pthread_mutex_t m;
        pthread_mutex_init(&m, &a);
        cr_assert_eq(plainlock_try(&m), PLAINLOCK_OTHER, "type %d", types[i]);
        cr_assert_eq(m.__data.__lock, 0, "untouched");
    }
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_t m;
    pthread_mutex_init(&m, &a);
    cr_assert_eq(plainlock_try(&m), PLAINLOCK_OTHER, "robust");
}

static void *nothing(void *arg)
{
    return arg;
}

/* No plainlock_thread_start first: the lone thread gets its TID from plainlock_lone_begin,
 * which needs fence_init's fence. */
static void start_lone(void)
{
    plainlock_init(); /* resolves the real functions first */
    fence_init();
}

Test(plainlock, lone_mode_until_a_second_thread, .init = start_lone)
{
    plainlock_lone_begin(1); /* as if alone: only this thread touches m */
    cr_assert_eq(plainlock_lone_tid, gettid());
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    cr_assert_eq(plainlock_try(&m), 0);
    cr_assert(m.__data.__lock == 1 && m.__data.__owner == gettid() && m.__data.__nusers == 1);
    cr_assert_eq(gt_real.pthread_mutex_trylock(&m), EBUSY);
    cr_assert_eq(plainlock_unlock(&m), 0, "the lone thread releases with plain stores");
    cr_assert(m.__data.__lock == 0 && m.__data.__owner == 0 && m.__data.__nusers == 0);
    cr_assert_eq(plainlock_lone_busy, 0);

    plainlock_threads_begin(); /* what the pthread_create hook does first */
    cr_assert_eq(plainlock_lone_tid, 0, "over before the thread exists");
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, nothing, NULL), 0);
    pthread_join(t, NULL);
    cr_assert_eq(plainlock_try(&m), 0);
    cr_assert_eq(plainlock_unlock(&m), PLAINLOCK_OTHER, "glibc's unlock once not alone");
    cr_assert_eq(gt_real.pthread_mutex_unlock(&m), 0);
    plainlock_lone_begin(1);
    cr_assert_eq(plainlock_lone_tid, 0, "never alone again");
}
