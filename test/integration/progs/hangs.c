/* hangs.c MODE: programs that hang, or seem to, with known answers for `gotrace hangs`,
 * `critical-path` and `report` (test/integration/cases/hangs_verdicts.sh).
 *   sem_pair     ping waits on sem_ping, which only pong posts (after its own wait); pong waits
 *                on sem_pong, which only ping posts: both wait forever, main joins ping. No
 *                thread owns a semaphore: a deadlock without an owner cycle.
 *   lost_wakeup  signaller signals wake_cv while nobody waits and exits; then sleeper waits on
 *                wake_cv without a predicate (the lost wake-up), main joins it: forever.
 *   exit_holding quitter takes quit_lock and returns (exits holding it) while blocked_on_quit
 *                waits for it; main joins blocked_on_quit: forever.
 *   read_holder  reader takes io_lock and reads a pipe that main writes 300 ms later, then
 *                releases it; io_waiter waits for io_lock meanwhile. Ends (status 0).
 *   sleepy       consumer waits on data_ready (with its predicate) while producer sleeps 1 s,
 *                then sets it and signals; main joins both. Ends after 1 s (status 0).
 *   abba_late    an ABBA cycle that closes 300 ms after its first wait: hold_one_want_two takes
 *                lock_one and waits for lock_two, held by hold_two_nap, which sleeps 300 ms
 *                before it waits for lock_one; main joins hold_one_want_two: forever.
 *   sem_by_signal  the only thread waits on alarm_sem, which a SIGALRM handler posts 1 s
 *                later (alarm): nothing else runs meanwhile, yet it ends (status 0).
 * Threads meet through atomics (untraced), so the only traced waits are the ones above. */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "common.h"

static atomic_int step;

static void until(int want)
{
    while (atomic_load(&step) < want)
        ;
}

/* ---- sem_pair ---- */
static sem_t sem_ping, sem_pong;

static void *ping(void *arg)
{
    (void)arg;
    sem_wait(&sem_ping); /* only pong posts it, after its own wait */
    sem_post(&sem_pong);
    return NULL;
}

static void *pong(void *arg)
{
    (void)arg;
    sem_wait(&sem_pong); /* only ping posts it, after its own wait */
    sem_post(&sem_ping);
    return NULL;
}

static void sem_pair(void)
{
    pthread_t a, b;
    sem_init(&sem_ping, 0, 0);
    sem_init(&sem_pong, 0, 0);
    CHECK(pthread_create(&a, NULL, ping, NULL));
    CHECK(pthread_create(&b, NULL, pong, NULL));
    CHECK(pthread_join(a, NULL));
}

/* ---- lost_wakeup ---- */
static pthread_mutex_t wake_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cv = PTHREAD_COND_INITIALIZER;

static void *signaller(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&wake_mu);
    pthread_cond_signal(&wake_cv); /* nobody waits yet: the signal is lost */
    pthread_mutex_unlock(&wake_mu);
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&wake_mu);
    pthread_cond_wait(&wake_cv, &wake_mu); /* no predicate: waits for a signal already sent */
    pthread_mutex_unlock(&wake_mu);
    return NULL;
}

static void lost_wakeup(void)
{
    pthread_t s, w;
    CHECK(pthread_create(&s, NULL, signaller, NULL));
    CHECK(pthread_join(s, NULL));
    CHECK(pthread_create(&w, NULL, sleeper, NULL));
    CHECK(pthread_join(w, NULL));
}

/* ---- exit_holding ---- */
static pthread_mutex_t quit_lock = PTHREAD_MUTEX_INITIALIZER;

static void *quitter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&quit_lock);
    atomic_store(&step, 1);
    until(2);
    spin_ms(20); /* blocked_on_quit is asleep on the lock (a head start, not a guarantee) */
    return NULL; /* exits holding quit_lock */
}

static void *blocked_on_quit(void *arg)
{
    (void)arg;
    until(1);
    atomic_store(&step, 2);
    pthread_mutex_lock(&quit_lock); /* its holder exits without releasing it */
    return NULL;
}

static void exit_holding(void)
{
    pthread_t q, w;
    CHECK(pthread_create(&q, NULL, quitter, NULL));
    CHECK(pthread_create(&w, NULL, blocked_on_quit, NULL));
    CHECK(pthread_join(w, NULL));
}

/* ---- read_holder ---- */
static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;
static int io_pipe[2];

static void *reader(void *arg)
{
    (void)arg;
    char c;
    pthread_mutex_lock(&io_lock);
    atomic_store(&step, 1);
    if (read(io_pipe[0], &c, 1) != 1) /* holds io_lock while blocked here */
        exit(98);
    pthread_mutex_unlock(&io_lock);
    return NULL;
}

static void *io_waiter(void *arg)
{
    (void)arg;
    until(1);
    atomic_store(&step, 2);
    pthread_mutex_lock(&io_lock); /* waits while reader holds it, blocked in read() */
    pthread_mutex_unlock(&io_lock);
    return NULL;
}

static void read_holder(void)
{
    pthread_t r, w;
    if (pipe(io_pipe)) exit(97);
    CHECK(pthread_create(&r, NULL, reader, NULL));
    CHECK(pthread_create(&w, NULL, io_waiter, NULL));
    until(2);
    usleep(300000);
    if (write(io_pipe[1], "x", 1) != 1) exit(98);
    CHECK(pthread_join(r, NULL));
    CHECK(pthread_join(w, NULL));
    puts("read_holder done");
}

/* ---- sleepy ---- */
static pthread_mutex_t data_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t data_ready = PTHREAD_COND_INITIALIZER;
static int have_data;

static void *consumer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&data_mu);
    atomic_store(&step, 1);
    while (!have_data)
        pthread_cond_wait(&data_ready, &data_mu); /* producer signals it in 1 s */
    pthread_mutex_unlock(&data_mu);
    return NULL;
}

static void *producer(void *arg)
{
    (void)arg;
    until(1);
    sleep(1);
    pthread_mutex_lock(&data_mu);
    have_data = 1;
    pthread_cond_signal(&data_ready);
    pthread_mutex_unlock(&data_mu);
    return NULL;
}

static void sleepy(void)
{
    pthread_t c, p;
    CHECK(pthread_create(&c, NULL, consumer, NULL));
    CHECK(pthread_create(&p, NULL, producer, NULL));
    CHECK(pthread_join(c, NULL));
    CHECK(pthread_join(p, NULL));
    puts("sleepy done");
}

/* ---- abba_late ---- */
static pthread_mutex_t lock_one = PTHREAD_MUTEX_INITIALIZER, lock_two = PTHREAD_MUTEX_INITIALIZER;

static void *hold_one_want_two(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_one);
    atomic_store(&step, 1);
    until(2);
    pthread_mutex_lock(&lock_two); /* held by hold_two_nap, asleep: it can still move */
    return NULL;
}

static void *hold_two_nap(void *arg)
{
    (void)arg;
    until(1);
    pthread_mutex_lock(&lock_two);
    atomic_store(&step, 2);
    usleep(300000);
    pthread_mutex_lock(&lock_one); /* the cycle closes */
    return NULL;
}

static void abba_late(void)
{
    pthread_t a, b;
    CHECK(pthread_create(&a, NULL, hold_one_want_two, NULL));
    CHECK(pthread_create(&b, NULL, hold_two_nap, NULL));
    CHECK(pthread_join(a, NULL));
}

/* ---- sem_by_signal ---- */
static sem_t alarm_sem;

static void on_alarm(int sig)
{
    (void)sig;
    sem_post(&alarm_sem); /* async-signal-safe */
}

static void sem_by_signal(void)
{
    struct sigaction sa = {.sa_handler = on_alarm};
    CHECK(sem_init(&alarm_sem, 0, 0));
    sigaction(SIGALRM, &sa, NULL);
    alarm(1);
    while (sem_wait(&alarm_sem) != 0) /* EINTR: the handler ran (and posted) */
        ;
    puts("sem_by_signal done");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } modes[] = {
        {"sem_pair", sem_pair},
        {"lost_wakeup", lost_wakeup},
        {"exit_holding", exit_holding},
        {"read_holder", read_holder},
        {"sleepy", sleepy},
        {"abba_late", abba_late},
        {"sem_by_signal", sem_by_signal},
    };
    for (size_t i = 0; argc > 1 && i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(argv[1], modes[i].name)) {
            puts(modes[i].name);
            fflush(stdout);
            modes[i].run();
            return 0;
        }
    return 2;
}
