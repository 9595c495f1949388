/* cmd_recover.c: `gotrace recover [--keep] FILE` — completes the trace of a process that died
 * before writing it all, from the live file it left on /dev/shm (common/gt_live.h).
 * Invariants: FILE keeps its whole generations byte for byte (a generation cut by the death is
 * dropped) and gets the generations the process had not written, rebuilt from its buffers,
 * statuses and tables, as valid final generations: every candidate is checked by the decoder's
 * own validation and an event it refuses (a thread killed mid-record, a status claimed but not
 * written) is dropped with the rest of its batch, never misread; FILE is replaced whole (a
 * temporary file renamed) or not at all; on a complete trace nothing changes; the live file is
 * removed once FILE is whole (--keep keeps it).
 * How: FILE's first out_size bytes are kept (the head counts only whole generations, so a
 * generation whose write the death cut is past them, and is rebuilt instead). The generations
 * the process had not written are rebuilt as its flusher would have written them: their event
 * batches, taken as they lie in the live file (collect), then their stack table (symbolized
 * here, from the recorded modules), string table, process batch (the head's pid, parent and
 * name) and frequency. That candidate is decoded by
 * this decoder (verify); an event it refuses inside a recovered batch cuts that batch there
 * (trim), a failure outside every batch (a table, a status) drops the last recovered
 * generation, and the candidate is built and decoded again, until it validates.
 * Why validate: the live file is memory a process was writing when SIGKILL stopped it between
 * two stores, its bytes can be anything, and the result replaces the only copy of the trace.
 * The writer orders its stores (bytes before lengths, records before links: gt_live.h) so most
 * of what a reader finds is whole, but a status claimed and not written, a buffer half linked
 * or a state that only the dead thread's next event would have made consistent can only be
 * found by decoding; with the decoder itself as the judge, the result is valid by exactly the
 * rules `gotrace check` and gotracevalidate apply.
 * Not recovered: CPU samples and lock holder records (not in the live file),
 * names of sync objects (rendered by the flusher from its own tables: here a reason and an
 * address), inlined frames. */
#include "cli.h"
#include "cmds.h"
#include "decode.h"
#include "go_wire.h"
#include "grow.h"
#include "live.h"
#include "livesym.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: gotrace recover [--keep] FILE\n"
    "       gotrace recover --all [DIR]\n"
    "\n"
    "Completes FILE, the trace of a process that died before writing it all (killed by a\n"
    "signal, SIGKILL included): the tracer keeps its buffers in a live file on /dev/shm, and\n"
    "this appends the events it holds as the trace's last generations, with stacks symbolized\n"
    "from the program's files on this machine. Events a thread was writing when it died are\n"
    "dropped. On a complete trace it changes nothing. The live file is removed afterwards\n"
    "(--keep keeps it). Exit status: 0 recovered or nothing to do, 1 nothing recoverable or the\n"
    "process still runs, 2 bad usage, 3 FILE cannot be read or written. A process killed a\n"
    "moment ago is waited for (at most 3 s); FILE keeps its owner and mode.\n"
    "\n"
    "--all looks at every live file on /dev/shm (with DIR, those whose trace lies under DIR)\n"
    "and says in one line each what it did: the trace of a process that died is completed as\n"
    "above (a forked child's that it never opened is made), a live file whose trace file is\n"
    "gone (deleted, or replaced by another file) or whose process ended cleanly is removed;\n"
    "the file of a process that still runs is left alone. Status: 0, or the first failure's.\n";

#define END_WAIT_MS 3000            /* how long a process killed a moment ago may take to end */
#define STACK_PC_SYNTH (1ull << 63) /* preload/stack/stack.h: synthetic frames */
#define STACK_PC_MAIN (STACK_PC_SYNTH | 1)
#define MAX_STEPS (1u << 22) /* links followed in one list: a torn list may loop */
/* Rebuilds tried before giving up: each decodes the whole candidate, so the bound is on time;
 * a file torn in more places than this is left alone (FILE unchanged, status 1). */
#define MAX_TRIMS 256

/* A growing byte buffer: the candidate trace. */
struct buf {
    uint8_t *p;
    size_t len, cap;
};

/* Appends n bytes; -1 when out of memory (the callers then build a short candidate, which
 * fails its validation rather than being written). */
static int put(struct buf *b, const void *src, size_t n)
{
    if (n == 0) return 0; /* b->p may still be NULL */
    if (gd_grow((void **)&b->p, &b->cap, b->len + n, 1) != 0) return -1;
    memcpy(b->p + b->len, src, n);
    b->len += n;
    return 0;
}

/* A uvarint, the trace's integer encoding (7 bits a byte, low first). */
static void put_uv(struct buf *b, uint64_t v)
{
    uint8_t t[10];
    int n = 0;
    for (; v >= 0x80; v >>= 7)
        t[n++] = (uint8_t)(v | 0x80);
    t[n++] = (uint8_t)v;
    put(b, t, (size_t)n);
}

/* One recovered event batch: its bytes stay in the live file; len shrinks when trimmed. fgen is
 * the generation number it gets in FILE, m its thread (GO_NO_THREAD: the statuses of threads
 * without one), ts the time its batch header carries. */
struct batch {
    uint64_t fgen, m, ts;
    const uint8_t *data;
    size_t len;
    size_t at; /* offset of its data in the candidate */
};

/* A string added for symbolized names (ids above the process's: its own ids stay as they are,
 * since its events refer to them). */
struct name {
    char *s;
    uint64_t id;
};

/* One recovery's state. */
struct rec {
    struct gd_live l;
    struct gd_livesym *sym;
    uint64_t gens[2];  /* the process's generation numbers to recover, oldest first */
    uint64_t fgens[2]; /* and the numbers they get in FILE (plan) */
    int ngens;         /* how many; the last is dropped when its tables do not validate */
    struct batch *b;   /* every recovered batch, in the order they are written */
    size_t nb, capb;
    struct name *names;
    size_t nnames, capnames;
    uint64_t next_str; /* the next id for a name */
    struct buf out;    /* the candidate: FILE's whole generations, then the recovered ones */
    size_t dropped;    /* bytes of events dropped */
};

/* Notes a batch of len bytes at data (NULL: outside the file, or torn: nothing). An empty one
 * is not noted, as the flusher writes none. */
static int add_batch(struct rec *r, uint64_t fgen, uint64_t m, uint64_t ts, const uint8_t *data,
                     size_t len)
{
    if (!data || !len) return 0;
    if (gd_grow((void **)&r->b, &r->capb, r->nb + 1, sizeof *r->b) != 0) return -1;
    r->b[r->nb++] = (struct batch){fgen, m, ts, data, len, 0};
    return 0;
}

/* A thread's batches of generation parity par: statuses, full buffers, the current one. The
 * tracer keeps two sets of everything per thread, by generation parity: threads write
 * generation N + 1 into one while the flusher writes N from the other. Each length is checked
 * against its capacity before the bytes are taken (a torn length would read a neighbour's
 * memory as events), and each address through gd_live_at. */
static void thread_batches(struct rec *r, uint64_t t, int par, uint64_t fgen)
{
    const struct gt_live_layout *L = &r->l.h->layout;
    uint64_t m = gd_live_u64(&r->l, t, L->t_tid);
    uint32_t poff = (uint32_t)par * L->t_prefix_size;
    uint32_t plen = gd_live_u32(&r->l, t, L->p_len + poff);
    if (plen && plen <= L->t_prefix_size)
        add_batch(r, fgen, m, gd_live_u64(&r->l, t, L->p_ts + poff),
                  gd_live_at(&r->l, t + L->p_bytes + poff, plen), plen);
    uint64_t s = t + L->t_stream + (uint64_t)par * L->t_stream_size;
    uint64_t cur = gd_live_u64(&r->l, s, L->s_cur);
    uint32_t curlen = gd_live_u32(&r->l, s, L->s_len);
    uint64_t b = gd_live_u64(&r->l, s, L->s_full_head);
    /* The full list stops at cur: a thread that died between pushing its full buffer and
     * installing a new one has cur still on the list (buf.h), and the buffer is taken once,
     * as the current one, with the stream's length. (A death between the store that resets
     * that length to 0 and the one that installs the new buffer leaves that buffer out.) */
    for (unsigned steps = 0; b && steps < MAX_STEPS && b != cur; steps++) {
        uint32_t len = gd_live_u32(&r->l, b, L->b_len), cap = gd_live_u32(&r->l, b, L->b_cap);
        if (len <= cap)
            add_batch(r, fgen, m, gd_live_u64(&r->l, b, L->b_base_ts),
                      gd_live_at(&r->l, b + L->b_data, len), len);
        b = gd_live_u64(&r->l, b, L->b_next);
    }
    /* The stream's length, stored after each event's bytes: it counts whole events only. */
    if (cur && curlen && curlen <= gd_live_u32(&r->l, cur, L->b_cap))
        add_batch(r, fgen, m, gd_live_u64(&r->l, cur, L->b_base_ts),
                  gd_live_at(&r->l, cur + L->b_data, curlen), curlen);
}

/* Every batch of the process's generation g (file generation fgen), in the tracer's order
 * (generation.c's encode_batches): the statuses of threads without an M, then each registered
 * thread's. Batches of one thread must stay in their order: Go's reader reads a thread's
 * events in the order of its batches. */
static void collect(struct rec *r, uint64_t g, uint64_t fgen)
{
    int par = (int)(g & 1);
    const struct gt_live_mless *ml =
        gd_live_at(&r->l, r->l.h->mless[par], sizeof(struct gt_live_mless));
    /* GT_LIVE_LOST: they did not fit when claimed; without them the generation may not
     * validate, which verify then finds. */
    if (ml && ml->len && ml->len != GT_LIVE_LOST && ml->len <= sizeof ml->bytes)
        add_batch(r, fgen, GO_NO_THREAD, ml->ts, ml->bytes, ml->len);
    uint64_t t = r->l.h->registry;
    for (unsigned steps = 0; t && steps < MAX_STEPS; steps++) {
        thread_batches(r, t, par, fgen);
        t = gd_live_u64(&r->l, t, r->l.h->layout.t_next);
    }
}

/* Entry id of set s: its bytes (and length), and its mark word for parity par. The set's
 * entries are in segments of seg_ids, found through its segment array (gt_live.h); a segment
 * never allocated is 0. A length of 1 MiB or more is no entry's (strings and stacks are far
 * shorter): it is torn, and refused before the bytes are looked up. */
static const uint8_t *entry(const struct rec *r, const struct gt_live_set *s, uint64_t id, int par,
                            uint64_t *len, uint64_t *mark)
{
    const struct gt_live_layout *L = &r->l.h->layout;
    if (!s->seg_ids || id / s->seg_ids >= s->nsegs) return NULL;
    uint64_t seg = gd_live_u64(&r->l, s->segs, (uint32_t)(8 * (id / s->seg_ids)));
    if (!seg) return NULL;
    uint64_t e = seg + (id % s->seg_ids) * L->e_size;
    uint64_t bytes = gd_live_u64(&r->l, e, L->e_bytes);
    *len = gd_live_u64(&r->l, e, L->e_len);
    *mark = gd_live_u64(&r->l, e, L->e_mark + 8u * (uint32_t)par);
    return bytes && *len < (1u << 20) ? gd_live_at(&r->l, bytes, *len) : NULL;
}

/* Entry id of set s when generation g uses it (its bytes and length), else NULL. A trace's
 * tables are per generation: the tracer marks an entry when a generation first refers to it
 * (mark[g & 1] = g + 1) and writes the marked ones with that generation, so recovering the
 * marked ones gives each rebuilt generation the table its events expect. */
static const uint8_t *marked(const struct rec *r, const struct gt_live_set *s, uint64_t id,
                             uint64_t g, uint64_t *len)
{
    uint64_t mark;
    const uint8_t *p = entry(r, s, id, (int)(g & 1), len, &mark);
    return mark == g + 1 ? p : NULL;
}

static uint64_t set_ids(const struct gt_live_set *s)
{
    return (uint64_t)s->nsegs * s->seg_ids;
}

/* The id of a string made for a symbolized name (new ids above the process's). A linear
 * search: the names are the distinct functions and files of two generations' stacks. 0 (the
 * empty string) when out of memory. */
static uint64_t name_id(struct rec *r, const char *s)
{
    for (size_t i = 0; i < r->nnames; i++)
        if (!strcmp(r->names[i].s, s)) return r->names[i].id;
    if (gd_grow((void **)&r->names, &r->capnames, r->nnames + 1, sizeof *r->names) != 0) return 0;
    char *c = strdup(s);
    if (!c) return 0;
    r->names[r->nnames] = (struct name){c, r->next_str++};
    return r->names[r->nnames++].id;
}

/* A structural batch (stacks, strings, frequency: thread GO_NO_THREAD, time 0): its header,
 * with the size written as a 3-byte uvarint (0x80 0x80 0x00, continuation bits set) that
 * struct_end patches once the size is known. Go's reader accepts a uvarint padded so, and 3
 * bytes hold any size below 2^21, more than a batch's payload limit (struct_room). Returns
 * where the size is. */
static size_t struct_begin(struct buf *b, uint64_t fgen, uint8_t kind)
{
    put(b, (uint8_t[]){GO_EV_EVENT_BATCH}, 1);
    put_uv(b, fgen);
    put_uv(b, GO_NO_THREAD);
    put_uv(b, 0);
    size_t at = b->len;
    put(b, (uint8_t[]){0x80, 0x80, 0, kind}, 4);
    return at;
}

/* The size counts everything after its own 3 bytes: the kind byte and the entries. */
static void struct_end(struct buf *b, size_t at)
{
    size_t size = b->len - at - 3;
    b->p[at] = (uint8_t)(0x80 | (size & 0x7f));
    b->p[at + 1] = (uint8_t)(0x80 | ((size >> 7) & 0x7f));
    b->p[at + 2] = (uint8_t)(size >> 14);
}

/* Starts a new structural batch when the open one would pass Go's payload limit. */
static void struct_room(struct buf *b, size_t *at, uint64_t fgen, uint8_t kind, size_t need)
{
    if (b->len - *at - 3 + need <= GO_MAX_BATCH_PAYLOAD) return;
    struct_end(b, *at);
    *at = struct_begin(b, fgen, kind);
}

/* The stacks marked in generation g, symbolized: each frame is (pc, function, file, line),
 * the strings made by name_id. A frame whose address no module knows keeps its address as its
 * function's name ("0x7f..."), so the frame still shows where it was. A stack whose length is
 * not a whole number of addresses is torn and left out (an event using it then names a stack
 * the table lacks, which verify refuses). */
static void encode_stacks(struct rec *r, uint64_t g, uint64_t fgen)
{
    const struct gt_live_set *s = &r->l.h->stacks;
    size_t at = struct_begin(&r->out, fgen, GO_EV_STACKS);
    for (uint64_t id = 1; id < set_ids(s); id++) {
        uint64_t len;
        const uint8_t *pcs = marked(r, s, id, g, &len);
        if (!pcs || len % 8) continue;
        uint64_t fr[GO_MAX_STACK_FRAMES][4];
        int n = 0;
        for (uint64_t i = 0; i < len / 8 && n < GO_MAX_STACK_FRAMES; i++) {
            uint64_t pc;
            memcpy(&pc, pcs + 8 * i, 8);
            const char *fn = NULL, *file = "";
            uint64_t line = 0;
            char hex[32];
            if (pc == STACK_PC_MAIN) {
                fn = "main";
            } else if (pc & STACK_PC_SYNTH) {
                continue; /* a thread's first frame of its own code: named by its start */
            } else if (!gd_livesym_frame(r->sym, pc, &fn, &file, &line)) {
                snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)pc);
                fn = hex;
            }
            fr[n][0] = pc;
            fr[n][1] = name_id(r, fn);
            fr[n][2] = *file ? name_id(r, file) : 0;
            fr[n][3] = line;
            n++;
        }
        /* A bound: the event byte, its id and frame count (21 bytes at most), then 4 uvarints
         * of at most 10 bytes per frame. */
        struct_room(&r->out, &at, fgen, GO_EV_STACKS, 30 + (size_t)n * 40);
        put(&r->out, (uint8_t[]){GO_EV_STACK}, 1);
        put_uv(&r->out, id);
        put_uv(&r->out, (uint64_t)n);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 4; k++)
                put_uv(&r->out, fr[i][k]);
    }
    struct_end(&r->out, at);
}

/* One string of the table, cut at Go's limit on a string's length (which Go's reader
 * enforces). */
static void string_event(struct rec *r, size_t *at, uint64_t fgen, uint64_t id, const char *s,
                         size_t len)
{
    if (len > GO_MAX_STRING_LEN) len = GO_MAX_STRING_LEN;
    struct_room(&r->out, at, fgen, GO_EV_STRINGS, 30 + len);
    put(&r->out, (uint8_t[]){GO_EV_STRING}, 1);
    put_uv(&r->out, id);
    put_uv(&r->out, len);
    put(&r->out, s, len);
}

/* A sync object's name as the tracer renders it: its reason, then its address. Until the
 * flusher writes a generation an object's string holds a tagged record (GT_LIVE_OBJ_TAG: the
 * reason's string id and the address), which the flusher turns into "sync: mutex ledger_lock"
 * with the symbol tables and its table of init sites (docs/locks.md), not here. The reason
 * and the address keep one name per object, so the locks analyses still tell objects apart.
 * The reason's entry is read without its mark: it need not be marked in this generation. */
static size_t object_text(struct rec *r, const uint8_t *p, char *buf, size_t cap)
{
    uint64_t reason, addr, len, mark;
    memcpy(&reason, p + 1, 8);
    memcpy(&addr, p + 9, 8);
    const uint8_t *txt = entry(r, &r->l.h->strings, reason, 0, &len, &mark);
    int n = snprintf(buf, cap, "%.*s 0x%llx", txt ? (int)len : 5,
                     txt ? (const char *)txt : "sync:", (unsigned long long)addr);
    return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

/* The strings marked in generation g, and the names the stacks made (all of them, for each
 * generation: a name's id must resolve in every generation whose stacks use it). Written after
 * encode_stacks, which makes the names. */
static void encode_strings(struct rec *r, uint64_t g, uint64_t fgen)
{
    const struct gt_live_set *s = &r->l.h->strings;
    size_t at = struct_begin(&r->out, fgen, GO_EV_STRINGS);
    for (uint64_t id = 1; id < set_ids(s); id++) {
        uint64_t len;
        const uint8_t *p = marked(r, s, id, g, &len);
        if (!p) continue;
        char text[GO_MAX_STRING_LEN];
        if (len == GT_LIVE_OBJ_LEN && p[0] == GT_LIVE_OBJ_TAG)
            string_event(r, &at, fgen, id, text, object_text(r, p, text, sizeof text));
        else
            string_event(r, &at, fgen, id, (const char *)p, len);
    }
    for (size_t i = 0; i < r->nnames; i++)
        string_event(r, &at, fgen, r->names[i].id, r->names[i].s, strlen(r->names[i].s));
    struct_end(&r->out, at);
}

/* The process batch the tracer writes in each generation (GT_EXP_PROC, go_wire.h: pid, parent,
 * name), from the live file's head: a killed process's trace names its program, so `gotrace
 * merge` shows its threads as `NAME[PID]` (docs/processes.md). */
static void encode_process(struct rec *r, uint64_t fgen)
{
    const struct gt_live_head *h = r->l.h;
    size_t n =
        strnlen(h->name, sizeof h->name < GT_PROC_NAME_MAX ? sizeof h->name : GT_PROC_NAME_MAX);
    struct buf p = {0};
    put_uv(&p, (uint64_t)h->pid);
    put_uv(&p, (uint64_t)h->ppid);
    put_uv(&p, n);
    put(&p, h->name, n);
    put(&r->out, (uint8_t[]){GO_EV_EXPERIMENTAL_BATCH, GT_EXP_PROC}, 2);
    put_uv(&r->out, fgen);
    put_uv(&r->out, GO_NO_THREAD);
    put_uv(&r->out, 0);
    put_uv(&r->out, p.len);
    put(&r->out, p.p, p.len);
    free(p.p);
}

/* The candidate: the trace's whole generations, then the recovered ones. Built again after
 * each trim (the batches' offsets in the candidate, b->at, change). Without even a header in
 * FILE (a forked child killed before its first write made the file) the header is written
 * here. A recovered generation is written as the flusher writes one: event batches, stacks,
 * strings, the process, then the frequency, which every generation of a file needs. */
static void build(struct rec *r, const uint8_t *old, size_t oldlen)
{
    r->out.len = 0;
    if (oldlen < GO_TRACE_HEADER_LEN)
        put(&r->out, GO_TRACE_HEADER, GO_TRACE_HEADER_LEN);
    else
        put(&r->out, old, oldlen);
    for (int k = 0; k < r->ngens; k++) {
        uint64_t fgen = r->fgens[k];
        for (size_t i = 0; i < r->nb; i++) {
            struct batch *b = &r->b[i];
            if (b->fgen != fgen || !b->len) continue;
            put(&r->out, (uint8_t[]){GO_EV_EVENT_BATCH}, 1);
            put_uv(&r->out, fgen);
            put_uv(&r->out, b->m);
            put_uv(&r->out, b->ts);
            put_uv(&r->out, b->len);
            b->at = r->out.len;
            put(&r->out, b->data, b->len);
        }
        encode_stacks(r, r->gens[k], fgen);
        encode_strings(r, r->gens[k], fgen);
        encode_process(r, fgen);
        size_t at = struct_begin(&r->out, fgen, GO_EV_FREQUENCY);
        put_uv(&r->out, r->l.h->ticks_per_sec);
        struct_end(&r->out, at);
    }
}

/* Decodes the candidate: 0 valid, else the failing event's offset (or -1 unknown) in *off,
 * with -2 when it could not be decoded at all (the memfd could not be made or filled). The
 * decoder reads a descriptor, so the candidate is copied into a memfd: memory, no file on
 * disk. */
static int verify(const struct buf *b, int64_t *off, uint64_t *nevents, char *why, size_t cap)
{
    int fd = memfd_create("gotrace-recover", MFD_CLOEXEC);
    int e = fd < 0 ? errno : gd_write_full(fd, b->p, b->len);
    if (!e && lseek(fd, 0, SEEK_SET) != 0) e = errno;
    if (e) {
        if (fd >= 0) close(fd);
        snprintf(why, cap, "cannot check the result: %s", strerror(e));
        *off = -2;
        return -1;
    }
    struct gd_dec d;
    int rc = gd_dec_fdopen(&d, fd, GD_DEFAULT_MAX_GEN_MEM);
    if (rc == 0) {
        struct gd_tev ev;
        while ((rc = gd_dec_next(&d, &ev)) > 0)
            ;
    }
    *off = d.err.off;
    *nevents = d.nevents;
    snprintf(why, cap, "%s", d.err.msg);
    gd_dec_close(&d);
    close(fd);
    return rc < 0 ? -1 : 0;
}

/* Drops the event at candidate offset off and the rest of its batch; 0, or -1 when off is in
 * no recovered batch. The rest goes too: an event's time is a delta from the previous event of
 * its batch, so none can be taken out of the middle; what follows is the same thread's later
 * history, whose states follow from the refused event; and the death came at the end of each
 * stream, so a refused event is almost always among its last. */
static int trim(struct rec *r, int64_t off)
{
    for (size_t i = 0; off >= 0 && i < r->nb; i++) {
        struct batch *b = &r->b[i];
        if (b->len && (size_t)off >= b->at && (size_t)off < b->at + b->len) {
            r->dropped += b->len - ((size_t)off - b->at);
            b->len = (size_t)off - b->at;
            return 0;
        }
    }
    return -1;
}

/* Reads the first n bytes of path into *p (a file shorter than n: -1): FILE's whole
 * generations, which the candidate starts with byte for byte. *p is the caller's to free. */
static int read_head(const char *path, size_t n, uint8_t **p)
{
    *p = malloc(n ? n : 1);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t got = 0;
    while (fd >= 0 && *p && got < n) {
        ssize_t k = read(fd, *p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    if (fd >= 0) close(fd);
    return *p && got == n ? 0 : -1;
}

/* The temporary file fd takes the owner, group and mode of the trace at path it replaces
 * (a trace written by a process that dropped root to nobody, or made private with chmod, stays
 * so); a trace made here (a forked child's, killed before it opened it) keeps the default. An
 * owner that cannot be given (recover not run as root) is left as it is, the recovering
 * user's. */
static void keep_owner(int fd, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return;
    if (fchown(fd, st.st_uid, st.st_gid) != 0) { /* EPERM: not root; the file stays ours */
    }
    if (fchmod(fd, st.st_mode & 07777) != 0) { /* cannot fail on a file we just made */
    }
}

/* Writes b to path whole: a temporary file beside it, renamed over it. Not sink.c: its
 * output is never its input, and here it is by design. The temporary file is made with
 * O_EXCL and the pid in its name (two recovers of one trace cannot share it), and synced
 * before the rename: the old file holds the only copy of the written generations, and after a
 * crash the name must not point at a file whose data never reached the disk. */
static int replace(const char *path, const struct buf *b)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.recover.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    keep_owner(fd, path);
    int e = gd_write_full(fd, b->p, b->len);
    if (e) errno = e;
    int ok = !e && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

static void rec_free(struct rec *r)
{
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i].s);
    free(r->names);
    free(r->b);
    free(r->out.p);
    gd_livesym_free(r->sym);
    gd_live_close(&r->l);
}

/* Which of the process's generations were not written: those after gen_written, at most the
 * two whose buffers can still be in memory (one set per parity: the one the flusher was
 * writing, or about to, and the current one); older ones' buffers were reused. They get the
 * numbers that follow FILE's last whole generation (out_gens), as the flusher numbers what it
 * writes: the process's own count also has empty generations, which were never written. */
static void plan(struct rec *r)
{
    const struct gt_live_head *h = r->l.h;
    uint64_t first = h->gen_written + 1, last = h->gen_current;
    if (last >= 2 && first + 1 < last) first = last - 1;
    for (uint64_t g = first; g <= last && r->ngens < 2; g++) {
        r->gens[r->ngens] = g;
        r->fgens[r->ngens] = h->out_gens + 1 + (uint64_t)r->ngens;
        r->ngens++;
    }
}

/* The recovered trace in r->out, checked; 0, or -1 after a message. */
static int rebuild(struct rec *r, const char *file, const uint8_t *old, size_t oldlen,
                   uint64_t *nevents)
{
    plan(r);
    for (int k = 0; k < r->ngens; k++)
        collect(r, r->gens[k], r->fgens[k]);
    r->next_str = set_ids(&r->l.h->strings) + 1; /* above every id the process could use */
    r->sym = gd_livesym_new(&r->l);
    char why[600];
    for (int trims = 0;; trims++) {
        build(r, old, oldlen);
        int64_t off;
        if (verify(&r->out, &off, nevents, why, sizeof why) == 0) return 0;
        /* A failure inside FILE's own generations is not the recovery's to mend: FILE stays. */
        if (off == -2 || trims >= MAX_TRIMS || (off >= 0 && (size_t)off < oldlen)) break;
        if (trim(r, off) == 0) continue;
        /* not in a batch: the last recovered generation goes (its tables or statuses) */
        if (r->ngens == 0) break;
        r->ngens--;
    }
    fprintf(stderr, "gotrace: %s: the recovered trace does not validate (%s); unchanged\n", file,
            why);
    return -1;
}

/* Recovers path from the live file at live; the exit status. The live file is removed only
 * when nothing in it is still needed: after FILE was replaced, or when it holds nothing. */
static int recover(const char *path, const char *live, int keep, FILE *out)
{
    struct rec r = {0};
    char why[200];
    if (gd_live_open(&r.l, live, why, sizeof why) != 0) {
        fprintf(stderr, "gotrace: %s: %s\n", live, why);
        return GD_EXIT_IO;
    }
    /* Its buffers are still being written: a copy now would be torn everywhere, and the
     * process will write them itself. */
    if (gd_live_wait_end(&r.l, END_WAIT_MS) != 0) {
        fprintf(stderr,
                "gotrace: %s: process %lld, which writes it, is still running; recover it after "
                "it ends\n",
                path, (long long)r.l.h->pid);
        gd_live_close(&r.l);
        return GD_EXIT_BAD_TRACE;
    }
    if (r.l.h->state != GT_LIVE_RUNNING) { /* it ended cleanly: a stale file */
        if (!keep) unlink(live);
        fprintf(out, "%s: complete: nothing to recover\n", path);
        gd_live_close(&r.l);
        return GD_EXIT_OK;
    }
    uint8_t *old = NULL;
    size_t oldlen = (size_t)r.l.h->out_size;
    /* Before its first generation the file holds its start (preload/flush/output.h), whose
     * event the recovered generation 1 replaces. */
    if (!r.l.h->out_gens && oldlen > GO_TRACE_HEADER_LEN) oldlen = GO_TRACE_HEADER_LEN;
    /* Killed before it wrote or recorded anything (a process killed in a constructor): its file
     * is its start (a valid trace with no thread), or none. */
    if (!r.l.h->out_gens &&
        gt_live_traced_nothing(r.l.h->mless[0], r.l.h->mless[1], r.l.h->registry)) {
        if (!keep) unlink(live);
        fprintf(out, "%s: process %lld traced nothing before it died: nothing to recover\n", path,
                (long long)r.l.h->pid);
        gd_live_close(&r.l);
        return GD_EXIT_OK;
    }
    struct stat st;
    if (oldlen && (read_head(path, oldlen, &old) != 0 || stat(path, &st) != 0)) {
        fprintf(stderr, "gotrace: %s: cannot read its %zu written bytes: %s\n", path, oldlen,
                errno ? strerror(errno) : "the file is shorter");
        free(old);
        rec_free(&r);
        return GD_EXIT_IO;
    }
    uint64_t nevents = 0;
    int rc = rebuild(&r, path, old, oldlen, &nevents);
    if (rc == 0 && replace(path, &r.out) != 0) {
        fprintf(stderr, "gotrace: %s: cannot write it: %s\n", path, strerror(errno));
        rc = GD_EXIT_IO;
    } else if (rc == 0) {
        fprintf(out,
                "%s: recovered %d generation(s) of process %lld from %s: %zu bytes of events "
                "(%zu dropped: being written when it died); %llu events in all\n",
                path, r.ngens, (long long)r.l.h->pid, live,
                r.out.len - (oldlen < GO_TRACE_HEADER_LEN ? GO_TRACE_HEADER_LEN : oldlen),
                r.dropped, (unsigned long long)nevents);
        if (!keep) unlink(live);
    } else {
        rc = GD_EXIT_BAD_TRACE;
    }
    free(old);
    rec_free(&r);
    return rc;
}

/* Without a live file, FILE is decoded to say which case it is: complete (nothing to do), or
 * damaged with nothing to recover it from. The search is not dead_only: a running process's
 * file is found, and refused with a message that says why. */
int gd_recover_file(const char *path, int keep, FILE *out)
{
    char live[512];
    if (gd_live_find(path, 0, live, sizeof live)) return recover(path, live, keep, out);
    struct gd_dec d;
    if (gd_dec_open(&d, path, GD_DEFAULT_MAX_GEN_MEM) != 0) {
        gd_err_print(&d.err, path, stderr);
        int rc = d.err.io ? GD_EXIT_IO : GD_EXIT_BAD_TRACE;
        gd_dec_close(&d);
        return rc;
    }
    struct gd_tev ev;
    int rc;
    while ((rc = gd_dec_next(&d, &ev)) > 0)
        ;
    if (rc < 0) {
        gd_err_print(&d.err, path, stderr);
        fprintf(stderr, "gotrace: %s: no live file of its process in %s: nothing to recover\n",
                path, GT_LIVE_DIR);
        rc = GD_EXIT_BAD_TRACE;
    } else {
        fprintf(out, "%s: complete: nothing to recover\n", path);
    }
    gd_dec_close(&d);
    return rc;
}

/* Whether path (resolved) lies under dir (resolved): dir itself or below it. */
static int under_dir(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n && dir[n - 1] == '/') n--; /* "/" */
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* What --all does with the live file at live, whose head l names trace (resolved); the
 * exit status (0 for a file left alone or removed). l is closed. */
static int settle_one(struct gd_live *l, const char *live, const char *trace, int keep)
{
    long long pid = (long long)l->h->pid;
    if (gd_live_running(l)) {
        gd_live_close(l);
        printf("%s: process %lld still runs: left alone\n", live, pid);
        return GD_EXIT_OK;
    }
    struct stat st;
    int exists = stat(trace, &st) == 0;
    int never_opened = l->h->out_dev == 0 && l->h->out_ino == 0;
    int same =
        exists && l->h->out_dev == (uint64_t)st.st_dev && l->h->out_ino == (uint64_t)st.st_ino;
    const char *why = l->h->state != GT_LIVE_RUNNING      ? "its process ended cleanly"
                      : same || (never_opened && !exists) ? NULL
                      : exists                            ? "its trace file was replaced by another"
                                                          : "its trace file is gone";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", trace);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    struct stat ds;
    if (!why && !same && (!slash || stat(dir[0] ? dir : "/", &ds) != 0 || !S_ISDIR(ds.st_mode)))
        why = "its trace's directory is gone";
    gd_live_close(l);
    if (!why) return recover(trace, live, keep, stdout);
    if (!keep && unlink(live) != 0) {
        fprintf(stderr, "gotrace: %s: cannot remove it: %s\n", live, strerror(errno));
        return GD_EXIT_IO;
    }
    printf("%s: %s (process %lld, %s): %s\n", live, keep ? "kept" : "removed", pid, trace, why);
    return GD_EXIT_OK;
}

/* --all: every live file in GT_LIVE_DIR (under: only those whose trace lies under it). A file
 * that is not a live file of this version is left alone, said once each when no DIR narrows
 * the look (its trace cannot be told). */
static int recover_all(const char *under, int keep)
{
    char top[4096] = "";
    if (under && !realpath(under, top)) {
        fprintf(stderr, "gotrace: %s: %s\n", under, strerror(errno));
        return GD_EXIT_IO;
    }
    DIR *d = opendir(GT_LIVE_DIR);
    if (!d) {
        fprintf(stderr, "gotrace: %s: %s\n", GT_LIVE_DIR, strerror(errno));
        return GD_EXIT_IO;
    }
    int rc = GD_EXIT_OK, seen = 0;
    char live[512], trace[4096], why[200];
    while (gd_live_next(d, live, sizeof live)) {
        struct gd_live l;
        if (gd_live_open(&l, live, why, sizeof why) != 0) {
            if (!under) printf("%s: left alone: %s\n", live, why);
            continue;
        }
        gd_live_out_path(&l, trace, sizeof trace);
        if (under && !under_dir(trace, top)) {
            gd_live_close(&l);
            continue;
        }
        seen++;
        int r = settle_one(&l, live, trace, keep);
        if (r != GD_EXIT_OK && rc == GD_EXIT_OK) rc = r;
    }
    closedir(d);
    if (!seen)
        printf("no live file%s%s in %s\n", under ? " of a trace under " : "", under ? top : "",
               GT_LIVE_DIR);
    return rc;
}

/* Its own option loop, not gd_cmd_parse: recover takes none of the shared options (its check
 * uses the default memory cap), and its one operand may follow "--". */
int gd_cmd_recover(int argc, char **argv)
{
    int keep = 0, all = 0;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return GD_EXIT_OK;
        } else if (!strcmp(argv[i], "--keep")) {
            keep = 1;
        } else if (!strcmp(argv[i], "--all")) {
            all = 1;
        } else if (!strcmp(argv[i], "--") && i + 1 < argc && !file) {
            file = argv[++i];
        } else if (argv[i][0] == '-' || file) {
            fputs(usage, stderr);
            return GD_EXIT_USAGE;
        } else {
            file = argv[i];
        }
    }
    if (all) return recover_all(file, keep);
    if (!file) {
        fputs(usage, stderr);
        return GD_EXIT_USAGE;
    }
    return gd_recover_file(file, keep, stdout);
}
