/* test_handoff.c: the seqlock / generation hand-off under load. Threads block, wake each other
 * (and race to unblock themselves) and make syscalls through the tracer API while the flusher
 * switches generations (every 10 ms, and 20 times on demand); the file must pass Go's validator and
 * hold exactly the blocks the API reported, across many generations. */
#include "section.h"
#include "tracer.h"
#include "tracing.h"
#include "waitq.h"

#include <criterion/criterion.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROUNDS 3000

static atomic_int turn;
static atomic_int blocks;

static void *player(void *arg)
{
    int me = (int)(intptr_t)arg;
    struct gt_thread *self = tr_current();
    cr_assert_not_null(self, "a thread first seen registers itself");
    for (int k = 0; k < ROUNDS; k++) {
        if (atomic_load(&turn) != me) {
            int traced = tr_block(self, GT_R_CONDVAR);
            if (traced) {
                atomic_fetch_add(&blocks, 1);
                waitq_add(&turn, self);
            }
            while (atomic_load(&turn) != me)
                sched_yield();
            if (traced) {
                waitq_remove(self);
                tr_unblock(self);
            }
        }
        if (tr_syscall_begin(self)) {
            (void)getppid();
            tr_syscall_end(self);
        }
        atomic_store(&turn, 1 - me);
        if (waitq_has_waiters(&turn)) waitq_wake(&turn, self, tr_stack(), 1);
    }
    waitq_thread_exit(self, 0);
    return NULL;
}

static int run(const char *cmd)
{
    int r = system(cmd);
    return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

/* The whole hand-off, with the sections in the mode the tracer picked, or forced to the locked
 * mode (fence.h) before any thread entered one. */
static void handoff(int locked)
{
    char path[] = "/tmp/gotrace-handoff-XXXXXX";
    setenv("GOTRACE_PERIOD_MS", "10", 1);
    tracing_start(path);
    cr_assert(state_tracing(), "tracing started");
    if (locked) fence_asym = 0;
    cr_assert_not_null(tr_current(), "the test thread is traced: every switch has its status");
    pthread_t a, b;
    pthread_create(&a, NULL, player, (void *)0);
    pthread_create(&b, NULL, player, (void *)1);
    for (int i = 0; i < 20; i++)
        tr_flush_now(); /* switches while the players play */
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    tr_shutdown();

    char cmd[512];
    snprintf(cmd, sizeof cmd, "build/tools/gotracevalidate < %s", path);
    cr_assert_eq(run(cmd), 0, "gotracevalidate accepts %s", path);
    snprintf(cmd, sizeof cmd,
             "test \"$(/usr/lib/go-1.23/bin/go tool trace -d=1 %s | grep -c 'Running->Waiting')\" "
             "-eq %d",
             path, atomic_load(&blocks));
    cr_assert_eq(run(cmd), 0, "one GoBlock per reported block (%d)", atomic_load(&blocks));
    snprintf(cmd, sizeof cmd,
             "test \"$(/usr/lib/go-1.23/bin/go tool trace -d=1 %s | grep -c 'Running->NotExist')\" "
             "-eq 2",
             path);
    cr_assert_eq(run(cmd), 0, "both players exit");
    snprintf(cmd, sizeof cmd,
             "test \"$(build/tools/gotraceraw bytes2text < %s | grep -c '^Frequency')\" -ge 20",
             path);
    cr_assert_eq(run(cmd), 0, "several generations");
    unlink(path);
}

Test(handoff, generations_switch_under_load, .timeout = 120)
{
    handoff(0);
}

Test(handoff, locked_sections, .timeout = 120)
{
    handoff(1);
}

/* Where the kernel offers the expedited membarrier, the tracer uses it (cheap sections). */
Test(handoff, asymmetric_where_membarrier_works)
{
    int can = GT_FENCE_CAN_ASYM &&
              syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    fence_init();
    cr_assert_eq(fence_asym, can, "asymmetric sections exactly when membarrier works");
    cr_assert_eq(fence_sync(), 0, "the flusher's fence works in the mode picked");
}
