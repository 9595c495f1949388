/* reader.c: file header, batches, generations and their string/stack/frame tables.
 * Invariants: see reader.h. Payloads land first in the look-ahead buffer (64 KiB max), and are
 * copied into the generation only when the batch belongs to it; tables index into gen->data,
 * so growing the arena never invalidates them.
 * The memory cap: a generation is only usable whole (its events may name strings and stacks
 * defined anywhere in it), so it must be held in memory, and a damaged or hostile file could
 * announce any amount. gen_mem counts what the generation's tables hold allocated and is
 * checked after every batch, so decoding stops with a message near the cap instead of growing
 * without bound (a table's last doubling may pass the cap before it is seen).
 * Errors follow Go's wording, with the thread and byte offset of the damage added. */
#include "reader.h"

#include "evspec.h"
#include "go_wire.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Header: Go scans "go 1.%d trace\x00\x00\x00" into a uint32 (fmt.Fscanf), which takes an
 * optional '+' and digits. The version saturates instead of overflowing: any value but 22 or
 * 23 is refused anyway (older traces have another format, newer ones unknown events). */
static int read_header(struct gd_reader *r, struct gd_err *err)
{
    const char *bad = "bad file format: not a Go execution trace?";
    static const char pre[] = "go 1.", post[] = " trace\0\0\0";
    for (size_t i = 0; i < sizeof(pre) - 1; i++)
        if (gd_in_byte(&r->in) != pre[i]) goto fail;
    int c = gd_in_byte(&r->in);
    if (c == '+') c = gd_in_byte(&r->in);
    unsigned long v = 0;
    int digits = 0;
    while (c >= '0' && c <= '9') {
        if (v < 1000000) v = v * 10 + (unsigned long)(c - '0');
        digits++;
        c = gd_in_byte(&r->in);
    }
    if (!digits || c != post[0]) goto fail;
    for (size_t i = 1; i < sizeof(post) - 1; i++)
        if (gd_in_byte(&r->in) != post[i]) goto fail;
    if (v != 22 && v != 23) {
        gd_errf(err, 0, 0, 0, NULL, 0,
                "unsupported trace version go 1.%lu (gotrace reads 1.22/1.23)", v);
        return -1;
    }
    return 0;
fail:
    gd_errf(err, 0, 0, 0, NULL, 0, "%s", bad);
    return -1;
}

int gd_reader_fdopen(struct gd_reader *r, int fd, size_t max_gen_mem, struct gd_err *err)
{
    /* Everything before the 64 KiB spill buffer is cleared, the fields after it one by one:
     * the buffer is always written before it is read. */
    memset(r, 0, offsetof(struct gd_reader, spill));
    r->have_spill = 0;
    r->has_pending = 0;
    r->has_go_eof = 0;
    r->fd = fd;
    r->max_gen_mem = max_gen_mem;
    if (gd_in_init(&r->in, fd)) {
        gd_errf(err, 0, 0, 0, NULL, -1, "out of memory");
        return -1;
    }
    return read_header(r, err);
}

int gd_reader_open(struct gd_reader *r, const char *path, size_t max_gen_mem, struct gd_err *err)
{
    int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
    if (fd < 0) {
        memset(&r->in, 0, sizeof(r->in));
        r->fd = -1;
        gd_err_io(err, errno, -1);
        return -1;
    }
    return gd_reader_fdopen(r, fd, max_gen_mem, err);
}

/* fd 0 is "-", the caller's standard input: not ours to close. */
void gd_reader_close(struct gd_reader *r)
{
    gd_in_free(&r->in);
    if (r->fd > 0) close(r->fd);
    r->fd = -1;
}

static const char *uv_err(int rc)
{
    return rc == GD_UV_OVERFLOW ? "varint overflows a 64-bit integer" : "unexpected EOF";
}

/* Reads one batch into r->spill: 1 = read, 0 = clean end, -1 = error. Go's readBatch: a
 * clean end is the end of the file where a batch would start, or (Go returns ReadByte's bare
 * io.EOF there) just after an experimental batch's type byte; an end anywhere later in the
 * header is an error. The size is checked before the payload is read, which keeps it within
 * the spill buffer. Errors point at the batch header, or at the field that could not be read. */
static int read_batch(struct gd_reader *r, struct gd_err *err)
{
    int64_t hoff = r->in.off;
    int b = gd_in_byte(&r->in);
    if (b < 0) return 0;
    if (b != GO_EV_EVENT_BATCH && b != GO_EV_EXPERIMENTAL_BATCH) {
        gd_errf(err, 0, 0, 0, "batch header", hoff, "expected batch event, got %s",
                gd_ev_name((unsigned)b));
        return -1;
    }
    uint8_t exp = 0;
    if (b == GO_EV_EXPERIMENTAL_BATCH) {
        int e = gd_in_byte(&r->in);
        if (e < 0) return 0; /* Go's reader sees io.EOF here and treats it as the end */
        exp = (uint8_t)e;
    }
    uint64_t v[4];
    static const char *what[4] = {"gen", "M ID", "timestamp", "size"};
    for (int i = 0; i < 4; i++) {
        int rc = gd_in_uvarint(&r->in, &v[i]);
        if (rc != GD_UV_OK) {
            gd_errf(err, i > 0 ? v[0] : 0, i > 1, i > 1 ? v[1] : 0, "batch header", r->in.off,
                    "error reading batch %s: %s", what[i], uv_err(rc));
            return -1;
        }
    }
    if (v[3] > GO_MAX_BATCH_PAYLOAD) {
        gd_errf(err, v[0], 1, v[1], "batch header", hoff, "invalid batch size %llu, maximum is %d",
                (unsigned long long)v[3], GO_MAX_BATCH_PAYLOAD);
        return -1;
    }
    r->spill.foff = r->in.off;
    size_t got = gd_in_read(&r->in, r->spill.data, (size_t)v[3]);
    if (got != v[3]) {
        gd_errf(err, v[0], 1, v[1], "batch", r->spill.foff,
                "failed to read full batch: read %zu but wanted %llu (truncated file?)", got,
                (unsigned long long)v[3]);
        return -1;
    }
    r->spill.gen = v[0];
    r->spill.m = v[1];
    r->spill.ts = v[2];
    r->spill.len = (uint32_t)v[3];
    r->spill.exp = exp;
    r->spill.hoff = hoff;
    return 1;
}

/* Bytes the generation holds allocated: capacities, not lengths (see the memory cap above). */
static size_t gen_mem(const struct gd_gen *g)
{
    return g->dcap + g->bcap * sizeof(*g->b) + g->strcap * sizeof(*g->strs) +
           g->stkcap * sizeof(*g->stks) + g->pcscap * 8 + g->frcap * sizeof(*g->frames) +
           g->cpucap * sizeof(*g->cpu) + g->synccap + gd_hm_bytes(&g->strmap) +
           gd_hm_bytes(&g->stkmap) + gd_hm_bytes(&g->pcmap);
}

/* Empties g for the next generation but keeps its allocations: a long trace reuses the same
 * tables instead of freeing and growing them again every generation. */
static void gen_reset(struct gd_gen *g)
{
    g->num = 0;
    g->freq = 0;
    g->has_freq = 0;
    g->dlen = g->nb = g->nstr = g->nstk = g->npcs = g->nfr = g->ncpu = g->nsync = 0;
    g->has_proc = 0;
    g->nprocs = 0;
    gd_hm_clear(&g->strmap);
    gd_hm_clear(&g->stkmap);
    gd_hm_clear(&g->pcmap);
}

void gd_gen_free(struct gd_gen *g)
{
    free(g->data);
    free(g->b);
    free(g->strs);
    free(g->stks);
    free(g->pcs);
    free(g->frames);
    free(g->cpu);
    free(g->sync);
    free(g->procs);
    gd_hm_free(&g->strmap);
    gd_hm_free(&g->stkmap);
    gd_hm_free(&g->pcmap);
    memset(g, 0, sizeof(*g));
}

/* Parsing state for one structural batch. pos starts at 1, past the type byte that made the
 * batch a table (Strings, Stacks, CPUSamples); foff + pos is an entry's file offset. */
struct cur {
    const uint8_t *p;
    size_t pos, len;
    int64_t foff;
};

/* Go's binary.ReadUvarint on the payload: EOF when no byte is left (Go's bare io.EOF), SHORT
 * when the payload ends inside the varint (io.ErrUnexpectedEOF), OVERFLOW past 64 bits. */
static int cur_uv(struct cur *c, uint64_t *v)
{
    if (c->pos >= c->len) return GD_UV_EOF;
    int n = gd_uvarint(c->p + c->pos, c->len - c->pos, v);
    if (n <= 0) return n == 0 ? GD_UV_SHORT : GD_UV_OVERFLOW;
    c->pos += (size_t)n;
    return GD_UV_OK;
}

/* Go's reader turns a bare io.EOF from a table entry into the end of the trace. Its addStrings,
 * addStacks, addCPUSamples and parseFreq return ReadUvarint's io.EOF unwrapped when a batch
 * ends exactly where a value should start; readGeneration passes it up and ReadEvent returns
 * it as is, which every caller takes for the end of the trace: that generation and all after
 * it are dropped, and gotracevalidate calls the file valid. The quirk is reproduced on purpose,
 * so that check's verdict stays Go's; the reason is kept (r->go_eof) so the command can warn.
 * Errors Go wraps (a stack frame's fields) are not a clean end: those stay errors. */
#define GO_EOF 1
#define OOM(g, err, m) (gd_errf(err, (g)->num, 1, m, NULL, -1, "out of memory"), -1)

/* Go's addStrings over the payload already copied to g->data at off (the strings stay there).
 * Ids are unique in the generation, and 0 is taken: it always reads as "" (Go's dataTable). */
static int add_strings(struct gd_gen *g, size_t off, uint32_t len, uint64_t m, int64_t foff,
                       struct gd_err *err)
{
    struct cur c = {g->data + off, 1, len, foff};
    while (c.pos < c.len) {
        int64_t at = c.foff + (int64_t)c.pos;
        uint8_t t = c.p[c.pos++];
        uint64_t id, n;
        int rc;
        if (t != GO_EV_STRING) {
            gd_errf(err, g->num, 1, m, "Strings", at, "expected string event, got %u", t);
            return -1;
        }
        if ((rc = cur_uv(&c, &id)) || (rc = cur_uv(&c, &n))) {
            gd_errf(err, g->num, 1, m, "String", at, "%s", uv_err(rc));
            return rc == GD_UV_EOF ? GO_EOF : -1;
        }
        if (n > GO_MAX_STRING_LEN) {
            gd_errf(err, g->num, 1, m, "String", at, "invalid string size %llu, maximum is %d",
                    (unsigned long long)n, GO_MAX_STRING_LEN);
            return -1;
        }
        if (n > c.len - c.pos) {
            gd_errf(err, g->num, 1, m, "String", at,
                    "failed to read full string: read %zu but wanted %llu", c.len - c.pos,
                    (unsigned long long)n);
            return -1;
        }
        if (id == 0 || gd_hm_get(&g->strmap, id)) {
            gd_errf(err, g->num, 1, m, "String", at, "multiple strings with the same ID: id=%llu",
                    (unsigned long long)id);
            return -1;
        }
        if (gd_grow((void **)&g->strs, &g->strcap, g->nstr + 1, sizeof(*g->strs)) ||
            gd_hm_put(&g->strmap, id, (uint32_t)g->nstr))
            return OOM(g, err, m);
        g->strs[g->nstr++] = (struct gd_str){off + c.pos, (uint32_t)n};
        c.pos += (size_t)n;
    }
    return 0;
}

/* Go's addStacks: a stack is a list of pcs, and each pc's frame is stored once per generation,
 * from the first stack that gives it (later ones giving other func/file/line are ignored, as
 * in Go). The pcs are copied out, so the payload itself is not kept. */
static int add_stacks(struct gd_gen *g, const uint8_t *p, uint32_t len, uint64_t m, int64_t foff,
                      struct gd_err *err)
{
    struct cur c = {p, 1, len, foff};
    while (c.pos < c.len) {
        int64_t at = c.foff + (int64_t)c.pos;
        uint8_t t = c.p[c.pos++];
        uint64_t id, n;
        int rc;
        if (t != GO_EV_STACK) {
            gd_errf(err, g->num, 1, m, "Stacks", at, "expected stack event, got %u", t);
            return -1;
        }
        if ((rc = cur_uv(&c, &id)) || (rc = cur_uv(&c, &n))) {
            gd_errf(err, g->num, 1, m, "Stack", at, "%s", uv_err(rc));
            return rc == GD_UV_EOF ? GO_EOF : -1;
        }
        if (n > GO_MAX_STACK_FRAMES) {
            gd_errf(err, g->num, 1, m, "Stack", at, "invalid stack size %llu, maximum is %d",
                    (unsigned long long)n, GO_MAX_STACK_FRAMES);
            return -1;
        }
        if (gd_grow((void **)&g->pcs, &g->pcscap, g->npcs + n, 8)) return OOM(g, err, m);
        size_t first = g->npcs;
        for (uint64_t i = 0; i < n; i++) {
            struct gd_frame f;
            static const char *what[4] = {"PC", "funcID", "fileID", "line"};
            uint64_t *fv[4] = {&f.pc, &f.func, &f.file, &f.line};
            for (int k = 0; k < 4; k++) {
                if ((rc = cur_uv(&c, fv[k]))) {
                    gd_errf(err, g->num, 1, m, "Stack", at,
                            "reading frame %llu's %s for stack %llu: %s", (unsigned long long)i + 1,
                            what[k], (unsigned long long)id, uv_err(rc));
                    return -1;
                }
            }
            g->pcs[g->npcs++] = f.pc;
            if (!gd_hm_get(&g->pcmap, f.pc)) {
                if (gd_grow((void **)&g->frames, &g->frcap, g->nfr + 1, sizeof(f)) ||
                    gd_hm_put(&g->pcmap, f.pc, (uint32_t)g->nfr))
                    return OOM(g, err, m);
                g->frames[g->nfr++] = f;
            }
        }
        if (id == 0 || gd_hm_get(&g->stkmap, id)) {
            gd_errf(err, g->num, 1, m, "Stack", at, "multiple stacks with the same ID: id=%llu",
                    (unsigned long long)id);
            return -1;
        }
        if (gd_grow((void **)&g->stks, &g->stkcap, g->nstk + 1, sizeof(*g->stks)) ||
            gd_hm_put(&g->stkmap, id, (uint32_t)g->nstk))
            return OOM(g, err, m);
        g->stks[g->nstk++] = (struct gd_stk){first, (uint32_t)n};
    }
    return 0;
}

/* Go's addCPUSamples: time (absolute ticks), thread, proc, goroutine (0 = none), stack. */
static int add_cpu(struct gd_gen *g, const uint8_t *p, uint32_t len, uint64_t m, int64_t foff,
                   struct gd_err *err)
{
    struct cur c = {p, 1, len, foff};
    while (c.pos < c.len) {
        int64_t at = c.foff + (int64_t)c.pos;
        uint8_t t = c.p[c.pos++];
        if (t != GO_EV_CPU_SAMPLE) {
            gd_errf(err, g->num, 1, m, "CPUSamples", at, "expected CPU sample event, got %u", t);
            return -1;
        }
        uint64_t v[5];
        for (int k = 0; k < 5; k++) {
            int rc = cur_uv(&c, &v[k]);
            if (rc) {
                gd_errf(err, g->num, 1, m, "CPUSample", at, "%s", uv_err(rc));
                return rc == GD_UV_EOF ? GO_EOF : -1;
            }
        }
        if (gd_grow((void **)&g->cpu, &g->cpucap, g->ncpu + 1, sizeof(*g->cpu)))
            return OOM(g, err, m);
        g->cpu[g->ncpu++] = (struct gd_cpu){(int64_t)v[0], v[1], v[2], v[3] ? v[3] : GD_NONE, v[4]};
    }
    return 0;
}

/* gotrace's process batch: pid, ppid, name, then the process group if the tracer wrote it
 * (go_wire.h). Kept only when whole and well formed (the group only when whole too: 0 if not);
 * anything else is ignored like any experimental data Go does not know. Always 0. */
static int proc_batch(struct gd_gen *g, const uint8_t *p, uint32_t len)
{
    uint64_t v[3];
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        int n = gd_uvarint(p + at, len - at, &v[i]);
        if (n <= 0) return 0;
        at += (size_t)n;
    }
    if (v[2] > GT_PROC_NAME_MAX || v[2] > len - at) return 0;
    g->pid = v[0];
    g->ppid = v[1];
    memcpy(g->pname, p + at, v[2]);
    g->pname[v[2]] = 0;
    g->has_proc = 1;
    at += (size_t)v[2];
    g->pgid = 0;
    if (at < len && gd_uvarint(p + at, len - at, &v[0]) > 0) g->pgid = v[0];
    return 0;
}

/* Appends the batch held in r->spill to g: 0, -1 on error, GO_EOF when Go's reader would stop
 * here as if the file had ended (err describes why). Go's processBatch: a batch is a table
 * (strings, stacks, CPU samples, the frequency) when its first payload byte says so and it is
 * not experimental; any other is an event batch of its thread, kept in file order. Empty
 * payloads are event batches with no events. */
static int process_batch(struct gd_reader *r, struct gd_gen *g, struct gd_err *err)
{
    const uint8_t *p = r->spill.data;
    uint32_t len = r->spill.len;
    uint64_t m = r->spill.m;
    int64_t foff = r->spill.foff;
    if (r->spill.exp == GT_EXP_SYNC) { /* gotrace's holders and releases (holders.c) */
        if (len == 0) return 0;        /* an empty batch: nothing to keep (g->sync may be NULL) */
        if (gd_grow((void **)&g->sync, &g->synccap, g->nsync + len, 1)) return OOM(g, err, m);
        memcpy(g->sync + g->nsync, p, len);
        g->nsync += len;
        return 0;
    }
    if (r->spill.exp == GT_EXP_PROC) return proc_batch(g, p, len);
    if (r->spill.exp == GT_EXP_PROCS) { /* a merged trace's goroutines' processes */
        if (gd_grow((void **)&g->procs, &g->procscap, g->nprocs + len, 1)) return OOM(g, err, m);
        memcpy(g->procs + g->nprocs, p, len);
        g->nprocs += len;
        return 0;
    }
    if (r->spill.exp)
        return 0; /* experimental data: kept by Go for experimental events only; unused here */
    if (len > 0 && p[0] == GO_EV_STACKS) return add_stacks(g, p, len, m, foff, err);
    if (len > 0 && p[0] == GO_EV_CPU_SAMPLES) return add_cpu(g, p, len, m, foff, err);
    if (len > 0 && p[0] == GO_EV_FREQUENCY) {
        uint64_t f;
        int n = gd_uvarint(p + 1, len - 1, &f);
        if (n <= 0) {
            gd_errf(err, g->num, 1, m, "Frequency", foff, "%s", uv_err(n ? GD_UV_OVERFLOW : 1));
            return len == 1 ? GO_EOF : -1;
        }
        if (g->has_freq) {
            gd_errf(err, g->num, 1, m, "Frequency", foff, "found multiple frequency events");
            return -1;
        }
        g->has_freq = 1;
        g->freq = f;
        g->ns_per_tick = 1.0 / ((double)f / 1e9); /* Go's expression: same rounding */
        return 0;
    }
    /* Event and strings payloads stay in g->data (the tables point into it); stacks, samples
     * and the frequency were parsed into their tables above. */
    if (gd_grow((void **)&g->data, &g->dcap, g->dlen + len + 1, 1)) return OOM(g, err, m);
    size_t off = g->dlen;
    memcpy(g->data + off, p, len);
    g->dlen += len;
    if (len > 0 && p[0] == GO_EV_STRINGS) return add_strings(g, off, len, m, foff, err);
    if (gd_grow((void **)&g->b, &g->bcap, g->nb + 1, sizeof(*g->b))) return OOM(g, err, m);
    g->b[g->nb++] = (struct gd_batch){m, r->spill.ts, off, len, foff};
    return 0;
}

static int cmp_cpu(const void *a, const void *b)
{
    int64_t x = ((const struct gd_cpu *)a)->time, y = ((const struct gd_cpu *)b)->time;
    return (x > y) - (x < y);
}

/* The checks Go makes once a generation is complete (readGeneration): it has a frequency, and
 * every frame's func and file strings exist (batches come in any order, so only now can a
 * missing one be told). CPU sample times become ns now that the frequency is known, and the
 * samples are sorted by time for decode.c's merge (neither qsort nor Go's sort promises
 * stability, so equal times may come out in another order than Go's). */
static int finish_gen(struct gd_gen *g, struct gd_err *err)
{
    if (!g->has_freq) {
        gd_errf(err, g->num, 0, 0, NULL, g->foff, "no frequency event found");
        return -1;
    }
    for (size_t s = 0; s < g->nstk; s++) {
        for (uint32_t i = 0; i < g->stks[s].n; i++) {
            const struct gd_frame *f = gd_gen_frame(g, g->pcs[g->stks[s].first + i]);
            const char *bad = !gd_gen_str(g, f->func, NULL)   ? "func"
                              : !gd_gen_str(g, f->file, NULL) ? "file"
                                                              : NULL;
            if (bad) {
                uint64_t id = 0;
                for (size_t k = 0; k < g->stkmap.cap; k++)
                    if (g->stkmap.ents[k].used && g->stkmap.ents[k].val == s)
                        id = g->stkmap.ents[k].key;
                gd_errf(err, g->num, 0, 0, "Stack", -1,
                        "found invalid %s string ID %llu for stack %llu", bad,
                        (unsigned long long)(*bad == 'f' && bad[1] == 'u' ? f->func : f->file),
                        (unsigned long long)id);
                return -1;
            }
        }
    }
    for (size_t i = 0; i < g->ncpu; i++)
        g->cpu[i].time = gd_ticks_to_ns(g, (uint64_t)g->cpu[i].time);
    if (g->ncpu) qsort(g->cpu, g->ncpu, sizeof(*g->cpu), cmp_cpu);
    return 0;
}

/* Go's readGeneration plus the end-of-trace logic of its ReadEvent. The spilled batch opens
 * the generation; then batches are read until one of the next generation (kept as the new
 * spill) or the end of the file. A batch that cannot be read once the generation has begun
 * ends it: Go takes the damage for the next generation's first batch, returns what was read,
 * and reports the error on the next call (pending). A batch of any other generation is an
 * error at once: with generations mixed, this one could not be parsed correctly, so Go fails
 * fast rather than with a cryptic error later. */
int gd_reader_next(struct gd_reader *r, struct gd_gen *g, struct gd_err *err)
{
    if (r->has_pending) {
        *err = r->pending;
        r->has_pending = 0;
        r->ended = 1;
        return -1;
    }
    if (r->ended || (r->started && !r->have_spill)) return 0; /* no batch past the last one */
    r->started = 1;
    gen_reset(g);
    if (r->have_spill) {
        g->num = r->spill.gen;
        g->foff = r->spill.hoff;
        r->have_spill = 0;
        int rc = process_batch(r, g, err);
        if (rc == GO_EOF) goto go_eof;
        if (rc) goto fail;
    }
    for (;;) {
        int rc = read_batch(r, err);
        if (rc == 0) break;
        if (rc < 0) {
            if (g->num != 0) { /* the generation has begun: return it, the error next time */
                r->pending = *err;
                r->has_pending = 1;
                break;
            }
            goto fail;
        }
        uint64_t gen = r->spill.gen;
        if (gen == 0) {
            gd_errf(err, 0, 1, r->spill.m, "batch header", r->spill.hoff,
                    "invalid generation number 0");
            goto fail;
        }
        if (g->num == 0) {
            g->num = gen;
            g->foff = r->spill.hoff;
        }
        if (gen == g->num + 1) { /* the next generation's first batch: this one is complete */
            r->have_spill = 1;
            break;
        }
        if (gen != g->num) {
            gd_errf(err, g->num, 1, r->spill.m, "batch header", r->spill.hoff,
                    "generations out of order (batch of generation %llu)", (unsigned long long)gen);
            goto fail;
        }
        int prc = process_batch(r, g, err);
        if (prc == GO_EOF) goto go_eof;
        if (prc) goto fail;
        if (gen_mem(g) > r->max_gen_mem) {
            gd_errf(err, g->num, 0, 0, NULL, r->spill.hoff,
                    "generation needs more than %zu bytes of memory (raise --max-gen-mem)",
                    r->max_gen_mem);
            goto fail;
        }
    }
    if (g->num == 0 && !r->has_pending) {
        /* Header only: Go reports the missing frequency of the empty generation. */
        gd_errf(err, 0, 0, 0, NULL, r->in.off, "no frequency event found");
        goto fail;
    }
    if (finish_gen(g, err)) goto fail;
    return 1;
fail:
    r->ended = 1;
    r->has_pending = 0;
    return -1;
go_eof:
    r->go_eof = *err;
    r->has_go_eof = 1;
    r->ended = 1;
    r->has_pending = 0;
    return 0;
}

/* Id 0 is "" in every generation, defined or not (Go's dataTable.get). */
const char *gd_gen_str(const struct gd_gen *g, uint64_t id, uint32_t *len)
{
    if (id == 0) {
        if (len) *len = 0;
        return "";
    }
    uint32_t *i = gd_hm_get(&g->strmap, id);
    if (!i) return NULL;
    if (len) *len = g->strs[*i].len;
    return (const char *)g->data + g->strs[*i].off;
}

int gd_gen_stack(const struct gd_gen *g, uint64_t id, const uint64_t **pcs, uint32_t *n)
{
    if (id == 0) {
        *pcs = NULL;
        *n = 0;
        return 1;
    }
    uint32_t *i = gd_hm_get(&g->stkmap, id);
    if (!i) return 0;
    *pcs = g->pcs + g->stks[*i].first;
    *n = g->stks[*i].n;
    return 1;
}

const struct gd_frame *gd_gen_frame(const struct gd_gen *g, uint64_t pc)
{
    uint32_t *i = gd_hm_get(&g->pcmap, pc);
    return i ? &g->frames[*i] : NULL;
}

/* Go's frequency.mul: Time(float64(ticks) * nsPerTick). Converting a NaN or out-of-range
 * double to int64 is undefined in C; on amd64 Go's conversion gives INT64_MIN
 * (0x8000000000000000, CVTTSD2SI's "indefinite" value), which is what this returns. */
int64_t gd_ticks_to_ns(const struct gd_gen *g, uint64_t ticks)
{
    double d = g->ns_per_tick * (double)ticks;
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)d;
}

const char *gd_str(const struct gd_gen *g, uint64_t id, uint32_t *len)
{
    const char *s = gd_gen_str(g, id, len);
    if (!s) {
        *len = 0;
        return "";
    }
    return s;
}
