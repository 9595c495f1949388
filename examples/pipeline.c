/* pipeline: a small producer/consumer program to look at under gotrace.
 *
 * A producer thread puts NJOBS jobs into a bounded queue (mutex + two condition variables);
 * NWORKERS workers take jobs, do some CPU work on each, record a statistic under one shared,
 * contended lock, and pass the result to a collector thread through a second queue. The
 * collector folds the results into a checksum. main starts everything, joins every thread and
 * prints the job count and the checksum, which do not depend on scheduling. Runs about 1.5 s.
 *
 * What it shows in a trace: goroutines named producer/worker/collector; workers waiting on the
 * queue's condition variable (sync blocks); contention on stats_lock; main blocked in joins. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NJOBS 600
#define NWORKERS 3
#define QCAP 8
#define WORK_ROUNDS 2200000 /* per job; sets the run time */

struct queue {
    pthread_mutex_t mu;
    pthread_cond_t not_empty, not_full;
    uint64_t items[QCAP];
    int head, count;
};

static struct queue jobs, results;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t stats_hist[16];

#define STOP UINT64_MAX

static void die(const char *what, int rc)
{
    fprintf(stderr, "pipeline: %s: %s\n", what, strerror(rc));
    exit(1);
}

static void queue_init(struct queue *q)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->not_empty, NULL);
    pthread_cond_init(&q->not_full, NULL);
}

static void queue_put(struct queue *q, uint64_t v)
{
    pthread_mutex_lock(&q->mu);
    while (q->count == QCAP)
        pthread_cond_wait(&q->not_full, &q->mu);
    q->items[(q->head + q->count) % QCAP] = v;
    q->count++;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->mu);
}

static uint64_t queue_get(struct queue *q)
{
    pthread_mutex_lock(&q->mu);
    while (q->count == 0)
        pthread_cond_wait(&q->not_empty, &q->mu);
    uint64_t v = q->items[q->head];
    q->head = (q->head + 1) % QCAP;
    q->count--;
    pthread_cond_signal(&q->not_full);
    pthread_mutex_unlock(&q->mu);
    return v;
}

/* The CPU work of one job: a few rounds of a 64-bit mixer. */
__attribute__((noinline)) static uint64_t crunch(uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (int i = 0; i < WORK_ROUNDS; i++) {
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27;
    }
    return x;
}

/* Records a result under the shared lock, doing a little work while holding it so that the
 * workers contend for it. */
__attribute__((noinline)) static void record(uint64_t r)
{
    pthread_mutex_lock(&stats_lock);
    uint64_t h = r;
    for (int i = 0; i < 2000; i++)
        h = h * 6364136223846793005ULL + 1442695040888963407ULL;
    stats_hist[h >> 60]++;
    pthread_mutex_unlock(&stats_lock);
}

static void *producer(void *arg)
{
    (void)arg;
    for (uint64_t j = 1; j <= NJOBS; j++)
        queue_put(&jobs, j);
    for (int w = 0; w < NWORKERS; w++)
        queue_put(&jobs, STOP);
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        uint64_t job = queue_get(&jobs);
        if (job == STOP) return NULL;
        uint64_t r = crunch(job);
        record(r);
        queue_put(&results, r);
    }
}

static void *collector(void *arg)
{
    uint64_t *checksum = arg;
    for (int n = 0; n < NJOBS; n++)
        *checksum += queue_get(&results);
    return NULL;
}

int main(void)
{
    pthread_t prod, coll, workers[NWORKERS];
    uint64_t checksum = 0;
    int rc;
    queue_init(&jobs);
    queue_init(&results);
    if ((rc = pthread_create(&coll, NULL, collector, &checksum))) die("pthread_create", rc);
    for (int w = 0; w < NWORKERS; w++)
        if ((rc = pthread_create(&workers[w], NULL, worker, NULL))) die("pthread_create", rc);
    if ((rc = pthread_create(&prod, NULL, producer, NULL))) die("pthread_create", rc);
    pthread_join(prod, NULL);
    for (int w = 0; w < NWORKERS; w++)
        pthread_join(workers[w], NULL);
    pthread_join(coll, NULL);
    uint64_t recorded = 0;
    for (int i = 0; i < 16; i++)
        recorded += stats_hist[i];
    printf("pipeline: %d jobs by %d workers, %llu recorded, checksum %016llx\n", NJOBS, NWORKERS,
           (unsigned long long)recorded, (unsigned long long)checksum);
    return recorded == NJOBS ? 0 : 1;
}
