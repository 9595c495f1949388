/* merge.c: several processes' traces as one (merge.h; the design: docs/processes.md).
 * The output is written as it goes: each thread's events collect in its open batch (at most
 * 64 KiB, written when full), the strings, stacks and CPU samples of the generation in their own
 * batches, and a generation ends (everything written, tables emptied) when it spans
 * MG_WINDOW_NS of the run or holds MG_GEN_BYTES. The next one starts with the status of every
 * live goroutine and proc, so each output generation stands alone as Go requires.
 * Invariants: the state kept here (which goroutine and proc each thread holds, each one's state
 * and sequence number in the current generation) is the state Go's reader will have after the
 * events written so far, so every event is written with the sequence number the reader
 * expects; an input event is translated in the generation it was read in (its string and stack
 * ids mean something only there); times written never go down on a thread. */
#include "merge.h"

#include "decode.h"
#include "evspec.h"
#include "go_wire.h"
#include "grow.h"
#include "hmap.h"

#include <stdlib.h>
#include <string.h>

#define MG_WINDOW_NS 1000000000LL /* by default a generation spans at most 1 s of the run */
#define MG_GEN_BYTES (4u << 20)   /* or holds about 4 MiB of events */
#define MG_EV_MAX (1 + 10 * 5)    /* type, dt, 4 args */
#define MG_SYNTH_M 0              /* the thread that starts and ends goroutines not running */
#define MG_TASK_SHIFT 40          /* a task id is kept, its process's number above these bits */
#define MG_LATE_WAKE_NS 10000000  /* a kill's or post's log at most this late after its wake */

struct mg_buf {
    uint8_t *p;
    size_t len, cap;
};

/* A thread of the output: what it holds, and its open batch of the current generation. */
struct mg_m {
    uint64_t id;
    uint64_t g, p;     /* output goroutine and proc bound to it, GD_NONE if none */
    size_t owner;      /* the input that uses it */
    struct mg_buf b;   /* events of the open batch */
    int64_t bts, last; /* the batch's base time, the thread's last event time */
    int used;
    int keep; /* a process's last thread, kept running past its input's end (keep_exiter) */
};

struct mg_g { /* a live output goroutine */
    uint64_t id, seq;
    uint8_t st;  /* go_gstatus */
    uint32_t m;  /* index in ms while Running or in a syscall */
    uint32_t in; /* its input */
    uint64_t in_id;
    /* Its current wait, when another process may end it (docs/processes.md, "Waits across
     * processes"): for a child (wpid: its pid, MG_ANY_CHILD any, 0 not such a wait) or for a
     * signal (wsig). early: merge wrote its unblock by the process that ended the wait, so its
     * own (the waiter's, when its call returned) is dropped. */
    int64_t wpid;
    uint8_t wsig, early;
    uint64_t wobj;   /* a wait a log of another process may end (wait_object), else 0 */
    uint64_t exiter; /* the last thread of the child whose exit ended its wait (keep_exiter) */
};
#define MG_ANY_CHILD (-1)

struct mg_p { /* an output proc; ids are indices, Idle ones of ended processes are reused */
    uint64_t seq;
    uint8_t st; /* go_pstatus: Running, Idle or Syscall */
    uint32_t m;
};

/* A sync record of an input (go_wire.h GT_SYNC_*): time in ns, its order among the generation's
 * records (ties keep it), type, and its values as written (v[0] the time in ticks, v[1] the
 * thread, v[2] the object's address, then the type's own). */
struct mg_rec {
    int64_t t;
    uint32_t k;
    uint8_t type;
    uint64_t v[9];
};

struct mg_in {
    const char *path;
    struct gd_dec d;
    int state;        /* 0 not opened yet, 1 open, 2 ended */
    int64_t start;    /* time of its first event */
    struct gd_tev ev; /* its next event, when open */
    /* Its ids -> ours: goroutine -> id, proc -> index in ps, thread -> index in ms. */
    struct gd_hmap gmap, pmap, mmap;
    /* Its string and stack ids -> ours, valid for input generation cgen in output cog. */
    struct gd_hmap smap, kmap;
    uint64_t cgen, cog;
    char prefix[GT_PROC_NAME_MAX + 32]; /* "name[pid]" */
    char pname[GT_PROC_NAME_MAX + 1];   /* its process: name and pid (0 unknown), parent */
    uint64_t pid, ppid;
    int last_image; /* no input of its pid starts later: its end is its process's exit */
    /* Its current generation's sync records (gotrace's holders and releases), by time;
     * rcur: the next one to write. */
    struct mg_rec *recs;
    size_t nrecs, reccap, rcur;
    uint64_t rgen;
    int rparsed;
};

struct mg {
    struct mg_in *in;
    size_t n, bad; /* bad: the input at fault */
    int outfail;   /* writing the output failed */
    int located;   /* err already says where (a generation's sync records) */
    int rename;
    int64_t window; /* longest generation, ns */
    const struct gd_merge_out *out;
    struct gd_err *err;
    uint64_t gen; /* current output generation, 0 before the first */
    int open;     /* a generation is open */
    int64_t t0, now;
    size_t bytes; /* written in the current generation */
    struct mg_m *ms, mless;
    size_t nms, mcap;
    struct gd_hmap mmap; /* thread id -> index in ms */
    struct mg_g *gs;
    size_t ngs, gcap;
    struct gd_hmap gmap; /* goroutine id -> index in gs */
    uint64_t gnext;
    struct mg_p *ps;
    size_t nps, pcap;
    uint32_t *mfree; /* slots of ms whose thread ended with its process */
    size_t nmfree, mfcap;
    uint32_t *pfree; /* Idle procs of ended processes */
    size_t npfree, pfcap;
    uint64_t sp; /* the synthetic thread's proc, GD_NONE until needed */
    /* The tables' open batches, gotrace's sync records (sync: waits and releases; lsync: lock
     * tracking's, written after them at the generation's end, as the tracer orders them:
     * go_wire.h) and process records. */
    struct mg_buf strs, stks, cpu, sync, lsync, procs;
    size_t *lcuts, nlcuts, lccap;
    struct gd_hmap strmap, stkmap, pcmap; /* content hash -> string id, stack id, pc */
    uint64_t nstr, nstk, npc;
    size_t *heap, nheap;
};

static int oom(struct mg *g)
{
    return gd_fail(g->err, "out of memory");
}

static int put(struct mg_buf *b, const void *s, size_t n)
{
    if (gd_grow((void **)&b->p, &b->cap, b->len + n, 1)) return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

static size_t uv(uint8_t *p, uint64_t v)
{
    size_t k = 0;
    for (; v >= 0x80; v >>= 7)
        p[k++] = (uint8_t)(v | 0x80);
    p[k++] = (uint8_t)v;
    return k;
}

static int put_uv(struct mg_buf *b, uint64_t v)
{
    uint8_t t[10];
    return put(b, t, uv(t, v));
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0x100000001b3ull;
}

/* Writes one batch: header (experimental when exp), then the payload. */
static int write_batch(struct mg *g, uint8_t exp, uint64_t m, int64_t ts, const uint8_t *p,
                       size_t len)
{
    uint8_t h[2 + 4 * 10];
    size_t k = 0;
    h[k++] = exp ? GO_EV_EXPERIMENTAL_BATCH : GO_EV_EVENT_BATCH;
    if (exp) h[k++] = exp;
    k += uv(h + k, g->gen);
    k += uv(h + k, m);
    k += uv(h + k, (uint64_t)(ts < 0 ? 0 : ts));
    k += uv(h + k, len);
    if (g->out->write(g->out->ctx, h, k) || (len && g->out->write(g->out->ctx, p, len))) {
        g->outfail = 1;
        return gd_fail(g->err, "cannot write the merged trace");
    }
    g->bytes += k + len;
    return 0;
}

/* Writes a table's open batch (strings, stacks, CPU samples) if it holds more than its kind. */
static int flush_table(struct mg *g, struct mg_buf *b)
{
    int rc = b->len > 1 ? write_batch(g, 0, GO_NO_THREAD, 0, b->p, b->len) : 0;
    b->len = 0;
    return rc;
}

/* Makes room for need bytes in a table batch of kind: writes the open one out if full. */
static int table_room(struct mg *g, struct mg_buf *b, uint8_t kind, size_t need)
{
    if (b->len + need > GO_MAX_BATCH_PAYLOAD && flush_table(g, b)) return -1;
    if (!b->len && put(b, &kind, 1)) return oom(g);
    return 0;
}

/* Writes thread m's open batch out. */
static int flush_m(struct mg *g, struct mg_m *m)
{
    int rc = m->b.len ? write_batch(g, 0, m->id, m->bts, m->b.p, m->b.len) : 0;
    m->b.len = 0;
    return rc;
}

/* One event on thread m's stream (the M-less one: g->mless), at the merge's current time. */
static int emit(struct mg *g, struct mg_m *m, uint8_t type, int nargs, const uint64_t *args)
{
    int64_t t = g->now < m->last ? m->last : g->now;
    if (m->b.len + MG_EV_MAX > GO_MAX_BATCH_PAYLOAD && flush_m(g, m)) return -1;
    if (!m->b.len) m->bts = t;
    uint8_t e[MG_EV_MAX];
    size_t k = 0;
    e[k++] = type;
    k += uv(e + k, (uint64_t)(t - (m->b.len ? m->last : m->bts)));
    for (int i = 0; i < nargs; i++)
        k += uv(e + k, args[i]);
    if (put(&m->b, e, k)) return oom(g);
    m->last = t;
    g->bytes += k;
    return 0;
}

#define EMIT(g, m, type, ...)                                                                      \
    emit(g, m, type, (int)(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)),                  \
         (uint64_t[]){__VA_ARGS__})

/* The output id of a string of the current generation, defined on first use. */
static int out_str(struct mg *g, const char *s, size_t len, uint64_t *id)
{
    if (len > GO_MAX_STRING_LEN) len = GO_MAX_STRING_LEN;
    if (!len) return *id = 0, 0;
    uint64_t h = gd_strhash(s, len);
    uint32_t *v = gd_hm_get(&g->strmap, h);
    if (v) return *id = *v, 0;
    *id = ++g->nstr;
    if (gd_hm_put(&g->strmap, h, (uint32_t)*id)) return oom(g);
    if (table_room(g, &g->strs, GO_EV_STRINGS, 1 + 20 + len)) return -1;
    uint8_t k = GO_EV_STRING;
    if (put(&g->strs, &k, 1) || put_uv(&g->strs, *id) || put_uv(&g->strs, len) ||
        put(&g->strs, s, len))
        return oom(g);
    return 0;
}

/* Input i's string and stack caches hold ids of its current generation in the current output
 * generation only: emptied when either changes. */
static void in_cache(struct mg *g, struct mg_in *in)
{
    if (in->cgen == in->d.gen.num && in->cog == g->gen) return;
    gd_hm_clear(&in->smap);
    gd_hm_clear(&in->kmap);
    in->cgen = in->d.gen.num;
    in->cog = g->gen;
}

/* Input i's string id (of its current generation) -> ours. */
static int tr_str(struct mg *g, struct mg_in *in, uint64_t sid, uint64_t *id)
{
    if (!sid) return *id = 0, 0;
    in_cache(g, in);
    uint32_t *v = gd_hm_get(&in->smap, sid);
    if (v) return *id = *v, 0;
    uint32_t len;
    const char *s = gd_str(&in->d.gen, sid, &len);
    if (out_str(g, s, len, id)) return -1;
    return gd_hm_put(&in->smap, sid, (uint32_t)*id) ? oom(g) : 0;
}

/* Whether wait reason s (len bytes) names an object of its process alone, which a merged trace
 * qualifies with the process (tr_reason): a sync object with a name of its own ("sync: mutex
 * ledger_lock", "sync: mutex 0x5602... from f (f.c:3)", "sync: omp critical"). Not a join
 * (named by its holder, whose name carries the process), not a kind alone ("sync: condvar": the
 * tracer's generic reason names no object, and `hangs` would read a qualified one as a static
 * object's), nor an object in a shared mapping ("sync: mutex shared /dev/shm/pool+0x40 [00:1b
 * 2329]", "... shared anon+0x40 [00:01 8268]": docs/blocking.md), which waiters and holders of
 * several processes share: their names must meet. */
static int private_obj(const char *s, size_t len)
{
    if (len < 6 || memcmp(s, "sync: ", 6)) return 0;
    const char *p = s + 6, *end = s + len, *sp = memchr(p, ' ', (size_t)(end - p));
    if (!sp) return 0; /* a kind alone, or "join" */
    size_t n = (size_t)(end - p);
    if ((n == 11 && !memcmp(p, "rwlock read", 11)) || (n == 12 && !memcmp(p, "rwlock write", 12)))
        return 0; /* a kind alone too */
    for (const char *q = p; (q = memmem(q, (size_t)(end - q), " shared ", 8)); q++)
        if (end[-1] == ']' && memmem(q, (size_t)(end - q), "+0x", 3)) return 0;
    return 1;
}

/* Input in's wait reason sid -> ours. With more than one process, a private object's name gets
 * its process ("sync: mutex ledger_lock in locks[1234]"), so that two processes' objects of
 * one name stay two in `locks`, `contention` and `hangs`. */
static int tr_reason(struct mg *g, struct mg_in *in, uint64_t sid, uint64_t *id)
{
    uint32_t len;
    const char *s = sid && g->rename ? gd_str(&in->d.gen, sid, &len) : NULL;
    if (!s || !private_obj(s, len)) return tr_str(g, in, sid, id);
    in_cache(g, in);
    uint32_t *v = gd_hm_get(&in->smap, sid | 1ull << 63);
    if (v) return *id = *v, 0;
    char buf[GO_MAX_STRING_LEN + 1];
    int sl = snprintf(buf, sizeof buf, " in %s", in->prefix);
    size_t keep = sl < 0 ? 0 : (size_t)sl;
    keep = keep >= sizeof buf ? 0 : GO_MAX_STRING_LEN - keep; /* the process is kept whole */
    if (len > keep) len = (uint32_t)keep;
    int n = snprintf(buf, sizeof buf, "%.*s in %s", (int)len, s, in->prefix);
    if (out_str(g, buf, n < 0 ? 0 : (size_t)n, id)) return -1;
    return gd_hm_put(&in->smap, sid | 1ull << 63, (uint32_t)*id) ? oom(g) : 0;
}

struct mg_frame {
    uint64_t pc, func, file, line;
};

/* A frame's output pc: one per distinct (pc, function, file, line), kept for the whole merge
 * (a pc names one frame in a generation; two processes' code shares addresses). */
static int out_pc(struct mg *g, uint64_t pc, const char *fn, size_t fl, const char *file, size_t nl,
                  uint64_t line, uint64_t *out)
{
    uint64_t h = mix(mix(mix(gd_strhash(fn, fl), gd_strhash(file, nl)), line), pc);
    uint32_t *v = gd_hm_get(&g->pcmap, h);
    if (v) return *out = *v, 0;
    *out = ++g->npc;
    return gd_hm_put(&g->pcmap, h, (uint32_t)*out) ? oom(g) : 0;
}

/* The output id of the stack of frames fr[0..n), defined on first use in the generation. */
static int out_stack(struct mg *g, const struct mg_frame *fr, uint32_t n, uint64_t *id)
{
    uint64_t h = n;
    for (uint32_t i = 0; i < n; i++)
        h = mix(h, fr[i].pc);
    uint32_t *v = gd_hm_get(&g->stkmap, h);
    if (v) return *id = *v, 0;
    *id = ++g->nstk;
    if (gd_hm_put(&g->stkmap, h, (uint32_t)*id)) return oom(g);
    if (table_room(g, &g->stks, GO_EV_STACKS, 1 + 20 + (size_t)n * 40)) return -1;
    uint8_t k = GO_EV_STACK;
    int bad = put(&g->stks, &k, 1) || put_uv(&g->stks, *id) || put_uv(&g->stks, n);
    for (uint32_t i = 0; i < n && !bad; i++)
        bad = put_uv(&g->stks, fr[i].pc) || put_uv(&g->stks, fr[i].func) ||
              put_uv(&g->stks, fr[i].file) || put_uv(&g->stks, fr[i].line);
    return bad ? oom(g) : 0;
}

/* One input frame as ours; its function named "prefix function" when named is set. */
static int tr_frame(struct mg *g, struct mg_in *in, uint64_t pc, int named, struct mg_frame *o)
{
    const struct gd_gen *gen = &in->d.gen;
    const struct gd_frame *f = gd_gen_frame(gen, pc);
    uint32_t fl = 0, nl = 0;
    const char *fn = f ? gd_str(gen, f->func, &fl) : "", *file = f ? gd_str(gen, f->file, &nl) : "";
    char buf[GO_MAX_STRING_LEN];
    if (named) {
        int k = snprintf(buf, sizeof buf, "%s%s%.*s", in->prefix, fl ? " " : "", (int)fl, fn);
        fn = buf;
        fl = k < 0 ? 0 : (uint32_t)k >= sizeof buf ? sizeof buf - 1 : (uint32_t)k;
    }
    o->line = f ? f->line : 0;
    if (out_pc(g, pc, fn, fl, file, nl, o->line, &o->pc) || out_str(g, fn, fl, &o->func) ||
        out_str(g, file, nl, &o->file))
        return -1;
    return 0;
}

/* Input i's stack id -> ours. named: the goroutine's start (a creation's new stack), whose
 * outermost frame names the goroutine in Go's tools: prefixed with the process when renaming
 * (a missing one becomes a frame of the process's name alone). */
static int tr_stack(struct mg *g, struct mg_in *in, uint64_t sid, int named, uint64_t *id)
{
    named = named && g->rename;
    if (!sid && !named) return *id = 0, 0;
    in_cache(g, in);
    uint64_t key = sid | (named ? 1ull << 63 : 0);
    uint32_t *v = gd_hm_get(&in->kmap, key);
    if (v) return *id = *v, 0;
    const uint64_t *pcs = NULL;
    uint32_t n = 0;
    if (sid) gd_gen_stack(&in->d.gen, sid, &pcs, &n);
    struct mg_frame fr[GO_MAX_STACK_FRAMES];
    for (uint32_t k = 0; k < n; k++)
        if (tr_frame(g, in, pcs[k], named && k == n - 1, &fr[k])) return -1;
    if (!n) { /* named, no frames: the process alone */
        size_t pl = strlen(in->prefix);
        fr[0].line = 0;
        if (out_pc(g, 0, in->prefix, pl, "", 0, 0, &fr[0].pc) ||
            out_str(g, in->prefix, pl, &fr[0].func))
            return -1;
        fr[0].file = 0;
        n = 1;
    }
    if (out_stack(g, fr, n, id)) return -1;
    return gd_hm_put(&in->kmap, key, (uint32_t)*id) ? oom(g) : 0;
}

/* The output thread of input i's thread id: the same id, unless a thread of another process
 * holds it now (clocks of two processes can disagree by a little: an exec'd image may start
 * before its predecessor's last event); then a free alias above 2^32. */
static struct mg_m *get_m(struct mg *g, size_t i, uint64_t id)
{
    if (id == GD_NONE) return &g->mless;
    struct mg_in *in = &g->in[i];
    uint32_t *v = gd_hm_get(&in->mmap, id);
    if (v && g->ms[*v].owner == i) return &g->ms[*v]; /* else another process took it since */
    uint64_t out = id;
    for (uint64_t k = 1;; k++) {
        v = gd_hm_get(&g->mmap, out);
        if (!v || (g->ms[*v].g == GD_NONE && g->ms[*v].p == GD_NONE)) break;
        out = id + (k << 32);
    }
    uint32_t x;
    if (v) {
        x = *v;
    } else {
        if (g->nmfree) {
            x = g->mfree[--g->nmfree]; /* a free slot keeps its buffer */
        } else {
            if (gd_grow((void **)&g->ms, &g->mcap, g->nms + 1, sizeof(*g->ms))) return NULL;
            x = (uint32_t)g->nms++;
            memset(&g->ms[x], 0, sizeof(g->ms[x]));
        }
        g->ms[x].id = out;
        g->ms[x].g = g->ms[x].p = GD_NONE;
        g->ms[x].last = 0;
        if (gd_hm_put(&g->mmap, out, x)) return NULL;
    }
    g->ms[x].owner = i;
    g->ms[x].used = 1;
    return gd_hm_put(&in->mmap, id, x) ? NULL : &g->ms[x];
}

static struct mg_g *find_g(struct mg *g, uint64_t id)
{
    uint32_t *v = gd_hm_get(&g->gmap, id);
    return v ? &g->gs[*v] : NULL;
}

/* Writes goroutine id's process record (GT_EXP_PROCS) of input i, when renaming (more than one
 * process); 0, or -1 when out of memory or the output failed. */
static int proc_rec(struct mg *g, uint64_t id, size_t i)
{
    if (!g->rename) return 0;
    const struct mg_in *in = &g->in[i];
    size_t n = strlen(in->pname);
    if (g->procs.len + 30 + n > GO_MAX_BATCH_PAYLOAD) {
        int rc = write_batch(g, GT_EXP_PROCS, GO_NO_THREAD, 0, g->procs.p, g->procs.len);
        g->procs.len = 0;
        if (rc) return -1;
    }
    return put_uv(&g->procs, id) || put_uv(&g->procs, in->pid) || put_uv(&g->procs, n) ||
                   put(&g->procs, in->pname, n)
               ? -1
               : 0;
}

/* A new output goroutine for input i's goroutine id, in state st. */
static struct mg_g *new_g(struct mg *g, size_t i, uint64_t in_id, uint8_t st)
{
    if (gd_grow((void **)&g->gs, &g->gcap, g->ngs + 1, sizeof(*g->gs))) return NULL;
    uint64_t id = ++g->gnext;
    g->gs[g->ngs] =
        (struct mg_g){.id = id, .st = st, .m = UINT32_MAX, .in = (uint32_t)i, .in_id = in_id};
    if (proc_rec(g, id, i)) return NULL;
    if (gd_hm_put(&g->gmap, id, (uint32_t)g->ngs) || gd_hm_put(&g->in[i].gmap, in_id, (uint32_t)id))
        return NULL;
    /* ids fit 32 bits in the input maps' values: 4 billion threads would overflow first */
    return &g->gs[g->ngs++];
}

/* Ends output goroutine x: its slot is filled by the last one (the map follows). */
static void free_g(struct mg *g, size_t i, uint64_t in_id, struct mg_g *x)
{
    size_t k = (size_t)(x - g->gs), last = g->ngs - 1;
    gd_hm_del(&g->gmap, x->id);
    gd_hm_del(&g->in[i].gmap, in_id);
    if (k != last) {
        g->gs[k] = g->gs[last];
        gd_hm_put(&g->gmap, g->gs[k].id, (uint32_t)k); /* the key exists: no allocation */
    }
    g->ngs--;
}

/* Input i's goroutine -> ours (NULL when unknown: then the input is bad). */
static struct mg_g *in_g(struct mg *g, size_t i, uint64_t in_id)
{
    uint32_t *v = gd_hm_get(&g->in[i].gmap, in_id);
    return v ? find_g(g, *v) : NULL;
}

static struct mg_p *in_p(struct mg *g, size_t i, uint64_t in_id, uint64_t *out)
{
    uint32_t *v = gd_hm_get(&g->in[i].pmap, in_id);
    if (!v) return NULL;
    *out = *v;
    return &g->ps[*v];
}

/* A proc for a new input proc: an Idle one of an ended process, or a new one (*fresh). */
static int new_p(struct mg *g, int reuse, uint64_t *id, int *fresh)
{
    *fresh = !(reuse && g->npfree);
    if (!*fresh) {
        *id = g->pfree[--g->npfree];
        return 0;
    }
    if (gd_grow((void **)&g->ps, &g->pcap, g->nps + 1, sizeof(*g->ps))) return oom(g);
    *id = g->nps;
    g->ps[g->nps++] = (struct mg_p){.st = GO_P_IDLE, .m = UINT32_MAX};
    return 0;
}

/* Writes the generation's sync records out as gotrace's experimental batches: the waits and
 * releases, then lock tracking's records (lsync, cut into batches at lcuts): a reader that stops
 * at a record type it does not know loses none of the first (go_wire.h). */
static int flush_sync(struct mg *g)
{
    int rc = g->sync.len ? write_batch(g, GT_EXP_SYNC, GO_NO_THREAD, 0, g->sync.p, g->sync.len) : 0;
    size_t from = 0;
    for (size_t k = 0; k <= g->nlcuts && !rc; k++) {
        size_t to = k < g->nlcuts ? g->lcuts[k] : g->lsync.len;
        if (to > from)
            rc = write_batch(g, GT_EXP_SYNC, GO_NO_THREAD, 0, g->lsync.p + from, to - from);
        from = to;
    }
    g->sync.len = g->lsync.len = g->nlcuts = 0;
    return rc;
}

/* Room for a record of at most need bytes in the generation's sync records: a full batch of
 * waits and releases is written at once; lock tracking's are kept to the end (flush_sync). */
static int sync_room(struct mg *g, uint8_t type, size_t need)
{
    if (type == GT_SYNC_WAIT || type == GT_SYNC_RELEASE) {
        if (g->sync.len + need <= GO_MAX_BATCH_PAYLOAD) return 0;
        int rc = write_batch(g, GT_EXP_SYNC, GO_NO_THREAD, 0, g->sync.p, g->sync.len);
        g->sync.len = 0;
        return rc;
    }
    size_t start = g->nlcuts ? g->lcuts[g->nlcuts - 1] : 0;
    if (g->lsync.len - start + need <= GO_MAX_BATCH_PAYLOAD) return 0;
    if (gd_grow((void **)&g->lcuts, &g->lccap, g->nlcuts + 1, sizeof(*g->lcuts))) return oom(g);
    g->lcuts[g->nlcuts++] = g->lsync.len;
    return 0;
}

static int by_time(const void *a, const void *b)
{
    const struct mg_rec *x = a, *y = b;
    return x->t != y->t ? (x->t > y->t) - (x->t < y->t) : (x->k > y->k) - (x->k < y->k);
}

/* The values a sync record of type holds (go_wire.h), 0 for a type this merge does not know. */
static int rec_values(uint8_t type)
{
    static const int nvs[] = {[GT_SYNC_WAIT] = 5,
                              [GT_SYNC_RELEASE] = 4,
                              [GT_SYNC_ORDER] = 9,
                              [GT_SYNC_HOLD] = 9,
                              [GT_SYNC_EXIT_HELD] = 5};
    return type < sizeof nvs / sizeof *nvs ? nvs[type] : 0;
}

/* Reads input in's sync records of its current generation, once, sorted by time. A record of
 * a type merge does not know (a newer tracer's) or cut short stops the merge: its length is
 * unknown, so neither it nor the records after it could be carried, and dropping them would
 * lose holders and lock tracking without a word (docs/processes.md). */
static int parse_recs(struct mg *g, struct mg_in *in)
{
    const struct gd_gen *gen = &in->d.gen;
    if (in->rparsed && in->rgen == gen->num) return 0;
    in->nrecs = in->rcur = 0;
    in->rgen = gen->num;
    in->rparsed = 1;
    for (size_t pos = 0; pos < gen->nsync;) {
        uint8_t type = gen->sync[pos++];
        int nv = rec_values(type);
        const char *bad = nv ? NULL
                             : "is not known to this merge (written by a newer tracer?): "
                               "it cannot be carried over";
        struct mg_rec r = {.k = (uint32_t)in->nrecs, .type = type};
        for (int k = 0; k < nv && !bad; k++) {
            int n = pos < gen->nsync ? gd_uvarint(gen->sync + pos, gen->nsync - pos, &r.v[k]) : 0;
            pos += n > 0 ? (size_t)n : 0;
            bad = n > 0 ? NULL : "is cut short";
        }
        if (bad) { /* said with the generation: no event is at fault */
            gd_errf(g->err, gen->num, 0, 0, NULL, -1, "gotrace sync record of type %u %s", type,
                    bad);
            return g->located = 1, -1;
        }
        r.t = gd_ticks_to_ns(gen, r.v[0]);
        if (gd_grow((void **)&in->recs, &in->reccap, in->nrecs + 1, sizeof(*in->recs)))
            return oom(g);
        in->recs[in->nrecs++] = r;
    }
    qsort(in->recs, in->nrecs, sizeof(*in->recs), by_time);
    return 0;
}

/* A thread id of input i as written: its output thread's, or itself if it has none (0, a
 * record of no thread, stays 0). */
static uint64_t out_tid(const struct mg *g, size_t i, uint64_t tid)
{
    uint32_t *v = tid ? gd_hm_get(&g->in[i].mmap, tid) : NULL;
    return v && g->ms[*v].owner == i ? g->ms[*v].id : tid;
}

/* An object address of input i as written: with the input's number above bit 48, so that two
 * processes' objects never share an address. */
static uint64_t out_addr(size_t i, uint64_t addr)
{
    return addr ^ ((uint64_t)(i + 1) << 48);
}

/* Input i's record r as ours in v: threads, goroutines, object addresses, strings (an object's
 * name qualified by its process: tr_reason), stacks and durations (ticks -> ns) translated. */
static int tr_rec(struct mg *g, size_t i, const struct mg_rec *r, uint64_t v[9])
{
    struct mg_in *in = &g->in[i];
    const uint64_t *a = r->v;
    memcpy(v, a, 9 * sizeof(*v));
    v[0] = (uint64_t)r->t;
    v[1] = out_tid(g, i, a[1]);
    v[2] = out_addr(i, a[2]);
    if (r->type == GT_SYNC_RELEASE) return tr_stack(g, in, a[3], 0, &v[3]);
    if (tr_reason(g, in, a[3], &v[3])) return -1;
    switch (r->type) {
    case GT_SYNC_WAIT: {
        struct mg_g *x = a[4] & GT_SYNC_HOLDER_G ? in_g(g, i, a[4] & ~GT_SYNC_HOLDER_G) : NULL;
        v[4] = x ? GT_SYNC_HOLDER_G | x->id : a[4] & GT_SYNC_HOLDER_G ? 0 : out_tid(g, i, a[4]);
        return 0;
    }
    case GT_SYNC_ORDER: /* name, stack, held lock, its name, its site, modes */
        v[5] = out_addr(i, a[5]);
        return tr_stack(g, in, a[4], 0, &v[4]) || tr_reason(g, in, a[6], &v[6]) ||
                       tr_stack(g, in, a[7], 0, &v[7])
                   ? -1
                   : 0;
    case GT_SYNC_HOLD: /* name, acquisitions, owner changes, total, longest, stack */
        v[6] = (uint64_t)(in->d.gen.ns_per_tick * (double)a[6]);
        v[7] = (uint64_t)(in->d.gen.ns_per_tick * (double)a[7]);
        return tr_stack(g, in, a[8], 0, &v[8]);
    default: /* GT_SYNC_EXIT_HELD: name, site */
        return tr_stack(g, in, a[4], 0, &v[4]);
    }
}

/* Writes input i's sync records up to time limit into the output generation, translated
 * (tr_rec). */
static int emit_recs(struct mg *g, size_t i, int64_t limit)
{
    struct mg_in *in = &g->in[i];
    if (parse_recs(g, in)) return -1;
    for (; in->rcur < in->nrecs && in->recs[in->rcur].t <= limit; in->rcur++) {
        const struct mg_rec *r = &in->recs[in->rcur];
        uint64_t v[9];
        int nv = rec_values(r->type);
        if (tr_rec(g, i, r, v) || sync_room(g, r->type, 1 + (size_t)nv * GO_MAX_UVARINT_LEN))
            return -1;
        struct mg_buf *b =
            r->type == GT_SYNC_WAIT || r->type == GT_SYNC_RELEASE ? &g->sync : &g->lsync;
        int bad = put(b, &r->type, 1);
        for (int k = 0; k < nv && !bad; k++)
            bad = put_uv(b, v[k]);
        if (bad) return oom(g);
    }
    return 0;
}

/* Ends the current output generation: every open batch, the tables, the frequency (ns). */
static int end_gen(struct mg *g)
{
    for (size_t k = 0; k < g->nms; k++)
        if (flush_m(g, &g->ms[k])) return -1;
    if (flush_m(g, &g->mless) || flush_table(g, &g->strs) || flush_table(g, &g->stks) ||
        flush_table(g, &g->cpu) || flush_sync(g))
        return -1;
    if (g->procs.len && write_batch(g, GT_EXP_PROCS, GO_NO_THREAD, 0, g->procs.p, g->procs.len))
        return -1;
    g->procs.len = 0;
    uint8_t f[11] = {GO_EV_FREQUENCY};
    if (write_batch(g, 0, GO_NO_THREAD, 0, f, 1 + uv(f + 1, 1000000000))) return -1;
    for (size_t k = 0; k < g->nms; k++) { /* threads of ended processes: slots to reuse */
        struct mg_m *m = &g->ms[k];
        if (m->used || m->id == GD_NONE || m->id == MG_SYNTH_M) continue;
        if (gd_grow((void **)&g->mfree, &g->mfcap, g->nmfree + 1, sizeof(*g->mfree))) return oom(g);
        gd_hm_del(&g->mmap, m->id);
        m->id = GD_NONE;
        g->mfree[g->nmfree++] = (uint32_t)k;
    }
    gd_hm_clear(&g->strmap);
    gd_hm_clear(&g->stkmap);
    g->nstr = g->nstk = 0;
    g->open = 0;
    return 0;
}

/* Starts output generation gen+1 at the current time with the status of every proc and
 * goroutine (binding ones on their thread's stream, the others on the M-less one): Go's reader
 * then needs nothing from earlier generations, and every sequence number restarts. */
static int begin_gen(struct mg *g)
{
    g->gen++;
    g->open = 1;
    g->t0 = g->now;
    g->bytes = 0;
    for (size_t k = 0; k < g->nps; k++) {
        struct mg_p *p = &g->ps[k];
        p->seq = 0;
        struct mg_m *m = p->st == GO_P_IDLE ? &g->mless : &g->ms[p->m];
        if (EMIT(g, m, GO_EV_PROC_STATUS, k, p->st)) return -1;
    }
    for (size_t k = 0; k < g->ngs; k++) {
        struct mg_g *x = &g->gs[k];
        x->seq = 0;
        int bound = x->st == GO_G_RUNNING || x->st == GO_G_SYSCALL;
        struct mg_m *m = bound ? &g->ms[x->m] : &g->mless;
        if (EMIT(g, m, GO_EV_GO_STATUS, x->id, bound ? m->id : GO_NO_THREAD, x->st) ||
            proc_rec(g, x->id, x->in))
            return -1;
    }
    return 0;
}

/* The synthetic thread, holding the synthetic proc: it starts goroutines a process had before
 * its trace began that were not running, and ends those not running when their process ends.
 * It holds nothing before and after. */
static struct mg_m *synth_begin(struct mg *g)
{
    if (g->sp == GD_NONE) {
        int fresh;
        if (new_p(g, 0, &g->sp, &fresh)) return NULL;
        if (EMIT(g, &g->mless, GO_EV_PROC_STATUS, g->sp, GO_P_IDLE)) return NULL;
    }
    uint32_t *v = gd_hm_get(&g->mmap, MG_SYNTH_M);
    uint32_t x;
    if (v) {
        x = *v;
    } else {
        if (gd_grow((void **)&g->ms, &g->mcap, g->nms + 1, sizeof(*g->ms))) return NULL;
        x = (uint32_t)g->nms++;
        g->ms[x] = (struct mg_m){.id = MG_SYNTH_M, .g = GD_NONE, .p = GD_NONE, .owner = SIZE_MAX};
        if (gd_hm_put(&g->mmap, MG_SYNTH_M, x)) return NULL;
    }
    struct mg_m *m = &g->ms[x];
    struct mg_p *p = &g->ps[g->sp];
    if (EMIT(g, m, GO_EV_PROC_START, g->sp, ++p->seq)) return NULL;
    return m;
}

static int synth_end(struct mg *g, struct mg_m *m)
{
    return EMIT(g, m, GO_EV_PROC_STOP);
}

/* A goroutine input i first shows by a status (it existed before its process's trace began).
 * In the first output generation the status stays (Go allows that there only); later, it is
 * created: on its thread when it runs there (GoCreate + GoStart, or GoCreateSyscall), else on
 * the synthetic thread. */
static int intro_g(struct mg *g, size_t i, const struct gd_tev *ev, struct mg_m *m)
{
    uint8_t st = (uint8_t)ev->args[2];
    int bound = st == GO_G_RUNNING || st == GO_G_SYSCALL;
    uint64_t stk = 0;
    if (tr_stack(g, &g->in[i], ev->type == GO_EV_GO_STATUS_STACK ? ev->args[3] : 0, 1, &stk))
        return -1;
    struct mg_g *x = new_g(g, i, ev->args[0], st);
    if (!x) return oom(g);
    if (bound) {
        if (m == &g->mless || m->g != GD_NONE ||
            (st == GO_G_RUNNING && m->p == GD_NONE && g->gen > 1))
            return gd_fail(g->err, "goroutine %llu's status is on no thread that can run it",
                           (unsigned long long)ev->args[0]);
        x->m = (uint32_t)(m - g->ms);
        m->g = x->id;
    }
    if (g->gen == 1) /* as it was, with the goroutine's start as its stack */
        return EMIT(g, m, GO_EV_GO_STATUS_STACK, x->id, bound ? m->id : GO_NO_THREAD, st, stk);
    if (st == GO_G_RUNNING)
        return EMIT(g, m, GO_EV_GO_CREATE, x->id, stk, 0) ||
               EMIT(g, m, GO_EV_GO_START, x->id, ++x->seq);
    if (st == GO_G_SYSCALL) return EMIT(g, m, GO_EV_GO_CREATE_SYSCALL, x->id);
    struct mg_m *s = synth_begin(g);
    if (!s) return oom(g);
    uint8_t type = st == GO_G_WAITING ? GO_EV_GO_CREATE_BLOCKED : GO_EV_GO_CREATE;
    if (EMIT(g, s, type, x->id, stk, 0)) return -1;
    return synth_end(g, s);
}

/* A proc input i shows by a status: new to us, it is given an output proc in that state (a
 * reused Idle one is started if Running); known, the status repeats its state and is dropped
 * (every output generation starts with all statuses). */
static int on_proc_status(struct mg *g, size_t i, const struct gd_tev *ev, struct mg_m *m)
{
    uint64_t id;
    if (in_p(g, i, ev->args[0], &id)) return 0;
    uint8_t st = ev->args[1] == GO_P_SYSCALL_ABANDONED ? GO_P_IDLE : (uint8_t)ev->args[1];
    int fresh;
    if (new_p(g, st != GO_P_SYSCALL, &id, &fresh)) return -1;
    if (gd_hm_put(&g->in[i].pmap, ev->args[0], (uint32_t)id)) return oom(g);
    struct mg_p *p = &g->ps[id];
    if (st != GO_P_IDLE) {
        if (m == &g->mless || m->p != GD_NONE)
            return gd_fail(g->err, "proc %llu's status is on no thread that can hold it",
                           (unsigned long long)ev->args[0]);
        m->p = id;
        p->m = (uint32_t)(m - g->ms);
    }
    p->st = st;
    if (fresh) return EMIT(g, m, GO_EV_PROC_STATUS, id, st);
    return st == GO_P_RUNNING ? EMIT(g, m, GO_EV_PROC_START, id, ++p->seq) : 0;
}

/* A goroutine status: introduces a goroutine first seen; for a known one only a status with a
 * stack is kept (the tracer's fix-up after a syscall or a start, which makes Go's profiles
 * exact: docs/go-trace-format.md 6.5), with its sequence restarted as Go's reader does. */
static int on_go_status(struct mg *g, size_t i, const struct gd_tev *ev, struct mg_m *m)
{
    struct mg_g *x = in_g(g, i, ev->args[0]);
    if (!x) return intro_g(g, i, ev, m);
    if (ev->type != GO_EV_GO_STATUS_STACK || !ev->args[3]) return 0;
    uint64_t stk;
    if (tr_stack(g, &g->in[i], ev->args[3], 0, &stk)) return -1;
    x = in_g(g, i, ev->args[0]);
    int bound = x->st == GO_G_RUNNING || x->st == GO_G_SYSCALL;
    x->seq = 0;
    return EMIT(g, m, GO_EV_GO_STATUS_STACK, x->id, bound ? g->ms[x->m].id : GO_NO_THREAD, x->st,
                stk);
}

/* A task id of input i: kept, with the input's number above MG_TASK_SHIFT so that processes'
 * tasks never meet; 0 (background, or no parent: order.c's GD_NONE) stays 0. */
static uint64_t tr_task(size_t i, uint64_t t)
{
    return t == 0 || t == GD_NONE ? 0 : t + ((uint64_t)(i + 1) << MG_TASK_SHIFT);
}

/* The key of the object in a shared mapping that wait reason s ("sync: KIND shared
 * FILE+0xOFF [MAJ:MIN INO]") or gotrace.post log text s ("KIND shared FILE+0xOFF [...]")
 * names: the hash of its offset, device and inode ("+0xOFF [MAJ:MIN INO]"), which identify it
 * in every process whatever its kind says (a runtime's lock on a futex word: "sync: mutex
 * shared ..." waits, "futex shared ..." is woken) and whatever path the file was mapped by (a
 * sem_open'd semaphore's creator maps glibc's temporary file, others /dev/shm/sem.NAME); 0 if
 * s names no such object. */
static uint64_t shared_key(const char *s, uint32_t len)
{
    const char *end = s + len, *q = memmem(s, len, " shared ", 8), *off = NULL;
    for (const char *p = q; p && (p = memmem(p, (size_t)(end - p), "+0x", 3)); p++)
        off = p;
    if (!off || end[-1] != ']') return 0;
    return gd_strhash(off, (size_t)(end - off));
}

/* The hash of the object a wait of reason s (len bytes) waits on, when a process's log may end
 * it (wake_log): the shared_key of an object in a shared mapping ("sync: KIND shared ..."), the
 * object of a pipe or socket read ("pipe: read pipe:[INO]": "pipe:[INO]"); else 0. */
static uint64_t wait_object(const char *s, uint32_t len)
{
    if (len > 6 && !memcmp(s, "sync: ", 6)) return shared_key(s, len);
    uint32_t k = len > 6 && !memcmp(s, "pipe: ", 6)     ? 6
                 : len > 8 && !memcmp(s, "socket: ", 8) ? 8
                                                        : 0;
    const char *sp = k ? memchr(s + k, ' ', len - k) : NULL; /* after the call's name */
    return sp && sp + 1 < s + len ? gd_strhash(sp + 1, (size_t)(s + len - sp - 1)) : 0;
}

/* Notes what goroutine x's wait with reason sid of input in waits for, when another process
 * of the tree may end it: a child ("wait: child PID", "wait: any child", "wait: any child of
 * its group": any child, its group not known here) or a signal ("signal: sigsuspend", ...:
 * docs/blocking.md "Across processes"). */
static void note_wait(const struct mg_in *in, uint64_t sid, struct mg_g *x)
{
    uint32_t len = 0;
    const char *s = sid ? gd_str(&in->d.gen, sid, &len) : NULL;
    x->wpid = 0;
    x->wsig = s && len > 8 && !memcmp(s, "signal: ", 8);
    x->wobj = s ? wait_object(s, len) : 0;
    if (!s || len < 12 || memcmp(s, "wait: ", 6)) return;
    if (len > 12 && !memcmp(s, "wait: child ", 12)) {
        uint64_t pid = 0;
        for (uint32_t k = 12; k < len && s[k] >= '0' && s[k] <= '9' && pid < (1ull << 40); k++)
            pid = pid * 10 + (uint64_t)(s[k] - '0');
        x->wpid = (int64_t)pid;
    } else if ((len == 15 && !memcmp(s, "wait: any child", 15)) ||
               (len == 28 && !memcmp(s, "wait: any child of its group", 28))) {
        x->wpid = MG_ANY_CHILD;
    }
}

static int exiter_done(struct mg *g, struct mg_g *x, int wake);

/* Writes, on thread m (running the goroutine that ended it), the unblock of waiter x whose wait
 * another process ended; the waiter's own unblock, when it comes, is dropped (on_other). */
static int wake_across(struct mg *g, struct mg_m *m, struct mg_g *x)
{
    x->st = GO_G_RUNNABLE;
    x->early = 1;
    x->wpid = 0;
    x->wsig = 0;
    x->wobj = 0;
    return EMIT(g, m, GO_EV_GO_UNBLOCK, x->id, ++x->seq, 0);
}

/* Kinds of wake logs (wake_log): a signal to one process (key: its pid), a post of a shared
 * object (key: its waits' reason's hash), a signal to a process group (key: the group), a
 * signal to every process (key: the sender's pid, the one process it does not reach). */
enum { MG_WAKE_PID = 1, MG_WAKE_POST, MG_WAKE_GROUP, MG_WAKE_ALL };

/* The number after text at in the gotrace.kill log value s ("SIGUSR1 to pid 1234 by kill"),
 * 0 if none. */
static uint64_t number_after(const char *s, uint32_t len, const char *at)
{
    size_t al = strlen(at);
    const char *p = memmem(s, len, at, al);
    uint64_t v = 0;
    for (p = p ? p + al : s + len; p < s + len && *p >= '0' && *p <= '9' && v < 1ull << 40; p++)
        v = v * 10 + (uint64_t)(*p - '0');
    return v;
}

/* What a gotrace.kill log's value (docs/blocking.md "Across processes") of input in names: the
 * kind (MG_WAKE_PID, _GROUP: "to process group N" or "to its process group", the sender's
 * group, _ALL) and *key; 0 when it names nothing merge can follow (a group not known). */
static int kill_target(const struct mg_in *in, const char *s, uint32_t len, uint64_t *key)
{
    if ((*key = number_after(s, len, " to pid "))) return MG_WAKE_PID;
    if ((*key = number_after(s, len, " to process group "))) return MG_WAKE_GROUP;
    if (memmem(s, len, " to its process group ", 22))
        return (*key = in->d.gen.has_proc ? in->d.gen.pgid : 0) ? MG_WAKE_GROUP : 0;
    if (memmem(s, len, " to every process ", 18)) return (*key = in->pid) ? MG_WAKE_ALL : 0;
    return 0;
}

/* What a UserLog ev of input in says another process's wait ended by: a gotrace.kill log's
 * target (kill_target), MG_WAKE_POST for a gotrace.post log (*key: the shared_key of the object
 * posted, signalled, woken or unlocked: "semaphore shared ...", "condvar shared ...", "futex
 * shared ...", "rwlock shared ...") or a gotrace.write log (*key: the hash of the pipe or socket
 * written, as wait_object makes it of a read's reason); 0 anything else. */
static int wake_log(const struct mg_in *in, const struct gd_tev *ev, uint64_t *key)
{
    uint32_t kl = 0, vl = 0;
    if (ev->type != GO_EV_USER_LOG) return 0;
    const char *k = gd_str(&in->d.gen, ev->args[1], &kl);
    const char *val = k ? gd_str(&in->d.gen, ev->args[2], &vl) : NULL;
    if (!val) return 0;
    if (kl == 12 && !memcmp(k, "gotrace.kill", 12)) return kill_target(in, val, vl, key);
    if (kl == 13 && !memcmp(k, "gotrace.write", 13))
        return (*key = gd_strhash(val, vl)) ? MG_WAKE_POST : 0;
    if (kl != 12 || memcmp(k, "gotrace.post", 12)) return 0;
    return (*key = shared_key(val, vl)) ? MG_WAKE_POST : 0;
}

/* Whether waiter x's wait is one a wake log (wake_log's kind and key) of input i ends: a
 * signal wait of a process signalled (its pid, its group, or any but the sender), or a wait in
 * another process on the object posted. */
static int log_ends(const struct mg *g, const struct mg_g *x, size_t i, int kind, uint64_t key)
{
    if (x->st != GO_G_WAITING || x->exiter || x->in == i) return 0;
    const struct mg_in *w = &g->in[x->in];
    switch (kind) {
    case MG_WAKE_PID:
        return x->wsig && w->pid == key;
    case MG_WAKE_GROUP:
        return x->wsig && w->d.gen.has_proc && w->d.gen.pgid == key;
    case MG_WAKE_ALL:
        return x->wsig && w->pid != key;
    default:
        return x->wobj && x->wobj == key;
    }
}

/* The thread of a sender or poster whose wake log (wake_log) ending waiter x's wait is its
 * input's next event, at most MG_LATE_WAKE_NS later, its goroutine running: the log may follow
 * the wake-up (the two processes' clocks; a sender whose trace began at its log); NULL if
 * none. */
static struct mg_m *late_waker(struct mg *g, const struct mg_g *x)
{
    for (size_t j = 0; (x->wsig || x->wobj) && j < g->n; j++) {
        const struct mg_in *in = &g->in[j];
        uint64_t key;
        int kind = in->state == 1 ? wake_log(in, &in->ev, &key) : 0;
        if (!kind || !log_ends(g, x, j, kind, key) || in->ev.time - g->now > MG_LATE_WAKE_NS)
            continue;
        uint32_t *v = gd_hm_get(&in->mmap, in->ev.m);
        if (v && g->ms[*v].owner == j && g->ms[*v].g != GD_NONE) return &g->ms[*v];
    }
    return NULL;
}

/* A UserLog ev of input i on m (whose goroutine wrote it): a wake log (wake_log) ends the wait
 * it names that ends next, with nothing of the waiter's process in between (its input's next
 * event is that wait's unblock), unblocked here, by the sender or poster; a signal to a group
 * or to every process ends such a wait in each process it reached (one per input: its next
 * event is one unblock). */
static int on_wake_log(struct mg *g, size_t i, const struct gd_tev *ev, struct mg_m *m)
{
    uint64_t key;
    int kind = g->rename && m->g != GD_NONE ? wake_log(&g->in[i], ev, &key) : 0;
    for (size_t k = 0; kind && k < g->ngs; k++) {
        struct mg_g *x = &g->gs[k];
        const struct mg_in *w = &g->in[x->in];
        if (!log_ends(g, x, i, kind, key) || w->state != 1 || w->ev.type != GO_EV_GO_UNBLOCK ||
            w->ev.args[0] != x->in_id)
            continue;
        if (wake_across(g, m, x)) return -1;
        if (kind == MG_WAKE_PID || kind == MG_WAKE_POST) return 0;
    }
    return 0;
}

/* Annotations: labels, tasks, regions, logs: ids and strings translated, nothing moves; a
 * gotrace.kill or gotrace.post log may end a wait of another process (on_wake_log). */
static int on_user(struct mg *g, size_t i, const struct gd_tev *ev, struct mg_m *m)
{
    struct mg_in *in = &g->in[i];
    const struct gd_evspec *s = &gd_specs[ev->type];
    uint64_t a[GD_MAX_ARGS];
    memcpy(a, ev->args, sizeof a);
    for (unsigned k = 0; k < s->nstr; k++)
        if (tr_str(g, in, ev->args[s->str[k]], &a[s->str[k]])) return -1;
    for (unsigned k = 0; k < s->nstk; k++)
        if (tr_stack(g, in, ev->args[s->stk[k]], 0, &a[s->stk[k]])) return -1;
    if (ev->type != GO_EV_GO_LABEL) a[0] = tr_task(i, ev->args[0]);
    if (ev->type == GO_EV_USER_TASK_BEGIN) a[1] = tr_task(i, ev->args[1]);
    if (emit(g, m, ev->type, s->nargs, a)) return -1;
    return ev->type == GO_EV_USER_LOG ? on_wake_log(g, i, ev, m) : 0;
}

/* A CPU sample: thread, proc and goroutine as ours (none when not known). */
static int on_cpu(struct mg *g, size_t i, const struct gd_tev *ev)
{
    uint64_t stk, p = GD_NONE, gid = 0;
    if (tr_stack(g, &g->in[i], ev->args[3], 0, &stk)) return -1;
    struct mg_m *m = ev->m == GD_NONE ? &g->mless : get_m(g, i, ev->m);
    if (!m) return oom(g);
    if (ev->p != GD_NONE) in_p(g, i, ev->p, &p);
    struct mg_g *x = ev->g != GD_NONE ? in_g(g, i, ev->g) : NULL;
    if (x) gid = x->id;
    if (table_room(g, &g->cpu, GO_EV_CPU_SAMPLES, 1 + 50)) return -1;
    uint8_t k = GO_EV_CPU_SAMPLE;
    if (put(&g->cpu, &k, 1) || put_uv(&g->cpu, (uint64_t)g->now) || put_uv(&g->cpu, m->id) ||
        put_uv(&g->cpu, p) || put_uv(&g->cpu, gid) || put_uv(&g->cpu, stk))
        return oom(g);
    return 0;
}

/* Proc events: ProcStart and ProcStop (the tracer's procs are never stolen). */
static int on_proc(struct mg *g, size_t i, const struct gd_tev *ev, struct mg_m *m)
{
    uint64_t id;
    struct mg_p *p;
    if (ev->type == GO_EV_PROC_START) {
        if (!(p = in_p(g, i, ev->args[0], &id)) || m->p != GD_NONE)
            return gd_fail(g->err, "ProcStart of an unknown proc");
        p->st = GO_P_RUNNING;
        p->m = (uint32_t)(m - g->ms);
        m->p = id;
        return EMIT(g, m, GO_EV_PROC_START, id, ++p->seq);
    }
    if (m->p == GD_NONE) return gd_fail(g->err, "ProcStop without a proc");
    g->ps[m->p].st = GO_P_IDLE;
    m->p = GD_NONE;
    return EMIT(g, m, GO_EV_PROC_STOP);
}

/* Goroutine creations: a new output goroutine; its start stack names it (with its process). */
static int on_create(struct mg *g, size_t i, const struct gd_tev *ev, struct mg_m *m)
{
    uint64_t nstk, stk;
    if (tr_stack(g, &g->in[i], ev->args[1], 1, &nstk) ||
        tr_stack(g, &g->in[i], ev->args[2], 0, &stk))
        return -1;
    int blocked = ev->type == GO_EV_GO_CREATE_BLOCKED;
    struct mg_g *x = new_g(g, i, ev->args[0], blocked ? GO_G_WAITING : GO_G_RUNNABLE);
    if (!x) return oom(g);
    return EMIT(g, m, ev->type, x->id, nstk, stk);
}

/* The running goroutine's own moves: stop, block, syscalls, destroy. */
static int on_self(struct mg *g, size_t i, const struct gd_tev *ev, struct mg_m *m)
{
    struct mg_g *x = m->g != GD_NONE ? find_g(g, m->g) : NULL;
    if (!x) return gd_fail(g->err, "%s without a goroutine", gd_ev_name(ev->type));
    uint64_t a[2] = {0, 0};
    struct mg_in *in = &g->in[i];
    struct mg_p *p = m->p != GD_NONE ? &g->ps[m->p] : NULL;
    switch (ev->type) {
    case GO_EV_GO_STOP:
    case GO_EV_GO_BLOCK:
        if (tr_reason(g, in, ev->args[0], &a[0]) || tr_stack(g, in, ev->args[1], 0, &a[1]))
            return -1;
        x = find_g(g, m->g);
        x->st = ev->type == GO_EV_GO_STOP ? GO_G_RUNNABLE : GO_G_WAITING;
        note_wait(in, ev->type == GO_EV_GO_BLOCK ? ev->args[0] : 0, x);
        m->g = GD_NONE;
        return emit(g, m, ev->type, 2, a);
    case GO_EV_GO_SYSCALL_BEGIN:
        if (!p || tr_stack(g, in, ev->args[1], 0, &a[1])) return p ? -1 : gd_fail(g->err, "no P");
        find_g(g, m->g)->st = GO_G_SYSCALL;
        p->st = GO_P_SYSCALL;
        a[0] = ++p->seq;
        return emit(g, m, ev->type, 2, a);
    case GO_EV_GO_SYSCALL_END:
        x->st = GO_G_RUNNING;
        if (p) p->st = GO_P_RUNNING;
        return EMIT(g, m, ev->type);
    case GO_EV_GO_SYSCALL_END_BLOCKED:
        x->st = GO_G_RUNNABLE;
        m->g = GD_NONE;
        return EMIT(g, m, ev->type);
    default: /* GO_EV_GO_DESTROY */
        free_g(g, i, ev->g, x);
        m->g = GD_NONE;
        return EMIT(g, m, ev->type);
    }
}

/* Moves of a named goroutine: its start here, or its unblock by anyone. */
static int on_other(struct mg *g, size_t i, const struct gd_tev *ev, struct mg_m *m)
{
    struct mg_g *x = in_g(g, i, ev->args[0]);
    if (!x) return gd_fail(g->err, "%s of an unknown goroutine", gd_ev_name(ev->type));
    if (ev->type == GO_EV_GO_START) {
        if (m->g != GD_NONE || m->p == GD_NONE)
            return gd_fail(g->err, "GoStart on a thread that cannot run it");
        x->st = GO_G_RUNNING;
        x->early = 0; /* (its own unblock, if merge wrote one, came before) */
        x->m = (uint32_t)(m - g->ms);
        m->g = x->id;
        return EMIT(g, m, GO_EV_GO_START, x->id, ++x->seq);
    }
    if (x->exiter) return exiter_done(g, x, 1); /* a child's exit ends it, written there */
    struct mg_m *sm = !x->early ? late_waker(g, x) : NULL;
    if (sm) { /* its sender's log comes right after: the unblock is written by the sender */
        if (wake_across(g, sm, x)) return -1;
        x->early = 0;
        return 0;
    }
    if (x->early) { /* merge wrote it already, by the process that ended the wait */
        x->early = 0;
        return 0;
    }
    uint64_t id = x->id, seq = ++x->seq, stk;
    x->st = GO_G_RUNNABLE;
    x->wpid = 0;
    x->wsig = 0;
    x->wobj = 0;
    if (tr_stack(g, &g->in[i], ev->args[2], 0, &stk)) return -1;
    return EMIT(g, m, GO_EV_GO_UNBLOCK, id, seq, stk);
}

/* Input i's event ev, translated and written. */
static int on_event(struct mg *g, size_t i, const struct gd_tev *ev)
{
    if (ev->type == GD_EV_CPU) return on_cpu(g, i, ev);
    struct mg_m *m = get_m(g, i, ev->m);
    if (!m) return oom(g);
    switch (ev->type) {
    case GO_EV_PROC_STATUS:
        return on_proc_status(g, i, ev, m);
    case GO_EV_GO_STATUS:
    case GO_EV_GO_STATUS_STACK:
        return on_go_status(g, i, ev, m);
    case GO_EV_PROC_START:
    case GO_EV_PROC_STOP:
        return on_proc(g, i, ev, m);
    case GO_EV_GO_CREATE:
    case GO_EV_GO_CREATE_BLOCKED:
        return on_create(g, i, ev, m);
    case GO_EV_GO_START:
    case GO_EV_GO_UNBLOCK:
        return on_other(g, i, ev, m);
    case GO_EV_GO_STOP:
    case GO_EV_GO_BLOCK:
    case GO_EV_GO_SYSCALL_BEGIN:
    case GO_EV_GO_SYSCALL_END:
    case GO_EV_GO_SYSCALL_END_BLOCKED:
    case GO_EV_GO_DESTROY:
        return on_self(g, i, ev, m);
    case GO_EV_GO_LABEL:
    case GO_EV_USER_TASK_BEGIN:
    case GO_EV_USER_TASK_END:
    case GO_EV_USER_REGION_BEGIN:
    case GO_EV_USER_REGION_END:
    case GO_EV_USER_LOG:
        return on_user(g, i, ev, m);
    default:
        return gd_fail(g->err, "event %s is not merged (only the events gotrace's tracer writes)",
                       gd_ev_name(ev->type));
    }
}

/* Ends goroutine x of input i (in_id its id there) as its process ends: where it runs, or on
 * the synthetic thread (unblocked first when waiting) when it is not running. */
static int end_g(struct mg *g, size_t i, uint64_t in_id, struct mg_g *x)
{
    uint64_t id = x->id;
    if (x->exiter && exiter_done(g, x, 0)) return -1; /* it never woke: the child ends now */
    x = find_g(g, id);
    if (x->st == GO_G_RUNNING || x->st == GO_G_SYSCALL) {
        struct mg_m *m = &g->ms[x->m];
        int sys = x->st == GO_G_SYSCALL, nop = m->p == GD_NONE;
        if (sys && !nop) g->ps[m->p].st = GO_P_RUNNING;
        free_g(g, i, in_id, x);
        m->g = GD_NONE;
        if (sys && nop) return EMIT(g, m, GO_EV_GO_DESTROY_SYSCALL);
        if (sys && EMIT(g, m, GO_EV_GO_SYSCALL_END)) return -1;
        return EMIT(g, m, GO_EV_GO_DESTROY);
    }
    int waiting = x->st == GO_G_WAITING;
    uint64_t seq = x->seq;
    free_g(g, i, in_id, x);
    struct mg_m *s = synth_begin(g);
    if (!s) return oom(g);
    if (waiting && EMIT(g, s, GO_EV_GO_UNBLOCK, id, ++seq, 0)) return -1;
    if (EMIT(g, s, GO_EV_GO_START, id, ++seq) || EMIT(g, s, GO_EV_GO_DESTROY)) return -1;
    return synth_end(g, s);
}

/* The output goroutine waiting for the exit of input i's process (its last image), when one
 * is: a wait for its pid, else for any child of its parent; GD_NONE if none. */
static uint64_t exit_waiter(const struct mg *g, size_t i)
{
    const struct mg_in *in = &g->in[i];
    if (!in->pid || !in->last_image || !g->rename) return GD_NONE;
    uint64_t any = GD_NONE;
    for (size_t k = 0; k < g->ngs; k++) {
        const struct mg_g *x = &g->gs[k];
        if (x->st != GO_G_WAITING || !x->wpid || x->exiter || x->in == i) continue;
        if (x->wpid > 0 && (uint64_t)x->wpid == in->pid) return x->id;
        if (x->wpid == MG_ANY_CHILD && in->ppid && g->in[x->in].pid == in->ppid && any == GD_NONE)
            any = x->id;
    }
    return any;
}

/* Of input i's goroutines ids[0..n), the one its process's exit is written on: running with a
 * proc, on the main thread (whose id is the pid) if it is, else the first; GD_NONE if none. */
static uint64_t exit_thread(struct mg *g, size_t i, const uint64_t *ids, size_t n)
{
    uint64_t pick = GD_NONE;
    for (size_t k = 0; k < n; k++) {
        const struct mg_g *x = in_g(g, i, ids[k]);
        int on = x && (x->st == GO_G_RUNNING || x->st == GO_G_SYSCALL) && g->ms[x->m].p != GD_NONE;
        if (!on) continue;
        if ((g->ms[x->m].id & 0xffffffffu) == g->in[i].pid) return ids[k];
        if (pick == GD_NONE) pick = ids[k];
    }
    return pick;
}

/* Input i's goroutine in_id, running, is the last thread of its process, whose exit ends the
 * wait of goroutine waiter of another process (exit_waiter): it stays running, with its proc,
 * out of its (closed) input, until the waiter's own unblock (the process really exited then;
 * its trace ended when the tracer's last write began), where exiter_done unblocks the waiter
 * from it and ends it. */
static int keep_exiter(struct mg *g, size_t i, uint64_t in_id, uint64_t waiter)
{
    struct mg_g *x = in_g(g, i, in_id);
    struct mg_m *m = &g->ms[x->m];
    if (x->st == GO_G_SYSCALL) {
        x->st = GO_G_RUNNING;
        g->ps[m->p].st = GO_P_RUNNING;
        if (EMIT(g, m, GO_EV_GO_SYSCALL_END)) return -1;
    }
    gd_hm_del(&g->in[i].gmap, in_id);
    m->keep = 1;
    find_g(g, waiter)->exiter = x->id;
    return 0;
}

/* The exit of waiter x's process kept by keep_exiter: unblocks x from that process's last
 * thread when wake (x's own unblock came), then ends that thread and stops its proc. */
static int exiter_done(struct mg *g, struct mg_g *x, int wake)
{
    uint64_t wid = x->id;
    struct mg_g *e = find_g(g, x->exiter);
    x->exiter = 0;
    if (!e) return 0;
    struct mg_m *m = &g->ms[e->m];
    if (wake && wake_across(g, m, x)) return -1;
    find_g(g, wid)->early = 0; /* its own unblock is the one being dropped */
    e = find_g(g, m->g);
    size_t k = (size_t)(e - g->gs), last = g->ngs - 1; /* free_g, its input's map gone */
    gd_hm_del(&g->gmap, e->id);
    if (k != last) {
        g->gs[k] = g->gs[last];
        gd_hm_put(&g->gmap, g->gs[k].id, (uint32_t)k);
    }
    g->ngs--;
    m->g = GD_NONE;
    m->keep = 0;
    m->used = 0;
    if (EMIT(g, m, GO_EV_GO_DESTROY)) return -1;
    if (m->p == GD_NONE) return 0;
    g->ps[m->p].st = GO_P_IDLE;
    if (gd_grow((void **)&g->pfree, &g->pfcap, g->npfree + 1, sizeof(*g->pfree))) return oom(g);
    g->pfree[g->npfree++] = (uint32_t)m->p;
    m->p = GD_NONE;
    return EMIT(g, m, GO_EV_PROC_STOP);
}

/* Input i's trace ended: so does its process. Its goroutines end, its procs stop and wait
 * Idle for a later process, its threads are free; the input is closed. The last running thread
 * of a process another one waits for stays until that wait ends (keep_exiter). */
static int close_input(struct mg *g, size_t i)
{
    struct mg_in *in = &g->in[i];
    size_t n = 0;
    uint64_t *ids = malloc((in->gmap.len + 1) * sizeof(*ids));
    if (!ids) return oom(g);
    for (size_t k = 0; k < in->gmap.cap; k++) /* ids first: ending one changes the map */
        if (in->gmap.ents[k].used) ids[n++] = in->gmap.ents[k].key;
    uint64_t waiter = exit_waiter(g, i);
    uint64_t last = waiter != GD_NONE ? exit_thread(g, i, ids, n) : GD_NONE;
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++)
        rc = ids[k] == last ? keep_exiter(g, i, ids[k], waiter)
                            : end_g(g, i, ids[k], in_g(g, i, ids[k]));
    free(ids);
    for (size_t k = 0; k < in->pmap.cap && !rc; k++) {
        if (!in->pmap.ents[k].used) continue;
        uint64_t id = in->pmap.ents[k].val;
        struct mg_p *p = &g->ps[id];
        if (p->st != GO_P_IDLE && g->ms[p->m].keep) continue; /* kept_exiter's: stopped there */
        if (p->st != GO_P_IDLE) {
            g->ms[p->m].p = GD_NONE;
            p->st = GO_P_IDLE;
            rc = EMIT(g, &g->ms[p->m], GO_EV_PROC_STOP);
        }
        if (gd_grow((void **)&g->pfree, &g->pfcap, g->npfree + 1, sizeof(*g->pfree))) return oom(g);
        g->pfree[g->npfree++] = (uint32_t)id;
    }
    for (size_t k = 0; k < in->mmap.cap; k++)
        if (in->mmap.ents[k].used && g->ms[in->mmap.ents[k].val].owner == i &&
            !g->ms[in->mmap.ents[k].val].keep)
            g->ms[in->mmap.ents[k].val].used = 0;
    gd_dec_close(&in->d);
    gd_hm_free(&in->gmap);
    gd_hm_free(&in->pmap);
    gd_hm_free(&in->mmap);
    gd_hm_free(&in->smap);
    gd_hm_free(&in->kmap);
    free(in->recs);
    in->recs = NULL;
    in->state = 2;
    return rc;
}

/* Input i's next event, generation ends skipped: 1, 0 at its end, -1 (its d.err says why, or
 * g->err when writing failed). At a generation's end, with recs, the rest of its sync records
 * are written (its tables are still those they refer to). */
static int fetch(struct mg *g, size_t i, int recs)
{
    struct mg_in *in = &g->in[i];
    int rc;
    while ((rc = gd_dec_next(&in->d, &in->ev)) > 0 && in->ev.type == GD_EV_SYNC)
        if (recs && emit_recs(g, i, INT64_MAX)) return -2;
    return rc;
}

/* The heap of inputs by the time of their next event (not yet opened: of their first). */
static int before(const struct mg *g, size_t a, size_t b)
{
    const struct mg_in *x = &g->in[a], *y = &g->in[b];
    int64_t ta = x->state ? x->ev.time : x->start, tb = y->state ? y->ev.time : y->start;
    return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct mg *g, size_t k)
{
    for (;;) {
        size_t l = 2 * k + 1, r = l + 1, m = k;
        if (l < g->nheap && before(g, g->heap[l], g->heap[m])) m = l;
        if (r < g->nheap && before(g, g->heap[r], g->heap[m])) m = r;
        if (m == k) return;
        size_t t = g->heap[k];
        g->heap[k] = g->heap[m];
        g->heap[m] = t;
        k = m;
    }
}

static void sift_up(struct mg *g, size_t k)
{
    while (k && before(g, g->heap[k], g->heap[(k - 1) / 2])) {
        size_t t = g->heap[k];
        g->heap[k] = g->heap[(k - 1) / 2];
        g->heap[(k - 1) / 2] = t;
        k = (k - 1) / 2;
    }
}

/* Opens input i and reads its first event; 1, 0 when it has none, -1 (bad or unreadable). */
static int open_input(struct mg *g, size_t i)
{
    struct mg_in *in = &g->in[i];
    if (gd_dec_open(&in->d, in->path, GD_DEFAULT_MAX_GEN_MEM)) {
        *g->err = in->d.err;
        return -1;
    }
    int rc = fetch(g, i, 0);
    if (rc < 0) *g->err = in->d.err;
    return rc;
}

/* Input i's name for thread names: "name[pid]" from the tracer's process batch, else the
 * file's name (a trace written by an older tracer, or by `gotrace recover`). */
static void name_input(struct mg_in *in)
{
    const struct gd_gen *gen = &in->d.gen;
    if (gen->has_proc) {
        snprintf(in->prefix, sizeof in->prefix, "%s[%llu]", gen->pname,
                 (unsigned long long)gen->pid);
        snprintf(in->pname, sizeof in->pname, "%s", gen->pname);
        in->pid = gen->pid;
        in->ppid = gen->ppid;
        return;
    }
    const char *b = strrchr(in->path, '/');
    snprintf(in->prefix, sizeof in->prefix, "%.*s", GT_PROC_NAME_MAX, b ? b + 1 : in->path);
    snprintf(in->pname, sizeof in->pname, "%.*s", GT_PROC_NAME_MAX, in->prefix);
}

/* Marks each input no input of the same pid starts after (an exec'd image does): its end is
 * its process's exit. */
static int last_images(struct mg *g)
{
    struct gd_hmap latest = {0}; /* pid -> the input of it that starts last */
    int rc = 0;
    for (size_t i = 0; i < g->n && !rc; i++) {
        const struct mg_in *in = &g->in[i];
        uint32_t *v = in->pid && in->state == 0 ? gd_hm_get(&latest, in->pid) : NULL;
        if (in->pid && in->state == 0 && (!v || g->in[*v].start <= in->start))
            rc = gd_hm_put(&latest, in->pid, (uint32_t)i) ? oom(g) : 0;
    }
    for (size_t i = 0; i < g->n && !rc; i++) {
        uint32_t *v = g->in[i].pid ? gd_hm_get(&latest, g->in[i].pid) : NULL;
        g->in[i].last_image = v && *v == i;
    }
    gd_hm_free(&latest);
    return rc;
}

/* First pass: each input's first event time and name; the inputs stay closed, so that only the
 * processes alive at a moment of the merge hold memory and descriptors. */
static int scan(struct mg *g)
{
    for (size_t i = 0; i < g->n; i++) {
        struct mg_in *in = &g->in[i];
        int rc = open_input(g, i);
        if (rc > 0) {
            in->start = in->ev.time;
            name_input(in);
            g->heap[g->nheap++] = i;
            sift_up(g, g->nheap - 1);
        }
        gd_dec_close(&in->d);
        if (rc < 0) return g->bad = i, -1;
        in->state = rc > 0 ? 0 : 2;
    }
    return last_images(g);
}

/* Writes input i's next event (opening it first if it was not), then reads its following one:
 * 0, or -1 with g->bad set. */
static int step(struct mg *g, size_t i)
{
    struct mg_in *in = &g->in[i];
    if (!in->state) {
        if (open_input(g, i) <= 0) return g->bad = i, -1; /* it had an event in scan */
        in->state = 1;
        return 0;
    }
    if (in->ev.time > g->now) g->now = in->ev.time;
    if (g->open && (g->now - g->t0 >= g->window || g->bytes >= MG_GEN_BYTES) && end_gen(g))
        return -1;
    if (!g->open && begin_gen(g)) return -1;
    if (emit_recs(g, i, in->ev.time) || on_event(g, i, &in->ev)) {
        if (g->outfail) return -1; /* not the input's fault */
        if (g->located) return g->bad = i, -1;
        struct gd_err *e = g->err;
        e->gen = in->d.gen.num;
        e->has_gen = 1;
        e->m = in->ev.m;
        e->has_m = 1;
        e->ev = gd_ev_name(in->ev.type);
        e->off = in->ev.off;
        return g->bad = i, -1;
    }
    int rc = fetch(g, i, 1);
    if (rc == -2) return g->outfail ? -1 : (g->bad = i, -1);
    if (rc < 0) {
        *g->err = in->d.err;
        return g->bad = i, -1;
    }
    if (rc == 0 && close_input(g, i)) return g->bad = i, -1;
    return rc;
}

static void free_all(struct mg *g)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->in[i].state == 1) close_input(g, i);
    for (size_t k = 0; k < g->nms; k++)
        free(g->ms[k].b.p);
    free(g->ms);
    free(g->mless.b.p);
    free(g->gs);
    free(g->ps);
    free(g->pfree);
    free(g->mfree);
    free(g->strs.p);
    free(g->stks.p);
    free(g->cpu.p);
    free(g->sync.p);
    free(g->lsync.p);
    free(g->lcuts);
    free(g->procs.p);
    gd_hm_free(&g->mmap);
    gd_hm_free(&g->gmap);
    gd_hm_free(&g->strmap);
    gd_hm_free(&g->stkmap);
    gd_hm_free(&g->pcmap);
    free(g->heap);
    free(g->in);
}

int gd_merge(const char *const *paths, size_t n, int rename, int64_t window_ns,
             const struct gd_merge_out *out, struct gd_err *err, size_t *bad)
{
    struct mg g = {.n = n, .bad = n, .rename = rename, .out = out, .err = err, .sp = GD_NONE};
    g.window = window_ns > 0 ? window_ns : MG_WINDOW_NS;
    g.mless = (struct mg_m){.id = GO_NO_THREAD, .g = GD_NONE, .p = GD_NONE, .used = 1};
    memset(err, 0, sizeof(*err));
    err->off = -1;
    g.in = calloc(n ? n : 1, sizeof(*g.in));
    g.heap = calloc(n ? n : 1, sizeof(*g.heap));
    int rc = g.in && g.heap ? 0 : oom(&g);
    for (size_t i = 0; i < n && !rc; i++)
        g.in[i].path = paths[i];
    if (!rc && n && out->write(out->ctx, GO_TRACE_HEADER, GO_TRACE_HEADER_LEN))
        rc = gd_fail(err, "cannot write the merged trace");
    if (!rc) rc = scan(&g);
    while (!rc && g.nheap) {
        size_t i = g.heap[0];
        int more = step(&g, i);
        if (more < 0) {
            rc = -1;
        } else if (more == 0 && g.in[i].state == 2) {
            g.heap[0] = g.heap[--g.nheap];
            sift_down(&g, 0);
        } else {
            sift_down(&g, 0);
        }
    }
    if (!rc && g.open) rc = end_gen(&g);
    *bad = g.outfail ? n : g.bad;
    free_all(&g);
    return rc;
}
