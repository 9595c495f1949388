/* analysis.h: per-goroutine (per-thread, for our traces) accounting shared by summary,
 * contention and export: time in each state, waits by reason and by blocking stack, wakers,
 * thread names (the latest GoLabel), user regions and tasks by name, CPU samples.
 * Invariants: every goroutine interval and every region is closed exactly once (at its next
 * transition / its end, at the goroutine's end, or at the end of the trace); names, reasons
 * and wait sites are copied out of the generation's tables (interned), so they survive
 * generation changes; wakers are goroutines (named when reported, so a label written later
 * still names the whole goroutine); memory grows with goroutines, open regions and tasks,
 * distinct names, wait sites and (site, waker) pairs, never with events. */
#ifndef GOTRACE_DECODER_ANALYSIS_H
#define GOTRACE_DECODER_ANALYSIS_H

#include "decode.h"
#include "hmap.h"
#include "stacktext.h"

/* A table of texts named by their index: equal texts have equal indices, so the analyses keep
 * and compare names as integers. Index 0 is "none" (s[0] is NULL). */
struct gd_intern {
    struct gd_hmap map; /* hash -> index */
    char **s;           /* s[i]: NUL-terminated copy of text i */
    uint32_t *len;
    size_t n, cap, lcap;
};
/* The index of the text s[0..len) (which need not end in NUL), copied in the first time; it
 * stays valid until the analysis is freed. 0 when out of memory. */
uint32_t gd_intern(struct gd_intern *t, const char *s, uint32_t len);

/* A goroutine's waits with one reason: how many, and their total length (a wait still open at
 * the end of the trace up to the end). Their counts sum to its nblock. */
struct gd_reason_acc {
    uint32_t reason; /* interned */
    uint64_t count;
    int64_t ns;
};

/* Totals for one interned name: a region name, a task name, or a leaf function. */
struct gd_name_acc {
    uint32_t name;
    uint64_t count; /* regions ended, tasks begun, samples */
    uint64_t ended; /* tasks: those of count that ended */
    int64_t ns;     /* total duration of the regions / of the ended tasks */
};

struct gd_name_accs {   /* in order of first appearance */
    struct gd_hmap map; /* interned name -> index in v */
    struct gd_name_acc *v;
    size_t n, cap;
};

struct gd_open_region {
    uint32_t name; /* interned */
    uint64_t task; /* its task; 0: none (Go's background task) */
    int64_t start; /* the trace's first event time when it began before the trace */
};

/* One goroutine (for our traces, one thread), by index in gd_ana.gs in order of first mention
 * (its creation, or its first status). last is its last transition, or the trace's end when it
 * was still there; once the analysis is finished, ns_run + ns_runnable + ns_sys + ns_wait =
 * last - first. nsys counts the syscalls entered from Running in the trace. */
struct gd_ana_g {
    uint64_t id, m; /* m: the thread (M) it last ran or made a syscall on, GD_NONE none */
    uint32_t start; /* interned outermost function of its first stack; 0 = unknown */
    uint32_t label; /* interned latest GoLabel (the thread's name); 0 = none */
    /* Its process in a merged trace (GT_EXP_PROCS, docs/processes.md): pid and interned name;
     * 0 and 0 in a trace of one process. */
    uint64_t pid;
    uint32_t proc;
    uint8_t state;              /* GS_* */
    int64_t since, first, last; /* current interval's start; first mention; last transition */
    int64_t ns_run, ns_runnable, ns_sys, ns_wait;
    uint64_t nblock, nsys; /* waits begun (one under way at its first status too); syscalls */
    uint32_t reason, site; /* of the current wait: interned reason, index in gd_ana.sites */
    /* and its thread: its GoBlock's M, or for a wait under way at its first status the
     * status's m, else the M of the status's batch (gotrace writes a waiting thread's status
     * in its own batch; Go's are M-less); GD_NONE unknown */
    uint64_t wait_m;
    struct gd_reason_acc *reasons; /* in order of first appearance */
    uint32_t nreasons, rcap;
    uint64_t flow;               /* pending flow id (wake -> next start), 0 = none */
    struct gd_open_region *regs; /* open regions, innermost last */
    uint32_t nregs, regcap;
    uint64_t nsamples; /* CPU samples taken while it ran */
    /* With want_stacks: interned stack text of the event that began the current interval (the
     * stack Go's trace profiles charge the interval to), 0 = none. */
    uint32_t since_stack;
    /* Valid during the slice callback of a wait only: who ended it (an index in gd_ana.gs or
     * GD_WAKER_*, as in gd_wake) and, with want_stacks, the interned stack of the event that
     * ended it when a goroutine did (the waker's: its unlock, signal, post), else 0. */
    uint32_t ended_by, end_stack;
    uint32_t last_wait_by; /* who ended its latest wait (GD_WAKER_* or an index in gs) */
    int64_t last_sys;      /* the length of its latest syscall, -1 once a gotrace.fd named it */
    /* Its syscalls that waited on a pipe, FIFO or Unix socket, by the descriptor's name (the
     * gotrace.fd log after each: "pipe:[12345]"), in order of first appearance. */
    struct gd_reason_acc *fds;
    uint32_t nfds, fcap;
};

/* Wakers that are not goroutines. A wait ends in one of four ways: a goroutine's GoUnblock
 * (the waker: for our traces the thread that unlocked, signalled, posted, arrived last or
 * exited), a GoUnblock without a goroutine written with a stack on the waiter's own thread
 * (libgotrace.so's waiter that ended its wait itself when its call returned, with the
 * call's stack: docs/blocking.md), one without a goroutine otherwise (Go's runtime: timers,
 * the network poller, which write no stack then; or a trace without stacks), or the end of the
 * trace. */
#define GD_WAKER_NONE UINT32_MAX       /* without a goroutine, not on the waiter's (known) thread */
#define GD_WAKER_END (UINT32_MAX - 1)  /* still waiting at the end of the trace */
#define GD_WAKER_SELF (UINT32_MAX - 2) /* the waiter itself (no goroutine, its thread, a stack) */
/* A wait its waiter ended itself that libgotrace.so says more of, in a "gotrace.ended" log
 * written right after it ("child 1234 exited, status 0", "SIGCHLD from pid 1234, uid 0":
 * docs/blocking.md "Across processes"): GD_WAKER_TEXT | the log's interned text, in gd_wake only.
 */
#define GD_WAKER_TEXT 0x80000000u
#define GD_WAKER_IS_TEXT(w) ((w) >= GD_WAKER_TEXT && (w) < GD_WAKER_SELF)
/* Whether waker (of gd_wake, gd_ana_g.ended_by) is a goroutine. */
#define GD_WAKER_IS_G(w) ((w) < GD_WAKER_TEXT)

/* How often goroutine g (index in gd_ana.gs, or GD_WAKER_*) ended a wait at site: the one
 * running on the thread that wrote the wait's GoUnblock. */
struct gd_wake {
    uint32_t site, g;
    uint64_t count;
};

/* A waiting site: a reason and a blocking stack, grouped by text across generations. count,
 * total and max are over its ended waits, those still open at the end of the trace included
 * (up to the end). */
struct gd_site {
    uint32_t reason; /* interned */
    uint32_t stack;  /* interned text (stacktext.h) */
    uint64_t count;
    int64_t total, max;
};

struct gd_open_task {
    uint32_t name; /* interned */
    int64_t start;
};

/* What an analysis built on this one is told, in event order, during gd_ana_event and
 * gd_ana_finish, with a->user the pointer given to gd_ana_init. Any callback may be NULL. The
 * gd_ana_g pointers are valid only during the call (a->gs may move afterwards). */
struct gd_ana;
struct gd_ana_cb {
    /* An interval of g in state (GS_*) ended: every interval once, in the order they end. g
     * still describes the interval: g->reason and g->site for GS_WAITING, g->since_stack. */
    void (*slice)(struct gd_ana *a, const struct gd_ana_g *g, uint8_t state, int64_t start,
                  int64_t end);
    /* waker (a goroutine) made wakee runnable at t, right after the slice of wakee's wait;
     * flow is a fresh id. */
    void (*wake)(struct gd_ana *a, const struct gd_ana_g *waker, const struct gd_ana_g *wakee,
                 int64_t t, uint64_t flow);
    /* wakee started running at t, completing flow. */
    void (*flow_end)(struct gd_ana *a, const struct gd_ana_g *wakee, int64_t t, uint64_t flow);
    /* Region r of g ended at end (regions of g nest). */
    void (*region)(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_open_region *r,
                   int64_t end);
    /* g wrote the UserLog ev (strings are gen's). */
    void (*log)(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_tev *ev,
                const struct gd_gen *gen);
    /* A CPU sample at t of g (NULL: none) with the interned text of its stack (want_stacks,
     * else 0). */
    void (*sample)(struct gd_ana *a, const struct gd_ana_g *g, int64_t t, uint32_t stack);
};

struct gd_ana {
    struct gd_hmap gmap, sitemap;
    struct gd_ana_g *gs;
    size_t ngs, gcap;
    struct gd_site *sites;
    size_t nsites, scap;
    struct gd_hmap wakemap; /* site << 32 | waker -> index in wakes */
    struct gd_wake *wakes;
    size_t nwakes, wcap;
    struct gd_intern str;
    struct gd_name_accs regions, tasks, leaves; /* by region name, task name, leaf function */
    struct gd_hmap taskmap;                     /* open task id -> index in otasks */
    struct gd_open_task *otasks;
    size_t notasks, otcap;
    uint32_t *otfree; /* free slots in otasks */
    size_t notfree, otfcap;
    uint64_t nsamples, nsamples_nog; /* CPU samples: all, and those without a goroutine */
    /* Per-generation caches: (stack id, reason string id) -> site, string id -> interned,
     * stack id -> interned leaf function. */
    struct gd_hmap gsite, gstr, gleaf;
    int want_stacks;           /* fill gd_ana_g.since_stack and the sample callback's stack */
    struct gd_hmap gstk;       /* per generation: stack id -> interned stack text */
    struct gd_stack_text text; /* scratch for the stack texts built */
    uint64_t cache_gen;
    /* The current generation's process records of goroutines not seen yet: id -> index in
     * procrec (a merged trace's; gacc gives them to a goroutine when it first shows). */
    struct gd_hmap gproc;
    struct {
        uint64_t pid;
        uint32_t name;
    } * procrec;
    size_t nprocrec, procreccap;
    int multi;        /* the trace names its goroutines' processes: a merge of several */
    int64_t t0, tend; /* the first and the last event's time; t0 INT64_MIN before any */
    uint64_t nflows;  /* flow ids given so far */
    const struct gd_ana_cb *cb;
    void *user;
};

/* An empty analysis calling cb (NULL: none) with a->user = user; set want_stacks before the
 * first event. */
void gd_ana_init(struct gd_ana *a, const struct gd_ana_cb *cb, void *user);
/* Frees everything, interned texts included. */
void gd_ana_free(struct gd_ana *a);
/* Feeds one ordered event (as gd_dec_next returns them) of generation g; returns 0, or -1 when
 * out of memory (what was fed stays consistent). */
int gd_ana_event(struct gd_ana *a, const struct gd_tev *ev, const struct gd_gen *g);
/* Closes every open interval and region at the last event time, once, after the last event:
 * the totals are final only then. */
void gd_ana_finish(struct gd_ana *a);
/* Feeds every event of d, then gd_ana_finish. 0 at the end of the trace; -1 bad trace, -2 out
 * of memory, both already reported on stderr for file. */
int gd_ana_run(struct gd_ana *a, struct gd_dec *d, const char *file);

#define GD_NAME_MAX 160 /* buffer size for gd_ana_name (longer names are cut) */
/* A goroutine's display name into buf (GD_NAME_MAX bytes), the one every command uses:
 * "LABEL (START)" when its thread has a name, else "START" (its start routine), else "G<id>";
 * with_id puts the goroutine id in: "LABEL (G<id> START)", "START (G<id>)", "G<id>". */
const char *gd_ana_name(const struct gd_ana *a, const struct gd_ana_g *g, int with_id, char *buf);
/* Formats a duration in ns with a unit into buf (n bytes) and returns buf: "750ns", "1.50us",
 * "2.25ms", "1.500s"; a negative one as "0ns". */
const char *gd_fmt_dur(int64_t ns, char *buf, size_t n);

#endif
