/* annotations: the gotrace annotations API (include/gotrace.h) and thread names, in a small
 * request-serving program. Build it with plain `cc -pthread annotations.c`: it needs no gotrace
 * library and runs the same untraced; under LD_PRELOAD=libgotrace.so its tasks, regions and
 * logs show in `go tool trace` (User-defined tasks / regions) and its threads carry their names.
 *
 * main begins one task per request and queues it; NWORKERS worker threads (named "worker-0",
 * ... by main with pthread_setname_np) take requests, each in a region "handle" with nested
 * regions "parse" and "compute", log the result under category "result", and end the request's
 * task (on another thread than the one that began it). A "janitor" thread names itself with
 * prctl. main joins everything and prints the number of requests and a checksum that does not
 * depend on scheduling. With GOTRACE_CPU_HZ=100 the CPU samples land in compute().
 * Runs about 0.5 s. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include "gotrace.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>

#define NREQUESTS 40
#define NWORKERS 2
#define ROUNDS 12000000 /* per request: sets the run time */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static uint64_t queue[NREQUESTS], queue_task[NREQUESTS];
static int queued, taken, closed;
static uint64_t checksum;

static uint64_t compute(uint64_t x)
{
    for (int i = 0; i < ROUNDS; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&mu);
        while (taken == queued && !closed)
            pthread_cond_wait(&cv, &mu);
        if (taken == queued) {
            pthread_mutex_unlock(&mu);
            return NULL;
        }
        uint64_t req = queue[taken], task = queue_task[taken];
        taken++;
        pthread_mutex_unlock(&mu);

        gotrace_region_begin(task, "handle");
        gotrace_region_begin(task, "parse");
        uint64_t x = req * 2654435761u;
        gotrace_region_end(task, "parse");
        gotrace_region_begin(task, "compute");
        x = compute(x);
        gotrace_region_end(task, "compute");
        char msg[64];
        snprintf(msg, sizeof msg, "request %llu -> %016llx", (unsigned long long)req,
                 (unsigned long long)x);
        gotrace_log(task, "result", msg);
        gotrace_region_end(task, "handle");
        gotrace_task_end(task);

        pthread_mutex_lock(&mu);
        checksum ^= x;
        pthread_mutex_unlock(&mu);
    }
}

static void *janitor(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "janitor");
    gotrace_log(0, "janitor", "nothing to clean");
    return NULL;
}

int main(void)
{
    pthread_t w[NWORKERS], j;
    for (int i = 0; i < NWORKERS; i++) {
        pthread_create(&w[i], NULL, worker, NULL);
        char name[16];
        snprintf(name, sizeof name, "worker-%d", i);
        pthread_setname_np(w[i], name);
    }
    pthread_create(&j, NULL, janitor, NULL);
    uint64_t all = gotrace_task_begin("serve", 0);
    for (int i = 0; i < NREQUESTS; i++) {
        uint64_t task = gotrace_task_begin("request", all);
        pthread_mutex_lock(&mu);
        queue[queued] = (uint64_t)i + 1;
        queue_task[queued] = task;
        queued++;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_lock(&mu);
    closed = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    for (int i = 0; i < NWORKERS; i++)
        pthread_join(w[i], NULL);
    pthread_join(j, NULL);
    gotrace_task_end(all);
    printf("requests=%d checksum=%016llx\n", NREQUESTS, (unsigned long long)checksum);
    return 0;
}
