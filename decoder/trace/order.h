/* order.h: Go's ordering engine (src/internal/trace/order.go) for one trace: per-G/P/M state,
 * sequence counters, ranges, regions and tasks, kept across generations.
 * Invariants: an event is either accepted (its effects applied, 1-3 events queued), refused
 * for now (nothing changed; another thread must advance first), or an error. Goroutine
 * state is indexed by id in a hash map; states of destroyed goroutines are freed. */
#ifndef GOTRACE_DECODER_ORDER_H
#define GOTRACE_DECODER_ORDER_H

#include "gderr.h"
#include "hmap.h"
#include "reader.h"

#include <stdint.h>

/* Resource states as Go's trace.GoState / trace.ProcState. */
enum { GS_UNDET, GS_NOTEXIST, GS_RUNNABLE, GS_RUNNING, GS_WAITING, GS_SYSCALL };
enum { PS_UNDET, PS_NOTEXIST, PS_RUNNING, PS_IDLE };

/* One ordered event. ctx (m, p, g) is the scheduling context it happened in. */
struct gd_tev {
    uint8_t type; /* go_ev, or GD_EV_SYNC */
    int64_t time; /* ns */
    uint64_t m, p, g;
    uint64_t args[4];
    uint64_t extra;    /* old state (statuses, ProcSteal) or parent task (UserTaskEnd) */
    const char *xname; /* UserTaskEnd: the task's name (valid until the next event) */
    uint32_t xlen;
    int64_t off; /* file offset of the event, -1 if synthesized */
};

struct gd_range {
    uint8_t typ;
    uint64_t desc;
};

struct gd_gstate {
    uint64_t id;
    uint8_t status; /* go_gstatus */
    uint64_t seqgen, seq;
    struct gd_range *ranges;
    uint32_t nranges, rcap;
    struct {
        uint64_t task, name; /* name: hash of the string */
    } * regions;
    uint32_t nregions, regcap;
};

struct gd_pstate {
    uint64_t id;
    uint8_t status; /* go_pstatus */
    uint64_t seqgen, seq;
    struct gd_range *ranges;
    uint32_t nranges, rcap;
};

struct gd_mstate {
    uint64_t id, g, p;
};

struct gd_task {
    uint64_t parent;
    char *name;
    uint32_t len;
};

struct gd_order {
    struct gd_hmap gmap, pmap, mmap, tmap; /* id -> index into the arrays below */
    struct gd_gstate *gs;
    size_t ngs, gcap;
    uint32_t *gfree; /* free slots in gs */
    size_t ngfree, gfcap;
    struct gd_pstate *ps;
    size_t nps, pcap;
    struct gd_mstate *ms;
    size_t nms, mcap;
    struct gd_task *tasks;
    size_t ntasks, tcap;
    uint32_t *tfree;
    size_t ntfree, tfcap;
    uint64_t gcseq;
    int gcstate; /* 0 undetermined, 1 not running, 2 running */
    uint64_t initial_gen;
    char *tname; /* name of the last ended task, for gd_tev.xname */
    struct gd_tev q[4];
    unsigned qhead, qlen;
};

void gd_order_init(struct gd_order *o);
void gd_order_free(struct gd_order *o);
/* Tries to apply ev (read from thread m's stream in generation gen): 1 = accepted (events
 * queued), 0 = not yet, -1 = error (err->msg set; location left to the caller). */
int gd_order_advance(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, uint64_t m,
                     struct gd_err *err);
/* Pops a queued event; 0 when the queue is empty. */
int gd_order_pop(struct gd_order *o, struct gd_tev *ev);

/* FNV-1a hash of a string: identifies region names across generations. */
uint64_t gd_strhash(const char *s, size_t n);

#endif
