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
#define RM_MAX_REGIONS 50000 /* regions kept for the timeline (all are counted) */
#define RM_MAX_SAMPLES 50000 /* CPU samples kept for the timeline (all go to the profile) */
#define RM_BUCKETS 1024      /* per thread, over the whole trace, when bucketed */

/* One interval of the timeline's detail. kind: RK_*; reason: interned, waits only (else 0);
 * stack: interned text the page shows (a wait's waiting call, else the event that began it). */
struct rm_slice {
    int64_t start, end;
    uint32_t g, kind, reason, stack, waker; /* g, waker: index in gd_ana.gs; waker ~0 = none */
};
struct rm_region { /* name interned; g: index in gd_ana.gs */
    int64_t start, end;
    uint64_t task;
    uint32_t g, name;
};
struct rm_sample {
    int64_t t;
    uint32_t g, stack; /* g ~0: no thread */
};
struct rm_prof {          /* one stack of one profile */
    uint32_t kind, stack; /* RP_*, interned text */
    uint64_t count;       /* intervals (samples for RP_CPU) */
    int64_t ns;           /* their total length (RP_CPU: the samples again) */
};
/* One thread's buckets: absolute indices first .. first+n-1, ns per kind. */
struct rm_buckets {
    uint32_t first, n, cap;
    float (*v)[RK_N];
};

struct hd;
struct rm {
    struct hd *sync; /* the lock analysis of the same pass (holders.h), NULL: none */
    /* sl, rg, sm: the slices, regions and samples kept; n*_all: how many there were. */
    struct rm_slice *sl;
    size_t nsl, slcap, nsl_all;
    uint32_t *last; /* per thread: 1 + its latest slice in sl, 0 = none */
    size_t lastcap;
    struct rm_region *rg;
    size_t nrg, rgcap, nrg_all;
    struct rm_sample *sm;
    size_t nsm, smcap, nsm_all;
    int bucketed;  /* over RM_MAX_SLICES: sl is empty, bk holds the timeline */
    int64_t width; /* ns per bucket */
    struct rm_buckets *bk;
    size_t nbk;
    struct gd_hmap profmap; /* kind << 32 | stack -> index in prof */
    struct rm_prof *prof;
    size_t nprof, pcap;
    int oom; /* something was dropped for want of memory: the report fails */
};

/* Sets up a for the report: an empty m, a initialised (gd_ana_init) with callbacks into m,
 * stacks wanted. A lock analysis of the same pass chains after it (hd_chain). */
void rm_init(struct rm *m, struct gd_ana *a);
/* Frees what m holds (not a, nor m->sync). */
void rm_free(struct rm *m);
/* The dominant kind (RK_*) of bucket i (absolute) of b, or -1 when the thread was not there. */
int rm_bucket_kind(const struct rm_buckets *b, uint32_t i);
/* The timeline kind of a wait with this reason text: RK_SYNC when it mentions sync, chan or
 * select, RK_SLEEP when it mentions sleep, RK_NETWORK for "network", else RK_OTHER. */
uint32_t rm_wait_kind(const char *reason);

#endif
