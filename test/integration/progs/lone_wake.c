/* lone_wake.c: the program's only thread posts a semaphore on which a second thread waits, a
 * thread created inside glibc (thrd_create: unhooked, so the tracer's lone mode, plainlock.h, is
 * still on when it starts) whose sem_wait is its first call through a hook. The main thread
 * posts only once the waiter sleeps in the futex call (/proc/self/task/TID/syscall), so the
 * post is what ends the wait. Prints "ok"; exit 99 if a call fails. */
#include "common.h"

#include <semaphore.h>
#include <stdatomic.h>
#include <threads.h>
#include <unistd.h>

#define SYS_FUTEX_NR 202 /* x86_64 */

static sem_t go;
static atomic_int waiter_tid;

static int waiter(void *arg)
{
    (void)arg;
    atomic_store(&waiter_tid, (int)gettid());
    return sem_wait(&go);
}

/* Whether thread tid is blocked in the futex system call. */
static int in_futex(int tid)
{
    char path[64], buf[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(buf, sizeof buf, f) && atoi(buf) == SYS_FUTEX_NR;
    fclose(f);
    return ok;
}

int main(void)
{
    CHECK(sem_init(&go, 0, 0));
    thrd_t t;
    if (thrd_create(&t, waiter, NULL) != thrd_success) {
        fprintf(stderr, "thrd_create failed\n");
        return 99;
    }
    int tid;
    while (!(tid = atomic_load(&waiter_tid)))
        ;
    while (!in_futex(tid))
        ;
    CHECK(sem_post(&go));
    int r;
    if (thrd_join(t, &r) != thrd_success || r != 0) {
        fprintf(stderr, "thrd_join failed\n");
        return 99;
    }
    puts("ok");
    return 0;
}
