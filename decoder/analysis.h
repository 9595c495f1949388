/* analysis.h: per-goroutine (per-thread, for our traces) accounting shared by summary,
 * contention and export: time in each state, waits by reason and by blocking stack, wakers.
 * Invariants: every goroutine interval is closed exactly once (at its next transition or at
 * the end of the trace); names, reasons and wait sites are copied out of the generation's
 * tables (interned), so they survive generation changes; memory grows with goroutines and
 * distinct wait sites, never with events. */
#ifndef GOTRACE_DECODER_ANALYSIS_H
#define GOTRACE_DECODER_ANALYSIS_H

#include "hmap.h"
#include "order.h"
#include "reader.h"

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

struct gd_ana_g {
    uint64_t id, m;
    uint32_t name; /* interned; 0 = unnamed */
    uint8_t state; /* GS_* */
    int64_t since, first, last;
    int64_t ns_run, ns_runnable, ns_sys, ns_wait;
    uint64_t nblock, nsys;
    uint32_t reason, site; /* of the current wait */
    struct gd_reason_acc *reasons;
    uint32_t nreasons, rcap;
    uint64_t flow; /* pending flow id (wake -> next start), 0 = none */
};

struct gd_waker {
    uint32_t name;
    uint64_t count;
};

struct gd_site {
    uint32_t reason;
    uint32_t stack; /* interned text: one "func file:line" line per frame */
    uint64_t count;
    int64_t total, max;
    struct gd_waker w[8];
    uint32_t nw;
    uint64_t wother;
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
};

struct gd_ana {
    struct gd_hmap gmap, sitemap;
    struct gd_ana_g *gs;
    size_t ngs, gcap;
    struct gd_site *sites;
    size_t nsites, scap;
    struct gd_intern str;
    /* Per-generation caches: (stack id, reason string id) -> site, string id -> interned. */
    struct gd_hmap gsite, gstr;
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
/* Closes every open interval at the last event time. */
void gd_ana_finish(struct gd_ana *a);
/* A goroutine's display name ("G<id>" when unnamed) into buf. */
const char *gd_ana_name(const struct gd_ana *a, const struct gd_ana_g *g, char *buf, size_t n);
/* Formats a duration in ns with a unit (ns, us, ms, s). */
const char *gd_fmt_dur(int64_t ns, char *buf, size_t n);

#endif
