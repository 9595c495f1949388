/* holders.h: the sync objects of a trace, who held them, and the intervals the critical path
 * walks (docs/locks.md). Built on the per-goroutine analysis (analysis.h) plus gotrace's
 * experimental batch (GT_EXP_SYNC, go_wire.h): a wait record per object wait (the holder's TID
 * at block time) and a release record per release that had waiters (the releaser's stack).
 * An object is named by its wait's block reason without "sync: " ("mutex ledger_lock"; a
 * rwlock's read and write waits are one object, "rwlock table_lock"; a join is "join" and the
 * joined thread); traces without records (Go's) still get objects by reason, without holders.
 * Blame: a wait [s, e] on an object goes to whoever held it: each release record of the object
 * inside the wait ends a part held by the releaser, the rest after the last release goes to the
 * last releaser (the hand-off), and a wait with no release inside to its holder at block time
 * (else "(unknown)"). Nothing holds a condvar, a semaphore, a barrier or a futex word not
 * known to be a lock's (the kind, from the name): a wait on one goes whole to whoever ended it,
 * the thread that signalled, posted, arrived last or woke it (the waker), else to "ended
 * itself" or "still waiting" (HD_NONE, HD_STILL). A run of releases by one holder inside a wait
 * counts as one of its waits.
 * Invariants: every Waiting interval with a sync reason counts once in one object; a wait's
 * blamed parts sum to its length; memory grows with objects, holders, waiting sites, release
 * records, and (only with want_intervals, for the critical path) with intervals. */
#ifndef GOTRACE_DECODER_HOLDERS_H
#define GOTRACE_DECODER_HOLDERS_H

#include "analysis.h"
#include "lockgraph.h"

#define HD_NONE UINT32_MAX
#define HD_STILL (UINT32_MAX - 1) /* an ownerless object's wait still open at the trace's end */

/* Object kinds: what ends a wait on it (hd_kind_of). HD_FUTEX: a futex word not known to be a
 * lock's (a C++20 wait, a Rust thread parker, a raw futex): whoever woke the wait. */
enum { HD_LOCK, HD_CONDVAR, HD_SEMAPHORE, HD_BARRIER, HD_FUTEX };

struct hd_release {
    int64_t t;
    uint64_t m;     /* the releaser's thread */
    uint32_t stack; /* interned text */
};

struct hd_share {   /* one holder's part of an object's waits (of an ownerless one: one waker's) */
    uint32_t g;     /* index in gd_ana.gs, HD_NONE: unknown (ownerless: no waker), HD_STILL */
    uint32_t stack; /* interned text of its last release's (wake-up's) stack, 0 none */
    uint64_t count; /* waits it was blamed for (part of) */
    int64_t ns;
};

struct hd_held { /* a holder's (waker's) part of the waits at one waiting site (gd_ana's sites) */
    uint32_t site, g;
    uint64_t count;
    int64_t ns;
};

struct hd_gheld {          /* a holder's part of one goroutine's waits with one reason (summary) */
    uint32_t holder, next; /* next: the same goroutine and reason's next holder, HD_NONE */
    int64_t ns;
};

struct hd_site {    /* one waiting stack of an object */
    uint32_t stack; /* interned text */
    uint64_t count;
    int64_t total;
};

struct hd_obj {
    uint32_t name; /* interned */
    uint8_t kind;  /* HD_LOCK, ... (hd_kind_of its name) */
    uint64_t waits;
    int64_t total, max;
    struct hd_site *sites;
    size_t nsites, scap;
    struct hd_share *holders;
    size_t nholders, hcap;
    struct hd_release *rel; /* by time (the first nsorted; the rest: this generation's, */
    size_t nrel, relcap;    /* until read_records sorts them in) */
    size_t nsorted;
    int64_t open_min; /* the start of the earliest wait on it in progress (prune_releases) */
    uint32_t acq_g;   /* the last thread whose wait on it ended (it got the object then), at */
    int64_t acq_t;    /* acq_t; HD_NONE: none yet */
};

/* One ended interval of a goroutine (want_intervals). */
struct hd_iv {
    int64_t start, end;
    uint32_t waker; /* a wait ended by another goroutine: its index, else HD_NONE */
    uint32_t obj;   /* a wait on an object: its index, else HD_NONE */
    uint32_t stack; /* interned text of the stack that began it, 0 none */
    uint32_t reason;
    uint32_t holder; /* a wait on an object: its holder at block time (hd_g.holder), else HD_NONE */
    uint8_t state;   /* GS_* */
};

struct hd_g {        /* per goroutine, by index in gd_ana.gs */
    int waiting;     /* the fields below describe the current wait */
    uint32_t obj;    /* object, HD_NONE */
    uint32_t holder; /* goroutine index of the holder at block time, HD_NONE */
    uint64_t holder_m;
    int64_t since;
    struct hd_iv *iv;
    size_t niv, ivcap;
    int64_t state_since; /* when its state at the end (of the events fed) began */
    uint32_t creator;    /* who created it, HD_NONE */
    int64_t created;
    /* Its last wait or system call (hangs' waits across processes): the state (GS_WAITING,
     * GS_SYSCALL), its interned reason, when it began and ended (0: not yet), and whether the
     * thread did something after it (a log, a creation, a task event: went on; a merge's or a
     * recovery's end of a killed process's thread writes none). */
    uint8_t lw_state, lw_on;
    uint32_t lw_reason;
    int64_t lw_begin, lw_end;
};

/* A gotrace.deadlock log of the live check's waits across processes (docs/locks.md section
 * 6): its time and text, which ends in "[reader TID; waiting TID...]". */
struct hd_dlog {
    int64_t t;
    char *text;
};

struct hd_rec { /* a wait record of the current generation */
    int64_t t;
    uint64_t m, reason, addr, holder;
    uint32_t next; /* next record of the same thread, HD_NONE */
    int used;
};

struct hd_region { /* the longest region instance of the wanted name */
    uint32_t g;
    int64_t start, end;
};

struct hd {
    struct gd_ana a;
    int want_intervals;
    int holders_only;       /* only holders are wanted (summary, contention, export): waits are not
                               followed before the trace's first record (none can have a holder) */
    int any_records;        /* a generation so far had gotrace's records */
    struct gd_hmap objmap;  /* interned name -> object */
    struct gd_hmap addrmap; /* object address -> object */
    struct gd_hmap mmap;    /* thread (M) -> goroutine index running on it last */
    struct {                /* the last goroutine id put in mmap for a thread, by m % 256 */
        uint64_t m, gid;
    } mlast[256];
    struct gd_hmap sitemap;  /* object << 32 | stack text -> index in the object's sites */
    struct gd_hmap rcache;   /* this generation: reason string id -> object + 1 (0: none) */
    struct gd_hmap siteheld; /* site << 32 | holder -> index in held */
    struct gd_hmap gheldmap; /* waiter << 32 | reason (interned) -> first index in gheld */
    struct hd_gheld *gheld;
    size_t ngheld, gheldcap;
    uint64_t nevents, ngens; /* of the decoder, when hd_run ends */
    struct hd_held *held;    /* holders by waiting site (contention), known holders only (of */
    size_t nheld, heldcap;   /* ownerless objects: every waker, HD_NONE and HD_STILL too) */
    struct gd_hmap freedmap; /* site << 32 | releaser -> index in freed */
    struct hd_held *freed;   /* lock waits that ended themselves (GD_WAKER_SELF) after a */
    size_t nfreed, freedcap; /* release inside them: by site and last releaser (contention) */
    struct hd_obj *objs;
    size_t nobjs, ocap;
    struct hd_g *gx;
    size_t gxcap;
    struct hd_rec *recs; /* this generation's wait records */
    size_t nrecs, reccap;
    struct gd_hmap recmap;  /* thread -> first unused record */
    struct gd_hmap rectail; /* thread -> its last record (appends) */
    uint32_t *touched;      /* objects with releases in this generation */
    size_t ntouched, touchedcap;
    uint64_t rec_gen;
    int64_t t0;              /* the first event's time */
    const char *region_name; /* --region: the longest instance is kept in region */
    struct hd_region region; /* g HD_NONE: none found */
    uint64_t task;           /* --task: its begin and end */
    int64_t task_begin, task_end;
    uint32_t task_g;
    int finishing;    /* gd_ana_finish is closing the intervals still open */
    size_t iv_budget; /* with want_intervals: at most this many kept (0: no limit), */
    size_t niv;       /* how many are kept, */
    int iv_over;      /* and whether there were more (then none are kept) */
    /* A merged trace's gotrace.fork and gotrace.spawn logs whose child has not shown yet: its
     * pid -> index in forks (the forker and the time), for the creator of its first thread. */
    struct gd_hmap forkmap;
    /* A merged trace's processes whose exit ended another's wait for a child: pid -> the
     * waiter (goroutine index), the first one (hd_parent_of). */
    struct gd_hmap exitwait;
    struct {
        uint32_t g;
        int64_t t;
    } * forks;
    size_t nforks, forkcap;
    struct lg lg;          /* lock tracking's records (lockgraph.h), locks by object index */
    struct hd_dlog *dlogs; /* the live check's deadlocks across processes, in order */
    size_t ndlogs, dlogcap;
    const struct gd_ana_cb *next; /* hd_chain: another analysis of the same pass */
    void *next_user;
};

/* want_intervals: keep every interval (critical path). */
void hd_init(struct hd *s, int want_intervals);
void hd_free(struct hd *s);
/* After another analysis set its callbacks on s->a (report_model.c's rm_init): s takes them
 * over and calls them after its own, with a->user theirs. */
void hd_chain(struct hd *s);
/* Feeds d's events up to time stop (ns from the trace's start; INT64_MAX: all), then closes
 * the analysis (gd_ana_finish) when all were fed. 0 ok; -1 bad trace, -2 out of memory, both
 * reported on stderr for file. */
int hd_run(struct hd *s, struct gd_dec *d, const char *file, int64_t stop);
/* The holder share of object o for goroutine g (creating it); NULL when out of memory. */
struct hd_share *hd_share_of(struct hd_obj *o, uint32_t g);
/* The holder blamed most for goroutine g's waits with reason (an interned reason of its
 * gd_reason_acc), and *ns its part; HD_NONE and *ns 0 if none is known (for an ownerless
 * object's waits, HD_NONE with *ns > 0 is "ended itself", HD_STILL "still waiting"). */
uint32_t hd_top_holder(const struct hd *s, uint32_t g, uint32_t reason, int64_t *ns);
/* Whether an interned wait reason is a wait for another process, which a thread of the tree
 * ends in a merged trace (docs/processes.md): 1 for a child ("wait: ..."), 2 for a signal
 * ("signal: ...") or a pipe's or socket's read ("pipe: ...", "socket: ...": a thread of its own
 * process may end it too), else 0. hd_top_holder gives who ended such waits (no object holds
 * them). */
int hd_process_wait(const struct hd *s, uint32_t reason);
/* For goroutine g of a merged trace: the thread whose wait for a child g's process's exit
 * ended (its parent, which spawned it: a creator where no gotrace.fork log said one, as for
 * vfork and posix_spawn); HD_NONE if none. */
uint32_t hd_parent_of(const struct hd *s, uint32_t g);
/* The goroutine index running on thread m last, HD_NONE if none. */
uint32_t hd_g_of_m(const struct hd *s, uint64_t m);
/* The releases of o in (after, upto]: their index range [*first, *end). */
void hd_releases(const struct hd_obj *o, int64_t after, int64_t upto, size_t *first, size_t *end);
/* Who held an object at a time (hd_holder_at). */
enum {
    HD_HOLD_UNKNOWN, /* no holder recorded at block time, and no release since */
    HD_HOLD_BLOCK,   /* g: the holder at block time, with no release of the object since */
    HD_HOLD_HANDED,  /* g: got it at t, after the last release since the block (by `by`) */
    HD_HOLD_FREE     /* `by` released it at t; no thread is known to have taken it since */
};
struct hd_hold {
    int how;     /* HD_HOLD_* */
    uint32_t g;  /* the holder (goroutine index), HD_NONE for UNKNOWN and FREE */
    uint32_t by; /* HANDED, FREE: the last releaser (HD_NONE: a thread not in the trace) */
    int64_t t;   /* HANDED: when g got it; FREE: the release; else the block */
};
/* Who held object obj at time at, for a wait on it that began at since with holder h0 at block
 * time (HD_NONE: unknown). Releases after at are not believed (`hangs --at` reads a whole
 * generation's records, later ones too): with no release of obj in (since, at] the holder is
 * h0; after the last one, the thread whose wait on obj ended last in [release, at] (it was
 * handed the object), from the object's last acquisition or, with intervals kept, from them;
 * else nobody known (FREE). */
void hd_holder_at(const struct hd *s, uint32_t obj, uint32_t h0, int64_t since, int64_t at,
                  struct hd_hold *out);
/* Whether object obj has an owner a release is recorded for (a mutex, a rwlock, a join: the
 * joined thread); condvars, semaphores, barriers and the others have none. */
int hd_obj_owned(const struct hd *s, uint32_t obj);
/* Display name of goroutine index g (HD_NONE: "(unknown)") into buf (GD_NAME_MAX). */
const char *hd_gname(const struct hd *s, uint32_t g, char *buf);
/* Parses a time ("1.5s", "300ms", "20us", "500ns", or ns) into *ns; -1 when bad. */
int hd_parse_time(const char *text, int64_t *ns);
/* The kind of the object named name (or of the wait with that reason, "sync: " first):
 * HD_CONDVAR, HD_SEMAPHORE, HD_BARRIER ("barrier", "omp barrier"), HD_FUTEX, else HD_LOCK. */
uint8_t hd_kind_of(const char *name);
/* A kind's words for who a share names: "held by", "signalled by", "posted by", "arrived
 * last", "woken by" (contention's list), and for the stack of its release or wake-up:
 * "released", "signalled", "posted", "arrived", "woke it". */
const char *hd_kind_by(uint8_t kind);
const char *hd_kind_at(uint8_t kind);
/* Share g of an object of kind as a name into buf (GD_NAME_MAX): the thread's (hd_gname), or
 * "(unknown)" (a lock's HD_NONE), "(ended itself: no waker recorded)" (an ownerless object's
 * HD_NONE), "(still waiting at trace end)" (HD_STILL). */
const char *hd_who(const struct hd *s, uint8_t kind, uint32_t g, char *buf);
/* The same as a phrase into buf (n bytes): "held by NAME", "signalled by NAME", "posted by
 * NAME", "NAME arrived last", "woken by NAME", or the pseudo-name alone; with_id as
 * gd_ana_name's. */
const char *hd_phrase(const struct hd *s, uint8_t kind, uint32_t g, int with_id, char *buf,
                      size_t n);
/* The function a stack text (stacktext.h) names: its first frame outside the pthread and
 * semaphore calls, copied into buf; "" for none. */
const char *hd_stack_func(const char *stack, char *buf, size_t n);
#endif
