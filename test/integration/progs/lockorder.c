/* lockorder.c MODE: lock orders, holds and exits with known answers for `gotrace locks --order`,
 * `--holds` and held-at-exit reports (test/integration/cases/locks_order.sh).
 *   abba        first_ab takes lock_a then lock_b and lets both go; only then second_ba takes
 *               lock_b then lock_a. The threads never overlap (an atomic orders them), so the run
 *               cannot hang, yet the two orders are a latent deadlock: one inversion.
 *   consistent  the same two threads, both taking lock_a then lock_b: no inversion.
 *   cycle3      three threads one after the other: lock_a then lock_b (ring_ab), lock_b then
 *               lock_c (ring_bc), lock_c then lock_a (ring_ca): one 3-lock cycle, no pair.
 *   holds       ping and pong take hold_lock in strict turns, ROUNDS times each, and hold it
 *               for at least HOLD_MS of CPU-time-measured busy work each time (in hold_busy):
 *               2 * ROUNDS acquisitions, each by another thread than the last (2 * ROUNDS
 *               owner changes), longest >= HOLD_MS ms; main takes side_lock once, briefly.
 *   exit_held   quitter takes quit_lock in grab_and_quit and returns holding it; main joins it.
 *   rwlocks     read_then_write takes rw_a for reading, then rw_b for writing; then
 *               try_then_write takes rw_b by pthread_rwlock_tryrdlock, then rw_a for writing:
 *               one inversion, whose edges say (read) and (try, read) for the held locks.
 *   family      forks first (no lock taken yet); then the parent and its child each run abba,
 *               holds and exit_held as above, so two processes hold locks of the same names
 *               at the same addresses; the parent waits for the child and exits with its
 *               status (test/integration/cases/merge_locks.sh).
 * Threads meet through atomics (never through a traced lock) except where said. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 10
#define HOLD_MS 2

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_c = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t side_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t quit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw_a = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t rw_b = PTHREAD_RWLOCK_INITIALIZER;
static atomic_int turn;
static volatile long work;

static void until(int want)
{
    while (atomic_load(&turn) != want)
        ;
}

/* Takes x then y, lets both go (the nested take is the edge x -> y). */
static void nested(pthread_mutex_t *x, pthread_mutex_t *y)
{
    pthread_mutex_lock(x);
    pthread_mutex_lock(y);
    work++;
    pthread_mutex_unlock(y);
    pthread_mutex_unlock(x);
}

static void *first_ab(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_a);
    pthread_mutex_lock(&lock_b); /* site: first_ab */
    work++;
    pthread_mutex_unlock(&lock_b);
    pthread_mutex_unlock(&lock_a);
    atomic_store(&turn, 1);
    return NULL;
}

static void *second_ba(void *arg)
{
    (void)arg;
    until(1);
    pthread_mutex_lock(&lock_b);
    pthread_mutex_lock(&lock_a); /* site: second_ba */
    work++;
    pthread_mutex_unlock(&lock_a);
    pthread_mutex_unlock(&lock_b);
    return NULL;
}

static void *second_ab(void *arg)
{
    (void)arg;
    until(1);
    nested(&lock_a, &lock_b);
    return NULL;
}

static void *ring_ab(void *arg)
{
    (void)arg;
    nested(&lock_a, &lock_b);
    atomic_store(&turn, 1);
    return NULL;
}

static void *ring_bc(void *arg)
{
    (void)arg;
    until(1);
    nested(&lock_b, &lock_c);
    atomic_store(&turn, 2);
    return NULL;
}

static void *ring_ca(void *arg)
{
    (void)arg;
    until(2);
    nested(&lock_c, &lock_a);
    return NULL;
}

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Busy work for HOLD_MS ms of this thread's CPU time (so at least that long in wall time). */
static __attribute__((noinline)) void hold_busy(void)
{
    double end = cpu_ms() + HOLD_MS;
    while (cpu_ms() < end)
        work++;
}

/* Player me of 2 takes hold_lock on turns me, me + 2, ... (turn counts the holds so far). */
static void *play(int me)
{
    for (int i = 0; i < ROUNDS; i++) {
        until(2 * i + me);
        pthread_mutex_lock(&hold_lock);
        hold_busy();
        pthread_mutex_unlock(&hold_lock);
        atomic_store(&turn, 2 * i + me + 1);
    }
    return NULL;
}
static void *ping(void *arg)
{
    (void)arg;
    return play(0);
}
static void *pong(void *arg)
{
    (void)arg;
    return play(1);
}

static void *grab_and_quit(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&quit_lock); /* site: grab_and_quit */
    return NULL;
}

static void *read_then_write(void *arg)
{
    (void)arg;
    pthread_rwlock_rdlock(&rw_a);
    pthread_rwlock_wrlock(&rw_b);
    work++;
    pthread_rwlock_unlock(&rw_b);
    pthread_rwlock_unlock(&rw_a);
    atomic_store(&turn, 1);
    return NULL;
}

static void *try_then_write(void *arg)
{
    (void)arg;
    until(1);
    if (pthread_rwlock_tryrdlock(&rw_b) != 0) return NULL; /* free: the other thread is done */
    pthread_rwlock_wrlock(&rw_a);
    work++;
    pthread_rwlock_unlock(&rw_a);
    pthread_rwlock_unlock(&rw_b);
    return NULL;
}

static int pair(void *(*f)(void *), void *(*g)(void *), void *(*h)(void *))
{
    pthread_t t[3];
    int n = 0;
    pthread_create(&t[n++], NULL, f, NULL);
    pthread_create(&t[n++], NULL, g, NULL);
    if (h) pthread_create(&t[n++], NULL, h, NULL);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    return 0;
}

static int holds(void)
{
    pthread_mutex_lock(&side_lock);
    work++;
    pthread_mutex_unlock(&side_lock);
    return pair(ping, pong, NULL);
}

static int exit_held(void)
{
    pthread_t t;
    pthread_create(&t, NULL, grab_and_quit, NULL);
    pthread_join(t, NULL);
    printf("quit_lock still held: %d\n", pthread_mutex_trylock(&quit_lock) != 0);
    return 0;
}

/* abba, holds and exit_held in this process and in a child forked before any lock is taken. */
static int family(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) return 1;
    pair(first_ab, second_ba, NULL);
    atomic_store(&turn, 0); /* holds' turns start at 0 */
    holds();
    exit_held();
    if (child == 0) return 0;
    int st = 0;
    fflush(stdout);
    return waitpid(child, &st, 0) == child && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "abba")) return pair(first_ab, second_ba, NULL);
    if (!strcmp(mode, "consistent")) return pair(first_ab, second_ab, NULL);
    if (!strcmp(mode, "rwlocks")) return pair(read_then_write, try_then_write, NULL);
    if (!strcmp(mode, "cycle3")) return pair(ring_ab, ring_bc, ring_ca);
    if (!strcmp(mode, "holds")) return holds();
    if (!strcmp(mode, "exit_held")) return exit_held();
    if (!strcmp(mode, "family")) return family();
    fprintf(stderr, "usage: lockorder abba|consistent|cycle3|holds|exit_held|rwlocks|family\n");
    return 2;
}
