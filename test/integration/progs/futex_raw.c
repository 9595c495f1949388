/* futex_raw.c: futex calls made through syscall(), as Rust's std and libstdc++ make them.
 * Thread `futex_waiter` waits on a word (FUTEX_WAIT_PRIVATE, the known wait) that main sets and
 * wakes after 300 ms; then checks the calls that do not block keep their exact result and
 * errno: a wait whose value is stale (EAGAIN), a wait with a 30 ms timeout (ETIMEDOUT), a wake
 * with no waiter (0). Then thread `requeued_waiter` waits on word `qa`; main moves it to word
 * `qb` (FUTEX_CMP_REQUEUE_PRIVATE, tried until the kernel says it moved one waiter: then it is
 * in its wait), and wakes it there 100 ms later. Prints "ok". */
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

static _Atomic uint32_t qa, qb, qdone;

static long requeue(_Atomic uint32_t *from, _Atomic uint32_t *to, uint32_t expect)
{
    return syscall(SYS_futex, from, FUTEX_CMP_REQUEUE_PRIVATE, 0, (long)1, to, expect);
}

static void *requeued_waiter(void *arg)
{
    (void)arg;
    while (!atomic_load(&qdone))
        futex(&qa, FUTEX_WAIT_PRIVATE, 0, NULL); /* the requeued wait */
    return NULL;
}

/* Whether a waiter on qa moved to qb and woken there returns: 1 if so. */
static int requeued(void)
{
    pthread_t th;
    pthread_create(&th, NULL, requeued_waiter, NULL);
    long moved;
    while ((moved = requeue(&qa, &qb, 0)) == 0)
        usleep(1000);
    usleep(100000);
    atomic_store(&qdone, 1);
    long woken = futex(&qb, FUTEX_WAKE_PRIVATE, 1, NULL);
    pthread_join(th, NULL);
    return moved == 1 && woken == 1;
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
    int q = requeued();
    printf("%s\n", r1 == -1 && e1 == EAGAIN && r2 == -1 && e2 == ETIMEDOUT && r3 == 0 && q
                       ? "ok"
                       : "wrong");
    return 0;
}
