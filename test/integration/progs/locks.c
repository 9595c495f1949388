/* locks.c MODE: lock situations with known answers (test/integration/cases/locks_*.sh).
 *   ledger   writer holds the static ledger_lock 10 x 40 ms in apply_batch while two readers
 *            wait for it; then the heap lock made by account_new is held 5 x 20 ms by main
 *            while a reader waits.
 *   chain    hand-off: first holds chain_lock 60 ms; second then waits, then third; second
 *            gets it and holds it 60 ms; third's wait is blamed ~60 ms on each.
 *   rwlock   a writer holds table_lock 5 x 30 ms while a reader waits.
 *   abba     two threads take lock_a and lock_b in opposite orders: a deadlock (never ends).
 *   condvar  a thread waits on never_signalled forever; main exits after it is waiting.
 *   holder_blocked  hold_and_wait holds hb_lock and waits forever on a condvar while
 *            wait_for_holder waits for hb_lock (never ends).
 *   members  main holds queue.mu (a member of a static struct) and stripes[2] (of a static
 *            array) 20 ms while a thread waits on each.
 *   pipeline stage1 works 1 ms (CPU time) per item, stage2 4 ms, stage3 1 ms; 30 items through
 * queues (a mutex and a condvar each; a queue's first put waits until its consumer waits): the
 * critical path lies in stage2. Threads meet through atomics (untraced), never through sleeps. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ms of clock clk (the pipeline's work is CPU time: its shape holds on a loaded machine). */
static void spend_ms(clockid_t clk, int ms)
{
    struct timespec t0, t;
    clock_gettime(clk, &t0);
    do
        clock_gettime(clk, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}
#define burn_ms(ms) spend_ms(CLOCK_MONOTONIC, (ms))
#define work_ms(ms) spend_ms(CLOCK_THREAD_CPUTIME_ID, (ms))

static void spin_until(atomic_int *v, int want)
{
    while (atomic_load(v) < want)
        ;
}

/* ---- ledger ---- */
static pthread_mutex_t ledger_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int round_no, readers_in, readers_out;
static long ledger_total;

struct account {
    long balance;
    pthread_mutex_t mu;
};

static struct account *account_new(void)
{
    struct account *a = calloc(1, sizeof *a);
    pthread_mutex_init(&a->mu, NULL);
    return a;
}

static void apply_batch(int i)
{
    pthread_mutex_lock(&ledger_lock);
    atomic_store(&round_no, i + 1);
    spin_until(&readers_in, 2 * (i + 1)); /* both readers are about to wait */
    burn_ms(40);
    ledger_total += i;
    pthread_mutex_unlock(&ledger_lock);
}

static void *ledger_writer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++) {
        apply_batch(i);
        spin_until(&readers_out, 2 * (i + 1));
    }
    return NULL;
}

static void *ledger_reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++) {
        spin_until(&round_no, i + 1);
        atomic_fetch_add(&readers_in, 1);
        pthread_mutex_lock(&ledger_lock); /* the ledger wait */
        long v = ledger_total;
        (void)v;
        pthread_mutex_unlock(&ledger_lock);
        atomic_fetch_add(&readers_out, 1);
    }
    return NULL;
}

static struct account *acct;
static atomic_int acct_round, acct_in, acct_out;
static void *account_reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5; i++) {
        spin_until(&acct_round, i + 1);
        atomic_store(&acct_in, i + 1);
        pthread_mutex_lock(&acct->mu); /* the account wait */
        acct->balance++;
        pthread_mutex_unlock(&acct->mu);
        atomic_store(&acct_out, i + 1);
    }
    return NULL;
}

static void ledger(void)
{
    pthread_t w, r1, r2, ar;
    pthread_create(&r1, NULL, ledger_reader, NULL);
    pthread_create(&r2, NULL, ledger_reader, NULL);
    pthread_create(&w, NULL, ledger_writer, NULL);
    pthread_join(w, NULL);
    pthread_join(r1, NULL);
    pthread_join(r2, NULL);
    acct = account_new();
    pthread_create(&ar, NULL, account_reader, NULL);
    for (int i = 0; i < 5; i++) {
        pthread_mutex_lock(&acct->mu);
        atomic_store(&acct_round, i + 1);
        spin_until(&acct_in, i + 1);
        burn_ms(20);
        pthread_mutex_unlock(&acct->mu);
        spin_until(&acct_out, i + 1);
    }
    pthread_join(ar, NULL);
    printf("ledger %ld balance %ld\n", ledger_total, acct->balance);
}

/* ---- chain ---- */
static pthread_mutex_t chain_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int chain_step;

static void *chain_first(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&chain_lock);
    atomic_store(&chain_step, 1);
    spin_until(&chain_step, 3); /* both others are about to wait */
    burn_ms(60);
    pthread_mutex_unlock(&chain_lock);
    return NULL;
}

static void *chain_second(void *arg)
{
    (void)arg;
    spin_until(&chain_step, 1);
    atomic_store(&chain_step, 2);
    pthread_mutex_lock(&chain_lock); /* waits for first */
    burn_ms(60);
    pthread_mutex_unlock(&chain_lock);
    return NULL;
}

static void *chain_third(void *arg)
{
    (void)arg;
    spin_until(&chain_step, 2);
    burn_ms(5); /* second is asleep on the lock first (a head start, not a guarantee) */
    atomic_store(&chain_step, 3);
    pthread_mutex_lock(&chain_lock); /* waits for first, then second */
    pthread_mutex_unlock(&chain_lock);
    return NULL;
}

/* Runs the three routines in threads of their own, then joins them in order. */
static void run3(void *(*a)(void *), void *(*b)(void *), void *(*c)(void *))
{
    void *(*fn[3])(void *) = {a, b, c};
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, fn[i], NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
}

static void chain(void)
{
    run3(chain_first, chain_second, chain_third);
    puts("chain done");
}

/* ---- rwlock ---- */
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static atomic_int rw_round, rw_in;

static atomic_int rw_out;
static void *table_writer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5; i++) {
        pthread_rwlock_wrlock(&table_lock);
        atomic_store(&rw_round, i + 1);
        spin_until(&rw_in, i + 1);
        burn_ms(30);
        pthread_rwlock_unlock(&table_lock);
        spin_until(&rw_out, i + 1);
    }
    return NULL;
}

static void *table_reader(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5; i++) {
        spin_until(&rw_round, i + 1);
        atomic_store(&rw_in, i + 1);
        pthread_rwlock_rdlock(&table_lock); /* waits for the writer */
        pthread_rwlock_unlock(&table_lock);
        atomic_store(&rw_out, i + 1);
    }
    return NULL;
}

static void rwlock(void)
{
    pthread_t w, r;
    pthread_create(&r, NULL, table_reader, NULL);
    pthread_create(&w, NULL, table_writer, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    puts("rwlock done");
}

/* ---- abba ---- */
static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER, lock_b = PTHREAD_MUTEX_INITIALIZER;
static atomic_int abba_held;

static void *take_a_then_b(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    atomic_fetch_add(&abba_held, 1);
    spin_until(&abba_held, 2);
    pthread_mutex_lock(&lock_b); /* deadlock */
    return NULL;
}

static void *take_b_then_a(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_b);
    atomic_fetch_add(&abba_held, 1);
    spin_until(&abba_held, 2);
    pthread_mutex_lock(&lock_a); /* deadlock */
    return NULL;
}

static void abba(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, take_a_then_b, NULL);
    pthread_create(&b, NULL, take_b_then_a, NULL);
    puts("abba started");
    fflush(stdout);
    pthread_join(a, NULL);
}

/* ---- holder_blocked: the holder of table_lock waits forever on a condvar ---- */
static pthread_mutex_t hb_lock = PTHREAD_MUTEX_INITIALIZER, hb_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hb_never = PTHREAD_COND_INITIALIZER;
static atomic_int hb_held;

static void *hold_and_wait(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&hb_lock);
    atomic_store(&hb_held, 1);
    pthread_mutex_lock(&hb_mu);
    for (;;)
        pthread_cond_wait(&hb_never, &hb_mu);
    return NULL;
}

static void *wait_for_holder(void *arg)
{
    (void)arg;
    spin_until(&hb_held, 1);
    pthread_mutex_lock(&hb_lock); /* its holder never releases it */
    return NULL;
}

static void holder_blocked(void)
{
    pthread_t h, w;
    pthread_create(&h, NULL, hold_and_wait, NULL);
    pthread_create(&w, NULL, wait_for_holder, NULL);
    pthread_join(w, NULL);
}

/* ---- condvar ---- */
static pthread_mutex_t cv_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_signalled = PTHREAD_COND_INITIALIZER;
static atomic_int cv_waiting;

static void *wait_forever(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&cv_mu);
    atomic_store(&cv_waiting, 1);
    for (;;)
        pthread_cond_wait(&never_signalled, &cv_mu);
    return NULL;
}

static void condvar(void)
{
    pthread_t t;
    pthread_create(&t, NULL, wait_forever, NULL);
    spin_until(&cv_waiting, 1);
    pthread_mutex_lock(&cv_mu); /* taken once the waiter is inside pthread_cond_wait */
    pthread_mutex_unlock(&cv_mu);
    puts("condvar: exiting with a waiter");
    exit(0);
}

/* ---- members: a lock inside a static struct, and one of a static array ---- */
static struct {
    long items;
    pthread_mutex_t mu;
} queue = {0, PTHREAD_MUTEX_INITIALIZER};
static pthread_mutex_t stripes[4] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                     PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static atomic_int member_in;

static void *member_waiter(void *arg)
{
    pthread_mutex_t *m = arg;
    atomic_fetch_add(&member_in, 1);
    pthread_mutex_lock(m); /* waits for main */
    pthread_mutex_unlock(m);
    return NULL;
}

static void members(void)
{
    pthread_t a, b;
    pthread_mutex_lock(&queue.mu);
    pthread_mutex_lock(&stripes[2]);
    pthread_create(&a, NULL, member_waiter, &queue.mu);
    pthread_create(&b, NULL, member_waiter, &stripes[2]);
    spin_until(&member_in, 2);
    burn_ms(20);
    pthread_mutex_unlock(&stripes[2]);
    pthread_mutex_unlock(&queue.mu);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("members %ld\n", queue.items);
}

/* ---- pipeline: stage1 (1 ms per item) -> stage2 (4 ms) -> stage3 (1 ms) ----
 * Each queue's first put waits until its consumer counts itself a waiter (under the queue's
 * mutex, just before pthread_cond_wait): put's lock is then taken only once the consumer is
 * inside the wait, so every queue has at least one signalled wait however the threads run. */
#define ITEMS 30
struct queue {
    pthread_mutex_t mu;
    pthread_cond_t ready;
    int items, closed;
    atomic_int waited; /* consumers that began a wait, ever */
};
static struct queue q12 = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
static struct queue q23 = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

static void put(struct queue *q, int close)
{
    spin_until(&q->waited, 1);
    pthread_mutex_lock(&q->mu);
    if (close)
        q->closed = 1;
    else
        q->items++;
    pthread_cond_signal(&q->ready);
    pthread_mutex_unlock(&q->mu);
}

static int get(struct queue *q) /* 0 when closed and empty */
{
    pthread_mutex_lock(&q->mu);
    while (!q->items && !q->closed) {
        atomic_fetch_add(&q->waited, 1);
        pthread_cond_wait(&q->ready, &q->mu);
    }
    int got = q->items > 0;
    q->items -= got;
    pthread_mutex_unlock(&q->mu);
    return got;
}

static void *stage1(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITEMS; i++) {
        work_ms(1);
        put(&q12, 0);
    }
    put(&q12, 1);
    return NULL;
}

static void *stage2(void *arg)
{
    (void)arg;
    while (get(&q12)) {
        work_ms(4);
        put(&q23, 0);
    }
    put(&q23, 1);
    return NULL;
}

static void *stage3(void *arg)
{
    (void)arg;
    while (get(&q23))
        work_ms(1);
    return NULL;
}

static void pipeline(void)
{
    run3(stage1, stage2, stage3);
    puts("pipeline done");
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "ledger";
    if (!strcmp(m, "ledger"))
        ledger();
    else if (!strcmp(m, "chain"))
        chain();
    else if (!strcmp(m, "rwlock"))
        rwlock();
    else if (!strcmp(m, "abba"))
        abba();
    else if (!strcmp(m, "condvar"))
        condvar();
    else if (!strcmp(m, "pipeline"))
        pipeline();
    else if (!strcmp(m, "members"))
        members();
    else if (!strcmp(m, "holder_blocked"))
        holder_blocked();
    else
        return 2;
    return 0;
}
