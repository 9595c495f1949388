/* test_status.c: G/P state words: claiming a generation emits exactly one status describing
 * the state before the change, sequences restart at a claim, newer generations are reported
 * as skew, and the switch claims only what nobody claimed. */
#include "status.h"
#include "strtab.h"
#include "stack.h"

#include <criterion/criterion.h>
#include <string.h>

struct rec {
    int n;
    uint8_t type[8];
    uint64_t args[8][4];
};

static void record(void *ctx, uint8_t type, int n, const uint64_t *args)
{
    struct rec *r = ctx;
    r->type[r->n] = type;
    memcpy(r->args[r->n], args, (size_t)n * sizeof *args);
    r->n++;
}

static const uint8_t INC1[8] = {1, 1, 1, 1, 1, 1, 1, 1};

static void setup(void)
{
    str_init();
    stack_init(16, 1);
}

TestSuite(status, .init = setup);

Test(status, claim_emits_old_state_once)
{
    struct gt_thread t = {.g = 5};
    atomic_store(&t.tid, 1234);
    atomic_store(&t.gword, word_make(1, GO_G_RUNNING, 7));
    struct rec r = {0};
    uint64_t seq0;
    unsigned from;
    cr_assert_eq(g_move(2, &t, SMASK(GO_G_RUNNING), GO_G_WAITING, NULL, &seq0, &from, record, &r, NULL),
                 MOVE_OK);
    cr_assert_eq(r.n, 1);
    cr_assert_eq(r.type[0], GO_EV_GO_STATUS);
    cr_assert_eq(r.args[0][0], 5);
    cr_assert_eq(r.args[0][1], 1234, "a Running status binds to the thread");
    cr_assert_eq(r.args[0][2], GO_G_RUNNING);
    cr_assert_eq(seq0, 0, "a claim restarts the sequence");
    cr_assert_eq(from, GO_G_RUNNING);
    uint64_t w = atomic_load(&t.gword);
    cr_assert_eq(word_gen(w), 2);
    cr_assert_eq(word_state(w), GO_G_WAITING);
    /* same generation: no second status, the sequence advances */
    cr_assert_eq(g_move(2, &t, SMASK(GO_G_WAITING), GO_G_RUNNABLE, INC1, &seq0, &from, record, &r, NULL),
                 MOVE_OK);
    cr_assert_eq(r.n, 1);
    cr_assert_eq(word_seq(atomic_load(&t.gword)), 1);
}

Test(status, waiting_status_carries_the_block_stack_and_no_thread)
{
    struct gt_thread t = {.g = 9, .block_stack = 42};
    atomic_store(&t.gword, word_make(1, GO_G_WAITING, 3));
    struct rec r = {0};
    uint64_t seq0;
    unsigned from;
    cr_assert_eq(g_move(2, &t, SMASK(GO_G_WAITING), GO_G_RUNNABLE, INC1, &seq0, &from, record, &r, NULL),
                 MOVE_OK);
    cr_assert_eq(r.type[0], GO_EV_GO_STATUS_STACK);
    cr_assert_eq(r.args[0][1], GO_NO_THREAD);
    cr_assert_eq(r.args[0][2], GO_G_WAITING);
    cr_assert_eq(r.args[0][3], 42);
    cr_assert_eq(word_seq(atomic_load(&t.gword)), 1, "unblock after a claim carries seq 1");
}

Test(status, wrong_state_and_skew)
{
    struct gt_thread t = {.g = 1};
    atomic_store(&t.gword, word_make(3, GO_G_RUNNING, 0));
    struct rec r = {0};
    uint64_t seq0;
    unsigned from;
    cr_assert_eq(g_move(3, &t, SMASK(GO_G_WAITING), GO_G_RUNNABLE, INC1, &seq0, &from, record, &r, NULL),
                 MOVE_STATE);
    atomic_store(&t.gword, word_make(4, GO_G_WAITING, 0));
    cr_assert_eq(g_move(3, &t, SMASK(GO_G_WAITING), GO_G_RUNNABLE, INC1, &seq0, &from, record, &r, NULL),
                 MOVE_SKEW);
    cr_assert_eq(r.n, 0);
    cr_assert_eq(atomic_load(&t.gword), word_make(4, GO_G_WAITING, 0), "untouched");
}

Test(status, p_move_sequences)
{
    struct gt_p p = {.id = 3};
    atomic_store(&p.word, word_make(1, GO_P_IDLE, 4));
    struct rec r = {0};
    uint64_t seq0;
    cr_assert_eq(p_move(1, &p, SMASK(GO_P_IDLE), GO_P_RUNNING, 1, &seq0, record, &r, NULL), MOVE_OK);
    cr_assert_eq(r.n, 0);
    cr_assert_eq(seq0, 4);
    cr_assert_eq(p_move(2, &p, SMASK(GO_P_RUNNING), GO_P_SYSCALL, 1, &seq0, record, &r, NULL), MOVE_OK);
    cr_assert_eq(r.n, 1);
    cr_assert_eq(r.type[0], GO_EV_PROC_STATUS);
    cr_assert_eq(r.args[0][0], 3);
    cr_assert_eq(r.args[0][1], GO_P_RUNNING);
    cr_assert_eq(seq0, 0);
    cr_assert_eq(word_seq(atomic_load(&p.word)), 1);
}

Test(status, switch_claims_only_unclaimed_and_live)
{
    struct gt_p p = {.id = 1};
    atomic_store(&p.word, word_make(1, GO_P_RUNNING, 2));
    struct gt_thread running = {.g = 1};
    atomic_store(&running.tid, 100);
    atomic_store(&running.gword, word_make(1, GO_G_RUNNING, 1));
    atomic_store(&running.p, &p);
    struct gt_thread unstarted = {.g = 2};
    atomic_store(&unstarted.gword, word_make(1, GO_G_RUNNABLE, 0));
    struct gt_thread dead = {.g = 3};
    atomic_store(&dead.tid, 101);
    atomic_store(&dead.gword, word_make(1, GT_G_DEAD, 0));
    struct gt_thread claimed = {.g = 4};
    atomic_store(&claimed.tid, 102);
    atomic_store(&claimed.gword, word_make(2, GO_G_RUNNING, 0));

    struct rec own = {0}, anon = {0};
    status_claim_switch(&running, 2, record, &own, record, &anon);
    cr_assert_eq(own.n, 2, "G and P statuses in the thread's own stream");
    cr_assert_eq(own.type[0], GO_EV_GO_STATUS);
    cr_assert_eq(own.type[1], GO_EV_PROC_STATUS);
    cr_assert_eq(anon.n, 0);
    status_claim_switch(&unstarted, 2, record, &own, record, &anon);
    cr_assert_eq(anon.n, 1, "a thread not yet running: M-less");
    cr_assert_eq(anon.args[0][2], GO_G_RUNNABLE);
    status_claim_switch(&dead, 2, record, &own, record, &anon);
    status_claim_switch(&claimed, 2, record, &own, record, &anon);
    cr_assert_eq(own.n, 2);
    cr_assert_eq(anon.n, 1);
    /* a second switch call in the same generation claims nothing */
    status_claim_switch(&running, 2, record, &own, record, &anon);
    cr_assert_eq(own.n, 2);
}

/* The owner's own moves (no CAS) do what g_move and p_move do: within the generation no status
 * and the same sequences, claiming an older one a status first; a word in another state or
 * a newer generation is left alone. */
Test(status, own_moves_match_the_shared_ones)
{
    struct gt_thread t = {.g = 9};
    atomic_store(&t.tid, 77);
    atomic_store(&t.gword, word_make(3, GO_G_RUNNING, 4));
    struct rec r = {0};
    uint64_t seq0, ts = 1;
    unsigned from;
    cr_assert_eq(
        g_move_own(3, &t, SMASK(GO_G_RUNNING), GO_G_SYSCALL, &seq0, &from, record, &r, &ts),
        MOVE_OK);
    cr_assert_eq(r.n, 0, "no status within the generation");
    cr_assert_eq(seq0, 4);
    cr_assert_eq(from, GO_G_RUNNING);
    cr_assert_eq(ts, 0, "timed at the next event");
    cr_assert_eq(atomic_load(&t.gword), word_make(3, GO_G_SYSCALL, 4), "nothing added");
    cr_assert_eq(g_move_own(3, &t, SMASK(GO_G_SYSCALL), GO_G_RUNNING | MOVE_RESTART, &seq0, &from,
                            record, &r, NULL),
                 MOVE_OK);
    cr_assert_eq(atomic_load(&t.gword), word_make(3, GO_G_RUNNING, 0), "restarted");
    cr_assert_eq(
        g_move_own(3, &t, SMASK(GO_G_SYSCALL), GO_G_RUNNING, &seq0, &from, record, &r, NULL),
        MOVE_STATE);
    cr_assert_eq(
        g_move_own(4, &t, SMASK(GO_G_RUNNING), GO_G_WAITING, &seq0, &from, record, &r, NULL),
        MOVE_OK);
    cr_assert_eq(r.n, 1, "a claim writes the status of the state before");
    cr_assert_eq(r.type[0], GO_EV_GO_STATUS);
    cr_assert_eq(r.args[0][2], GO_G_RUNNING);
    cr_assert_eq(atomic_load(&t.gword), word_make(4, GO_G_WAITING, 0));
    cr_assert_eq(
        g_move_own(3, &t, SMASK(GO_G_WAITING), GO_G_RUNNING, &seq0, &from, record, &r, NULL),
        MOVE_SKEW);

    struct gt_p p = {.id = 2};
    atomic_store(&p.word, word_make(4, GO_P_RUNNING, 10));
    cr_assert_eq(p_move_own(4, &p, SMASK(GO_P_RUNNING), GO_P_SYSCALL, 1, &seq0, record, &r, NULL),
                 MOVE_OK);
    cr_assert_eq(seq0, 10);
    cr_assert_eq(atomic_load(&p.word), word_make(4, GO_P_SYSCALL, 11));
    cr_assert_eq(p_move_own(5, &p, SMASK(GO_P_SYSCALL), GO_P_RUNNING, 0, &seq0, record, &r, NULL),
                 MOVE_OK);
    cr_assert_eq(r.n, 2);
    cr_assert_eq(r.type[1], GO_EV_PROC_STATUS);
    cr_assert_eq(r.args[1][1], GO_P_SYSCALL);
    cr_assert_eq(atomic_load(&p.word), word_make(5, GO_P_RUNNING, 0));
}
