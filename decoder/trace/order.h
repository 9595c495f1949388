/* order.h: Go's ordering engine (src/internal/trace/order.go) for one trace: per-G/P/M state,
 * sequence counters, ranges, regions and tasks, kept across generations.
 * Each thread's events are in order in its stream; nothing in the file orders the streams
 * against each other but sequence numbers and states (timestamps only say what to try first).
 * The engine replays the runtime's scheduler: it accepts an event once everything it depends
 * on has been accepted, which yields one global order that respects every thread's order.
 * Invariants: an event is either accepted (its effects applied, 1-3 events queued), refused
 * for now (nothing changed; another thread must advance first), or an error. Goroutine
 * state is indexed by id in a hash map; states of destroyed goroutines are freed, so the
 * memory follows the live goroutines, not all that ever existed. */
#ifndef GOTRACE_DECODER_ORDER_H
#define GOTRACE_DECODER_ORDER_H

#include "gderr.h"
#include "hmap.h"
#include "reader.h"

#include <stdint.h>

/* Resource states as Go's trace.GoState / trace.ProcState: the API's view, used by events'
 * transitions (transition.h). The engine itself keeps the wire's statuses (go_wire.h), which
 * tell a P in a syscall, or abandoned in one, from a running or an idle P. */
enum { GS_UNDET, GS_NOTEXIST, GS_RUNNABLE, GS_RUNNING, GS_WAITING, GS_SYSCALL };
enum { PS_UNDET, PS_NOTEXIST, PS_RUNNING, PS_IDLE };

/* One ordered event. ctx (m, p, g) is the scheduling context it happened in: the thread's
 * proc and goroutine before the event (a GoStart's g is none; the goroutine it starts is an
 * argument), or GD_NONE for each that is absent. */
struct gd_tev {
    uint8_t type; /* go_ev, or GD_EV_SYNC */
    int64_t time; /* ns */
    uint64_t m, p, g;
    uint64_t args[4];  /* as on the wire, but for what order.c rewrites (STWEnd's kind, task
                        * parent 0 -> GD_NONE, an abandoned P's status promoted) */
    uint64_t extra;    /* old state (statuses, ProcSteal) or parent task (UserTaskEnd) */
    const char *xname; /* UserTaskEnd: the task's name (valid until the next event) */
    uint32_t xlen;
    int64_t off; /* file offset of the event, -1 if synthesized */
};

/* A special range in flight (Go's rangeType): the type of its Begin event, and for STW the
 * string id of its kind (0 for the others). */
struct gd_range {
    uint8_t typ;
    uint64_t desc;
};

/* A goroutine. (seqgen, seq) is Go's seqCounter: the generation and the sequence number of the
 * last event that moved it; a status event or its creation sets (generation, 0). */
struct gd_gstate {
    uint64_t id;
    uint8_t status; /* go_gstatus */
    uint64_t seqgen, seq;
    struct gd_range *ranges; /* STW and mark assist ranges in flight on it */
    uint32_t nranges, rcap;
    /* Its user regions, innermost last. Names are compared by hash: Go compares the strings,
     * since a name's string id differs from one generation to the next. */
    struct {
        uint64_t task, name; /* name: hash of the string */
    } * regions;
    uint32_t nregions, regcap;
};

/* A proc, with its wire status and seqCounter as for goroutines. Procs are never freed: a
 * program has few, and a stopped one comes back under the same id. */
struct gd_pstate {
    uint64_t id;
    uint8_t status; /* go_pstatus */
    uint64_t seqgen, seq;
    struct gd_range *ranges; /* GC sweep ranges in flight on it */
    uint32_t nranges, rcap;
};

/* A thread: the goroutine and proc bound to it (GD_NONE if none), kept across generations, so
 * an event needs no status to know what runs on its own thread. */
struct gd_mstate {
    uint64_t id, g, p;
};

/* An active user task. The name is copied out of the generation's string table because the
 * task may end generations later, where its begin's string id means nothing. */
struct gd_task {
    uint64_t parent; /* GD_NONE: no parent */
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
    uint64_t gcseq; /* gc_seq of the last GC event accepted */
    int gcstate;    /* 0 undetermined, 1 not running, 2 running */
    /* The first generation seen: only there may a status introduce an unknown goroutine, or an
     * Active event establish a range (the trace started in the middle of things). */
    uint64_t initial_gen;
    char *tname; /* name of the last ended task, for gd_tev.xname */
    /* Accepted events waiting to be popped, a ring. One advance queues at most 3 (GoSwitch: the
     * switch, the current goroutine's block or destroy, the next one's start) and the decoder
     * pops the queue empty before it advances again, so 4 entries never overflow. */
    struct gd_tev q[4];
    unsigned qhead, qlen;
};

/* An engine with no state yet: the first generation advanced becomes the initial one. */
void gd_order_init(struct gd_order *o);
/* Frees all states; o is then empty again. */
void gd_order_free(struct gd_order *o);
/* Tries to apply ev (read from thread m's stream in generation gen): 1 = accepted (events
 * queued), 0 = not yet, -1 = error (err->msg set; location left to the caller). Generations
 * must come in increasing order. On 1, ev itself may have been changed (its extra, some
 * arguments) and the queue holds copies with their context set; the caller reads the queue,
 * not ev. On 0 no state the event concerns changed (a thread seen for the first time is
 * recorded, as Go does), and the same event is offered again later. */
int gd_order_advance(struct gd_order *o, struct gd_tev *ev, const struct gd_gen *g, uint64_t m,
                     struct gd_err *err);
/* Pops the oldest queued event into ev: 1, or 0 when the queue is empty. */
int gd_order_pop(struct gd_order *o, struct gd_tev *ev);

/* FNV-1a hash of a string: identifies region names (and STW kinds, validate.c) across
 * generations, where string ids change. */
uint64_t gd_strhash(const char *s, size_t n);

#endif
