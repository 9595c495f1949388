/* lone_wake.c: the program's only thread posts a semaphore on which a second thread waits, a
 * thread created inside glibc (thrd_create: unhooked, so the tracer's lone mode, plainlock.h, is
 * still on when it starts) whose sem_wait is its first call through a hook. The main thread
 * posts only once the waiter sleeps in a futex call on the semaphore itself
 * (/proc/self/task/TID/syscall: number and first argument), so the post is what ends the wait.
 * Prints "ok"; exit 99 if a call fails. */
#include "common.h"

#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* Whether thread tid is blocked in the futex system call on the word at addr. */
static int in_futex(int tid, const void *addr)
{
    char path[64], buf[256] = "";
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char *end;
    int ok = fgets(buf, sizeof buf, f) && strtol(buf, &end, 10) == SYS_FUTEX_NR &&
             strtoull(end, NULL, 16) == (unsigned long long)(uintptr_t)addr;
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
    while (!in_futex(tid, &go))
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
