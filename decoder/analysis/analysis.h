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

struct gd_intern {
    struct gd_hmap map; /* hash -> index */
    char **s;
    uint32_t *len;
    size_t n, cap, lcap;
};
uint32_t gd_intern(struct gd_intern *t, const char *s, uint32_t len);

struct gd_reason_acc {
    uint32_t reason;
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

struct gd_name_accs {
    struct gd_hmap map; /* interned name -> index in v */
    struct gd_name_acc *v;
    size_t n, cap;
};

struct gd_open_region {
    uint32_t name; /* interned */
    uint64_t task;
    int64_t start;
};

struct gd_ana_g {
    uint64_t id, m;
    uint32_t start; /* interned outermost function of its first stack; 0 = unknown */
    uint32_t label; /* interned latest GoLabel (the thread's name); 0 = none */
    uint8_t state;  /* GS_* */
    int64_t since, first, last;
    int64_t ns_run, ns_runnable, ns_sys, ns_wait;
    uint64_t nblock, nsys;
    uint32_t reason, site; /* of the current wait */
    struct gd_reason_acc *reasons;
    uint32_t nreasons, rcap;
    uint64_t flow;               /* pending flow id (wake -> next start), 0 = none */
    struct gd_open_region *regs; /* open regions, innermost last */
    uint32_t nregs, regcap;
    uint64_t nsamples; /* CPU samples taken while it ran */
    /* With want_stacks: interned stack text of the event that began the current interval (the
     * stack Go's trace profiles charge the interval to), 0 = none. */
    uint32_t since_stack;
};

/* Wakers that are not goroutines. */
#define GD_WAKER_NONE UINT32_MAX      /* a wake-up without a goroutine */
#define GD_WAKER_END (UINT32_MAX - 1) /* still waiting at the end of the trace */

/* How often goroutine g (index in gd_ana.gs, or GD_WAKER_*) ended a wait at site. */
struct gd_wake {
    uint32_t site, g;
    uint64_t count;
};

struct gd_site {
    uint32_t reason;
    uint32_t stack; /* interned text (stacktext.h) */
    uint64_t count;
    int64_t total, max;
};

struct gd_open_task {
    uint32_t name; /* interned */
    int64_t start;
};

struct gd_ana;
struct gd_ana_cb {
    /* An interval of g in state (GS_*) ended; reason is set for GS_WAITING. */
    void (*slice)(struct gd_ana *a, const struct gd_ana_g *g, uint8_t state, int64_t start,
                  int64_t end);
    /* waker made wakee runnable at t; flow is a fresh id. */
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
    /* A CPU sample at t of g (NULL: none) with the interned text of its stack (want_stacks). */
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
    int64_t t0, tend;
    uint64_t nflows;
    const struct gd_ana_cb *cb;
    void *user;
};

void gd_ana_init(struct gd_ana *a, const struct gd_ana_cb *cb, void *user);
void gd_ana_free(struct gd_ana *a);
/* Feeds one ordered event; returns 0, or -1 when out of memory. */
int gd_ana_event(struct gd_ana *a, const struct gd_tev *ev, const struct gd_gen *g);
/* Closes every open interval and region at the last event time. */
void gd_ana_finish(struct gd_ana *a);
/* Feeds every event of d, then gd_ana_finish. 0 at the end of the trace; -1 bad trace, -2 out
 * of memory, both already reported on stderr for file. */
int gd_ana_run(struct gd_ana *a, struct gd_dec *d, const char *file);

#define GD_NAME_MAX 160 /* buffer size for gd_ana_name (longer names are cut) */
/* A goroutine's display name into buf (GD_NAME_MAX bytes), the one every command uses:
 * "LABEL (START)" when its thread has a name, else "START" (its start routine), else "G<id>";
 * with_id puts the goroutine id in: "LABEL (G<id> START)", "START (G<id>)", "G<id>". */
const char *gd_ana_name(const struct gd_ana *a, const struct gd_ana_g *g, int with_id, char *buf);
/* Formats a duration in ns with a unit (ns, us, ms, s). */
const char *gd_fmt_dur(int64_t ns, char *buf, size_t n);

#endif
