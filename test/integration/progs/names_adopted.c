/* names_adopted.c: threads the tracer does not see being created, each adopted at its first
 * hooked call: C11's thrd_create (glibc calls its internal pthread_create) and the real
 * pthread_create that a library (libnames_adopted_lib.so, as jemalloc) calls through
 * dlsym(RTLD_NEXT). worker_c11 and worker_rtld first sleep (nap: nanosleep); namer_setname and
 * namer_prctl first name themselves (pthread_setname_np, prctl(PR_SET_NAME)), and main names the
 * last one with pthread_setname_np while it may still be starting. One thread at a time, each
 * joined before the next starts. Prints "ok"; exit 99 if a call fails. */
#include "common.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <threads.h>

int lib_create(pthread_t *th, void *(*start)(void *), void *arg);

static void nap(void)
{
    struct timespec ts = {0, 1000000};
    CHECK(nanosleep(&ts, NULL));
}

static int worker_c11(void *arg)
{
    nap();
    return arg != NULL;
}

static void *worker_rtld(void *arg)
{
    nap();
    return arg;
}

static int namer_setname(void *arg)
{
    CHECK(pthread_setname_np(pthread_self(), "by-setname"));
    nap();
    return arg != NULL;
}

static void *namer_prctl(void *arg)
{
    CHECK(prctl(PR_SET_NAME, "by-prctl", 0, 0, 0));
    nap();
    return arg;
}

static void c11_thread(thrd_start_t fn)
{
    thrd_t t;
    int r;
    if (thrd_create(&t, fn, NULL) != thrd_success || thrd_join(t, &r) != thrd_success || r) {
        fprintf(stderr, "thrd_create or thrd_join failed\n");
        exit(99);
    }
}

int main(void)
{
    c11_thread(worker_c11);
    pthread_t th;
    CHECK(lib_create(&th, worker_rtld, NULL));
    CHECK(pthread_join(th, NULL));
    c11_thread(namer_setname);
    CHECK(lib_create(&th, namer_prctl, NULL));
    CHECK(pthread_setname_np(th, "by-main"));
    CHECK(pthread_join(th, NULL));
    puts("ok");
    return 0;
}
