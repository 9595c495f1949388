/* report_model.h: what `gotrace report` shows, collected in one pass of the shared analysis
 * (analysis.c's callbacks): the timeline (every interval of every thread with its reason, the
 * stack it is charged to and who ended it; user regions; CPU samples) while it fits a budget,
 * else per thread the time in each state per bucket of the trace's duration; and the profiles
 * Go's `go tool trace -pprof=` computes (sync, syscall, network, scheduler latency) plus CPU
 * samples, by stack.
 * Invariants: memory is bounded by the budgets plus, once aggregated, RM_BUCKETS buckets per
 * thread and the distinct (profile, stack) pairs; every interval is counted once in the
 * timeline (detail or buckets) and once in at most one profile; buckets cover the whole trace
 * (their width doubles, pairs merging, when the trace outgrows them). */
#ifndef GOTRACE_DECODER_REPORT_MODEL_H
#define GOTRACE_DECODER_REPORT_MODEL_H

#include "analysis.h"

/* Timeline kinds: how an interval is coloured. */
enum { RK_RUNNING, RK_RUNNABLE, RK_SYSCALL, RK_SYNC, RK_SLEEP, RK_NETWORK, RK_OTHER, RK_N };
/* Profiles, as Go's trace profiles (cmd/trace/pprof.go) plus CPU samples. */
enum { RP_SYNC, RP_SYSCALL, RP_NETWORK, RP_SCHED, RP_CPU, RP_N };

#define RM_MAX_SLICES 200000 /* intervals drawn one by one; above, the timeline is bucketed */
#define RM_MAX_REGIONS 50000
#define RM_MAX_SAMPLES 50000
#define RM_BUCKETS 1024 /* per thread, over the whole trace, when bucketed */

struct rm_slice {
    int64_t start, end;
    uint32_t g, kind, reason, stack, waker; /* g, waker: index in gd_ana.gs; waker ~0 = none */
};
struct rm_region {
    int64_t start, end;
    uint64_t task;
    uint32_t g, name;
};
struct rm_sample {
    int64_t t;
    uint32_t g, stack; /* g ~0: no thread */
};
struct rm_prof {
    uint32_t kind, stack;
    uint64_t count;
    int64_t ns;
};
/* One thread's buckets: absolute indices first .. first+n-1, ns per kind. */
struct rm_buckets {
    uint32_t first, n, cap;
    float (*v)[RK_N];
};

struct hd;
struct rm {
    struct hd *sync; /* the lock analysis of the same pass (holders.h), NULL: none */
    struct rm_slice *sl;
    size_t nsl, slcap, nsl_all;
    uint32_t *last; /* per thread: 1 + its latest slice in sl, 0 = none */
    size_t lastcap;
    struct rm_region *rg;
    size_t nrg, rgcap, nrg_all;
    struct rm_sample *sm;
    size_t nsm, smcap, nsm_all;
    int bucketed;
    int64_t width; /* ns per bucket */
    struct rm_buckets *bk;
    size_t nbk;
    struct gd_hmap profmap; /* kind << 32 | stack -> index in prof */
    struct rm_prof *prof;
    size_t nprof, pcap;
    int oom;
};

/* Sets up a for the report: callbacks into m, stacks wanted. */
void rm_init(struct rm *m, struct gd_ana *a);
void rm_free(struct rm *m);
/* The dominant kind of bucket i (absolute) of b, or -1 when the thread was not there. */
int rm_bucket_kind(const struct rm_buckets *b, uint32_t i);
/* The timeline kind of a wait with this reason text. */
uint32_t rm_wait_kind(const char *reason);

#endif
