/* futex.c: futex calls made through syscall(): where Rust's std (Mutex, Condvar, RwLock, mpsc,
 * thread::park), libstdc++'s C++20 waits (atomic wait/notify, counting_semaphore, latch,
 * barrier), absl and LLVM's libomp block. A wait that may block is a sync wait (reason
 * "sync: futex", named after the futex word as lock identity names objects, syncobj.h), queued
 * on the word; a wake wakes, with the waker's stack, the traced waiters queued on the word
 * before it: all of them before the real call when it wakes at least as many, else as many as
 * the kernel woke, oldest first, after it; the waiters a requeue moved (the rest of its count)
 * are queued on the second word from then on, so that its wakes name their waker. A wake that
 * wakes traced waiters is recorded as a release of the word (tr_released): for a lock on a
 * futex word (Rust's std Mutex and RwLock) the waker is the holder that just unlocked, and
 * the decoder blames the waits on it (syncobj_encode.h names such words as the lock). glibc's own
 * futex calls are inline system calls and never come here (its locks are traced by
 * hooks/sync.c). A plain wake without FUTEX_PRIVATE_FLAG that the kernel says woke more threads
 * than were queued here, on a word in a shared mapping, writes a gotrace.post log for a merged
 * trace to link the other processes' waits by (post_others).
 * Invariants: the real call is made exactly once, with the program's arguments, and its result
 * and errno are the caller's; a wait that cannot block (the word no longer holds the expected
 * value, an unowned PI lock, a zero timeout) and every other operation are only forwarded;
 * these functions are in section gotrace_api, so the stack of a wait or wake begins at
 * syscall(), the hook, and goes on in the program. */
#include "futex.h"

#include "hooks.h"
#include "real.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

static long real_futex(const long a[6])
{
    return REAL(syscall)(SYS_futex, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static int is_wait(int cmd)
{
    return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_WAIT_REQUEUE_PI ||
           cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2;
}

static int is_wake(int cmd)
{
    return cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET || cmd == FUTEX_REQUEUE ||
           cmd == FUTEX_CMP_REQUEUE || cmd == FUTEX_WAKE_OP || cmd == FUTEX_UNLOCK_PI ||
           cmd == FUTEX_CMP_REQUEUE_PI;
}

/* An operation that moves the waiters it does not wake to the second word (a[4]). */
static int is_requeue(int cmd)
{
    return cmd == FUTEX_REQUEUE || cmd == FUTEX_CMP_REQUEUE || cmd == FUTEX_CMP_REQUEUE_PI;
}

/* The word's owner for a PI lock (a TID), else 0; -1 when the wait cannot block. The kernel
 * reads the word first too: a wait whose word changed returns EAGAIN at once. */
static int64_t wait_holder(int cmd, const long a[6])
{
    const uint32_t *word = (const uint32_t *)a[0];
    const struct timespec *ts = (const struct timespec *)a[3];
    if (!word || ((uintptr_t)word & 3) || (ts && !ts->tv_sec && !ts->tv_nsec)) return -1;
    uint32_t v = __atomic_load_n(word, __ATOMIC_RELAXED);
    if (cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2)
        return (v & FUTEX_TID_MASK) ? (int64_t)(v & FUTEX_TID_MASK) : -1;
    return v == (uint32_t)a[2] ? 0 : -1;
}

GOTRACE_API_FN static long futex_wait(int cmd, const long a[6])
{
    int64_t holder = wait_holder(cmd, a);
    struct gt_thread *self = holder >= 0 ? tr_current() : NULL;
    if (!self) return real_futex(a);
    return WAIT_ON(self, (void *)a[0], GT_R_FUTEX, holder, real_futex(a));
}

/* Threads the kernel woke at the first word: its count for the wakes, the wake part of a
 * requeue (at most a[2]; the rest of its count was requeued), one for a PI unlock that
 * succeeded. */
static long woken_at_first(int cmd, const long a[6], long r)
{
    if (cmd == FUTEX_UNLOCK_PI) return r == 0;
    if (r <= 0) return 0;
    if (cmd == FUTEX_REQUEUE || cmd == FUTEX_CMP_REQUEUE || cmd == FUTEX_CMP_REQUEUE_PI ||
        cmd == FUTEX_WAKE_OP)
        return r < a[2] ? r : a[2];
    return r;
}

/* A plain wake of at least as many threads as are queued on the word wakes them all: they are
 * woken in the trace before the real call, while they still wait (after it, a waiter the
 * kernel woke may end its wait first, and the waker would go unnamed). */
static int wakes_all_queued(int cmd, const long a[6], void *key)
{
    if (cmd != FUTEX_WAKE && cmd != FUTEX_WAKE_BITSET) return 0;
    int n = waitq_count(key);
    return n > 0 && n <= a[2];
}

/* A plain wake without FUTEX_PRIVATE_FLAG: its word may be in shared memory and its sleepers
 * in other processes, whom this tracer cannot wake (docs/processes.md). */
static int may_wake_others(int cmd, const long a[6])
{
    return (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_BITSET) && !(a[1] & FUTEX_PRIVATE_FLAG);
}

/* After such a wake, timed ts (0: not such a wake), that woke r threads while `here` were
 * queued on its word in this process: when it woke more, the others slept elsewhere (another
 * process, or a thread that waited untraced), and a word in a shared mapping gets a
 * gotrace.post log naming it as its waits name it, which a merged trace links them by
 * (tr_post_shared: one read of /proc/self/maps, paid only then). */
static void post_others(const long a[6], uint64_t ts, long r, int here)
{
    struct gt_thread *self = ts && r > here ? tr_current() : NULL;
    if (self) tr_post_shared(self, "futex", (const void *)a[0], ts);
}

GOTRACE_API_FN static long futex_wake(int cmd, const long a[6])
{
    uint64_t ts = may_wake_others(cmd, a) ? tr_clock() : 0; /* at the call's start */
    void *key = (void *)a[0], *key2 = cmd == FUTEX_WAKE_OP ? (void *)a[4] : NULL;
    int queued = waitq_has_waiters(key) || (key2 && waitq_has_waiters(key2));
    struct gt_thread *self = queued ? tr_current() : NULL;
    if (!self) {
        long r = real_futex(a);
        post_others(a, ts, r, 0);
        return r;
    }
    int here = ts ? waitq_count(key) : 0;
    unsigned adds = waitq_adds(key), adds2 = key2 ? waitq_adds(key2) : 0;
    uint64_t stk = tr_stack();
    if (wakes_all_queued(cmd, a, key)) {
        tr_released(self, key, stk);
        waitq_wake_before(key, self, stk, adds, INT_MAX);
        long r = real_futex(a);
        post_others(a, ts, r, here);
        return r;
    }
    long r = real_futex(a);
    int saved = errno;
    long first = woken_at_first(cmd, a, r);
    if (first > 0) {
        tr_released(self, key, stk);
        waitq_wake_before(key, self, stk, adds, (int)first);
    }
    if (key2 && r > first) waitq_wake_before(key2, self, stk, adds2, (int)(r - first));
    if (is_requeue(cmd) && r > first) waitq_requeue(key, (void *)a[4], adds, (int)(r - first));
    post_others(a, ts, r, here);
    errno = saved;
    return r;
}

/* futex_waitv: a wait on several words, queued on the first (a wake of another one is not
 * matched: that waiter then ends its wait itself). */
struct waitv {
    uint64_t val, uaddr;
    uint32_t flags, reserved;
};

GOTRACE_API_FN static long futex_waitv(const long a[6])
{
    const struct waitv *w = (const struct waitv *)a[0];
    const struct timespec *ts = (const struct timespec *)a[3];
    long nr = SYS_futex_waitv;
    int may = w && a[1] > 0 && !(ts && !ts->tv_sec && !ts->tv_nsec);
    struct gt_thread *self = may ? tr_current() : NULL;
    if (!self) return REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    return WAIT_ON(self, (void *)(uintptr_t)w[0].uaddr, GT_R_FUTEX, 0,
                   REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
}

GOTRACE_API_FN int futex_call(long nr, const long a[6], long *r)
{
#ifdef SYS_futex_waitv
    if (nr == SYS_futex_waitv) {
        *r = futex_waitv(a);
        return 1;
    }
#endif
    if (nr != SYS_futex) return 0;
    int cmd = (int)(a[1] & FUTEX_CMD_MASK);
    if (is_wait(cmd))
        *r = futex_wait(cmd, a);
    else if (is_wake(cmd))
        *r = futex_wake(cmd, a);
    else
        return 0;
    return 1;
}
