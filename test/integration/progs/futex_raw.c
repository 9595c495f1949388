/* futex_raw.c: futex calls made through syscall(), as Rust's std and libstdc++ make them.
 * Thread `futex_waiter` waits on a word (FUTEX_WAIT_PRIVATE, the known wait) that main sets and
 * wakes after 300 ms; then checks the calls that do not block keep their exact result and
 * errno: a wait whose value is stale (EAGAIN), a wait with a 30 ms timeout (ETIMEDOUT), a wake
 * with no waiter (0). Prints "ok". */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic uint32_t word, ready;

static long futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

static void *futex_waiter(void *arg)
{
    (void)arg;
    atomic_store(&ready, 1);
    while (atomic_load(&word) == 0)
        futex(&word, FUTEX_WAIT_PRIVATE, 0, NULL); /* the known wait */
    return NULL;
}

int main(void)
{
    pthread_t th;
    pthread_create(&th, NULL, futex_waiter, NULL);
    while (!atomic_load(&ready))
        usleep(1000);
    usleep(300000);
    atomic_store(&word, 1);
    futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL);
    pthread_join(th, NULL);
    errno = 0;
    long r1 = futex(&word, FUTEX_WAIT_PRIVATE, 0, NULL); /* the word is 1: EAGAIN */
    int e1 = errno;
    struct timespec ts = {0, 30000000};
    long r2 = futex(&word, FUTEX_WAIT_PRIVATE, 1, &ts);
    int e2 = errno;
    long r3 = futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL);
    printf("%s\n", r1 == -1 && e1 == EAGAIN && r2 == -1 && e2 == ETIMEDOUT && r3 == 0 ? "ok"
                                                                                  : "wrong");
    return 0;
}
