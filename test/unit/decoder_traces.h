/* decoder_traces.h: Go 1.23 traces built in memory for the decoder's unit tests, and the decoder
 * run on them (the reader, the ordering engine, the validator, the analyses, the commands).
 *
 * A trace is described in a small text form, one item per line ('#' starts a comment line):
 *
 *   gen N                 the next lines belong to generation N (the first line may omit it: 1)
 *   freq F | nofreq       this generation's Frequency batch (default: one, F = 1e9, a tick = 1 ns)
 *   str ID text           a string (the rest of the line)
 *   stack ID pc func file line [pc func file line ...]   a stack; func and file are string ids
 *   cpu T M P G STACK     a CPU sample at tick T
 *   M ID: EV; EV; ...     one event batch of thread ID ("M -:" = the M-less stream)
 *   raw XX XX ...         bytes (hex), placed like an event batch
 *
 * EV is "[@T] Name arg...": the event named so in gd_specs (or a raw type number) with its
 * arguments in order (missing ones are 0). An argument is a number, "-" (2^64-1, none) or a
 * status name (Runnable Running Syscall Waiting; for ProcStatus Running Idle Syscall Abandoned).
 * Events are 1 tick apart in the order written, across batches, unless @T sets the tick.
 * In the file, each generation is Frequency, Strings, Stacks, CPUSamples, then its event batches
 * and raw bytes as written; generations in the order written.
 *
 * Table tests: struct dt_case rows (trace in, "ok" or an error message substring out), one
 * Criterion test per row (DT_TABLE_TEST). GOTRACE_UNIT_TRACES=DIR also writes every row's trace
 * to DIR/<row>.{ok,fail}.trace, to compare the verdicts with gotracevalidate.
 * Invariants: a malformed description fails the test (cr_assert), it never builds a different
 * trace; every helper frees what it allocates. */
#ifndef GOTRACE_TEST_DECODER_TRACES_H
#define GOTRACE_TEST_DECODER_TRACES_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "analysis.h"
#include "decode.h"
#include "evspec.h"
#include "go_wire.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A growing byte buffer. */
struct dt_buf {
    uint8_t *b;
    size_t n, cap;
};

static inline void dt_put(struct dt_buf *t, const void *p, size_t n)
{
    if (t->n + n > t->cap) {
        t->cap = (t->n + n) * 2 + 64;
        t->b = realloc(t->b, t->cap);
        cr_assert(t->b != NULL);
    }
    if (n) memcpy(t->b + t->n, p, n);
    t->n += n;
}

static inline void dt_u8(struct dt_buf *t, uint8_t v)
{
    dt_put(t, &v, 1);
}

/* Appends v as a (minimal) uvarint. */
static inline void dt_uv(struct dt_buf *t, uint64_t v)
{
    do {
        dt_u8(t, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
        v >>= 7;
    } while (v);
}

static inline void dt_free(struct dt_buf *t)
{
    free(t->b);
    *t = (struct dt_buf){0};
}

static inline void dt_header(struct dt_buf *t)
{
    dt_put(t, GO_TRACE_HEADER, GO_TRACE_HEADER_LEN);
}

/* A "raw" line of dt_build's text form (malloc'd): gotrace's sync batch (GT_EXP_SYNC) of
 * generation 1 holding the records in p, which is freed. */
static inline char *dt_sync_line(struct dt_buf *p)
{
    struct dt_buf b = {0};
    dt_put(&b, (uint8_t[]){GO_EV_EXPERIMENTAL_BATCH, GT_EXP_SYNC}, 2);
    dt_uv(&b, 1);
    dt_uv(&b, GO_NO_THREAD);
    dt_uv(&b, 0);
    dt_uv(&b, p->n);
    dt_put(&b, p->b, p->n);
    char *line = malloc(8 + 3 * b.n);
    size_t len = (size_t)sprintf(line, "raw");
    for (size_t i = 0; i < b.n; i++)
        len += (size_t)sprintf(line + len, " %02x", b.b[i]);
    dt_free(p);
    dt_free(&b);
    return line;
}

/* An EventBatch header for gen, thread m, time ts, then the payload p. */
static inline void dt_batch(struct dt_buf *t, uint64_t gen, uint64_t m, uint64_t ts, const void *p,
                            size_t n)
{
    dt_u8(t, GO_EV_EVENT_BATCH);
    dt_uv(t, gen);
    dt_uv(t, m);
    dt_uv(t, ts);
    dt_uv(t, n);
    dt_put(t, p, n);
}

/* One generation being described. */
struct dt_gen {
    uint64_t num;
    int nofreq;
    uint64_t freq;
    struct dt_buf strs, stks, cpu, batches;
};

static inline void dt_gen_flush(struct dt_buf *out, struct dt_gen *g)
{
    if (!g->nofreq) {
        uint8_t p[12] = {GO_EV_FREQUENCY};
        struct dt_buf f = {0};
        dt_uv(&f, g->freq);
        memcpy(p + 1, f.b, f.n);
        dt_batch(out, g->num, GD_NONE, 0, p, 1 + f.n);
        dt_free(&f);
    }
    struct dt_buf *tables[3] = {&g->strs, &g->stks, &g->cpu};
    for (int i = 0; i < 3; i++)
        if (tables[i]->n) dt_batch(out, g->num, GD_NONE, 0, tables[i]->b, tables[i]->n);
    dt_put(out, g->batches.b, g->batches.n);
    for (int i = 0; i < 3; i++)
        dt_free(tables[i]);
    dt_free(&g->batches);
}

/* Next whitespace-separated token of *s, or NULL. */
static inline char *dt_tok(char **s)
{
    char *p = *s;
    while (*p && isspace((unsigned char)*p))
        p++;
    if (!*p) return NULL;
    char *t = p;
    while (*p && !isspace((unsigned char)*p))
        p++;
    if (*p) *p++ = 0;
    *s = p;
    return t;
}

static inline uint64_t dt_num(const char *tok, unsigned typ)
{
    static const char *gs[] = {"Runnable", "Running", "Syscall", "Waiting"};
    static const char *ps[] = {"Running", "Idle", "Syscall", "Abandoned"};
    if (!strcmp(tok, "-")) return GD_NONE;
    for (uint64_t i = 0; i < 4; i++)
        if (!strcmp(tok, typ == GO_EV_PROC_STATUS ? ps[i] : gs[i])) return i + 1;
    char *end;
    uint64_t v = strtoull(tok, &end, 0);
    cr_assert(end != tok && !*end, "trace description: bad number \"%s\"", tok);
    return v;
}

/* Appends the event described by s (see the top) to batch p; *now is the running tick. */
static inline void dt_event(struct dt_buf *p, char *s, uint64_t *now, uint64_t *last, int first)
{
    char *tok = dt_tok(&s);
    cr_assert(tok != NULL, "trace description: empty event");
    uint64_t t = *now + 1;
    if (tok[0] == '@') {
        t = dt_num(tok + 1, 0);
        tok = dt_tok(&s);
        cr_assert(tok != NULL, "trace description: no event after a time");
    }
    unsigned typ = GD_NSPECS;
    if (isdigit((unsigned char)tok[0])) {
        typ = (unsigned)dt_num(tok, 0);
    } else {
        for (unsigned i = 0; i < GD_NSPECS; i++)
            if (gd_specs[i].name && !strcmp(gd_specs[i].name, tok)) typ = i;
    }
    cr_assert(typ < 256, "trace description: unknown event \"%s\"", tok);
    cr_assert(first || t >= *last, "trace description: time goes back in a batch at %s", tok);
    dt_u8(p, (uint8_t)typ);
    dt_uv(p, first ? 0 : t - *last);
    unsigned nargs = 0, max = typ < GD_NSPECS && gd_specs[typ].name ? gd_specs[typ].nargs : 16;
    while ((tok = dt_tok(&s))) {
        cr_assert(nargs < max, "trace description: too many arguments for %s", gd_ev_name(typ));
        dt_uv(p, dt_num(tok, typ));
        nargs++;
    }
    for (; typ < GD_NSPECS && nargs < gd_specs[typ].nargs; nargs++)
        dt_uv(p, 0);
    *now = *last = t;
}

/* "M ID: EV; EV; ..." */
static inline void dt_events(struct dt_gen *g, char *s, uint64_t *now)
{
    char *colon = strchr(s, ':');
    cr_assert(colon != NULL, "trace description: no ':' after M");
    *colon = 0;
    char *idp = s + 1, *id = dt_tok(&idp);
    cr_assert(id != NULL, "trace description: no thread id");
    uint64_t m = dt_num(id, 0), last = 0, ts = 0;
    struct dt_buf p = {0};
    char *save = NULL;
    int first = 1;
    for (char *ev = strtok_r(colon + 1, ";", &save); ev; ev = strtok_r(NULL, ";", &save)) {
        dt_event(&p, ev, now, &last, first);
        if (first) ts = last;
        first = 0;
    }
    dt_batch(&g->batches, g->num, m, ts, p.b, p.n);
    dt_free(&p);
}

/* Appends the trace described by text (see the top), header included, to out. */
static inline void dt_build(struct dt_buf *out, const char *text)
{
    dt_header(out);
    char *copy = strdup(text), *save = NULL;
    cr_assert(copy != NULL);
    struct dt_gen g = {.num = 1, .freq = 1000000000};
    uint64_t now = 0;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == 'M') {
            dt_events(&g, s, &now);
            continue;
        }
        char *kw = dt_tok(&s);
        if (!kw || kw[0] == '#') continue;
        if (!strcmp(kw, "gen")) {
            if (g.batches.n || g.strs.n || g.stks.n || g.cpu.n || g.nofreq || g.freq != 1000000000)
                dt_gen_flush(out, &g);
            g = (struct dt_gen){.num = dt_num(dt_tok(&s), 0), .freq = 1000000000};
        } else if (!strcmp(kw, "freq")) {
            g.freq = dt_num(dt_tok(&s), 0);
        } else if (!strcmp(kw, "nofreq")) {
            g.nofreq = 1;
        } else if (!strcmp(kw, "str")) {
            if (!g.strs.n) dt_u8(&g.strs, GO_EV_STRINGS);
            uint64_t id = dt_num(dt_tok(&s), 0);
            while (*s == ' ')
                s++;
            dt_u8(&g.strs, GO_EV_STRING);
            dt_uv(&g.strs, id);
            dt_uv(&g.strs, strlen(s));
            dt_put(&g.strs, s, strlen(s));
        } else if (!strcmp(kw, "stack")) {
            if (!g.stks.n) dt_u8(&g.stks, GO_EV_STACKS);
            uint64_t v[1 + 4 * 129];
            size_t n = 0;
            for (char *t; (t = dt_tok(&s));) {
                cr_assert(n < sizeof(v) / sizeof(v[0]), "trace description: stack too deep");
                v[n++] = dt_num(t, 0);
            }
            cr_assert(n >= 1 && (n - 1) % 4 == 0, "trace description: stack needs 4 per frame");
            dt_u8(&g.stks, GO_EV_STACK);
            dt_uv(&g.stks, v[0]);
            dt_uv(&g.stks, (n - 1) / 4);
            for (size_t i = 1; i < n; i++)
                dt_uv(&g.stks, v[i]);
        } else if (!strcmp(kw, "raw")) {
            for (char *t; (t = dt_tok(&s));) {
                char *end;
                unsigned long v = strtoul(t, &end, 16);
                cr_assert(end != t && !*end && v < 256, "trace description: bad byte \"%s\"", t);
                dt_u8(&g.batches, (uint8_t)v);
            }
        } else if (!strcmp(kw, "cpu")) {
            if (!g.cpu.n) dt_u8(&g.cpu, GO_EV_CPU_SAMPLES);
            dt_u8(&g.cpu, GO_EV_CPU_SAMPLE);
            for (int i = 0; i < 5; i++) {
                char *t = dt_tok(&s);
                cr_assert(t != NULL, "trace description: cpu needs T M P G STACK");
                dt_uv(&g.cpu, dt_num(t, 0));
            }
        } else {
            cr_assert_fail("trace description: unknown line \"%s\"", line);
        }
    }
    dt_gen_flush(out, &g);
    free(copy);
}

/* The bytes b[0..n) in an anonymous file, at offset 0. */
static inline int dt_memfd(const void *b, size_t n)
{
    int fd = memfd_create("dt", 0);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, b, n), (ssize_t)n);
    cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
    return fd;
}

/* What the decoder made of a trace: ok, or the error; events produced (Sync included). */
struct dt_verdict {
    int ok;
    uint64_t events;
    struct gd_err err;
};

static inline struct dt_verdict dt_run_bytes(const void *b, size_t n)
{
    struct dt_verdict v = {0};
    struct gd_dec d;
    int rc = -1;
    if (gd_dec_fdopen(&d, dt_memfd(b, n), 1 << 20) == 0) {
        struct gd_tev e;
        while ((rc = gd_dec_next(&d, &e)) > 0)
            v.events++;
    }
    v.ok = rc == 0;
    v.err = d.err;
    gd_dec_close(&d);
    return v;
}

static inline struct dt_verdict dt_run(const char *text)
{
    struct dt_buf t = {0};
    dt_build(&t, text);
    struct dt_verdict v = dt_run_bytes(t.b, t.n);
    dt_free(&t);
    return v;
}

/* Every event of the trace, in order, into ev[0..max); returns the count (asserts it is valid). */
static inline size_t dt_events_of(const char *text, struct gd_tev *ev, size_t max)
{
    struct dt_buf t = {0};
    dt_build(&t, text);
    struct gd_dec d;
    cr_assert_eq(gd_dec_fdopen(&d, dt_memfd(t.b, t.n), 1 << 20), 0, "%s", d.err.msg);
    size_t n = 0;
    int rc;
    struct gd_tev e;
    while ((rc = gd_dec_next(&d, &e)) > 0) {
        cr_assert(n < max, "more than %zu events", max);
        ev[n++] = e;
    }
    cr_assert_eq(rc, 0, "%s", d.err.msg);
    gd_dec_close(&d);
    dt_free(&t);
    return n;
}

/* Analyses the whole trace into a (gd_ana_run; the caller frees a); returns gd_ana_run's code. */
static inline int dt_analyse(const char *text, struct gd_ana *a, const struct gd_ana_cb *cb,
                             void *user)
{
    struct dt_buf t = {0};
    dt_build(&t, text);
    struct gd_dec d;
    cr_assert_eq(gd_dec_fdopen(&d, dt_memfd(t.b, t.n), 1 << 20), 0, "%s", d.err.msg);
    gd_ana_init(a, cb, user);
    int rc = gd_ana_run(a, &d, "t");
    gd_dec_close(&d);
    dt_free(&t);
    return rc;
}

/* Runs a command entry point (gd_cmd_summary, ...) as `gotrace NAME ARGS... t.trace` with the
 * trace written to t.trace in a fresh directory (made the current one); returns its exit
 * status, *out its standard output (malloc'd, NUL-terminated). args ends with NULL. */
static inline int dt_command(int (*cmd)(int, char **), const char *text, const char *const *args,
                             char **out)
{
    char dir[] = "/tmp/gotrace-unit.XXXXXX";
    cr_assert(mkdtemp(dir) != NULL);
    cr_assert_eq(chdir(dir), 0);
    struct dt_buf t = {0};
    dt_build(&t, text);
    FILE *f = fopen("t.trace", "wb");
    cr_assert(f != NULL);
    cr_assert_eq(fwrite(t.b, 1, t.n, f), t.n);
    fclose(f);
    dt_free(&t);
    char *argv[16] = {"cmd"};
    int argc = 1;
    for (; args && args[argc - 1]; argc++)
        argv[argc] = (char *)args[argc - 1];
    argv[argc++] = "t.trace";
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), mfd = memfd_create("out", 0);
    cr_assert(saved >= 0 && mfd >= 0);
    dup2(mfd, STDOUT_FILENO);
    int rc = cmd(argc, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    off_t len = lseek(mfd, 0, SEEK_END);
    *out = malloc((size_t)len + 1);
    cr_assert(*out != NULL);
    cr_assert_eq(pread(mfd, *out, (size_t)len, 0), (ssize_t)len);
    (*out)[len] = 0;
    close(mfd);
    unlink("t.trace");
    cr_assert_eq(chdir("/"), 0);
    rmdir(dir);
    return rc;
}

/* One table row: a trace, and NULL when it is valid or a substring of the expected error. */
struct dt_case {
    const char *name;
    const char *trace;
    const char *want;
};

static inline void dt_dump_case(const struct dt_case *c)
{
    const char *dir = getenv("GOTRACE_UNIT_TRACES");
    if (!dir) return;
    char path[512];
    int n = snprintf(path, sizeof(path), "%s/", dir);
    for (const char *p = c->name; *p && n < 400; p++)
        path[n++] = isalnum((unsigned char)*p) ? *p : '_';
    snprintf(path + n, sizeof(path) - (size_t)n, ".%s.trace", c->want ? "fail" : "ok");
    struct dt_buf t = {0};
    dt_build(&t, c->trace);
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL, "%s", path);
    fwrite(t.b, 1, t.n, f);
    fclose(f);
    dt_free(&t);
}

static inline void dt_check(const struct dt_case *c)
{
    dt_dump_case(c);
    struct dt_verdict v = dt_run(c->trace);
    if (!c->want) {
        cr_assert(v.ok, "%s: expected a valid trace, got: %s", c->name, v.err.msg);
    } else {
        cr_assert(!v.ok, "%s: expected \"%s\", but the trace is valid", c->name, c->want);
        cr_assert(strstr(v.err.msg, c->want), "%s: expected \"%s\", got \"%s\"", c->name, c->want,
                  v.err.msg);
    }
}

#define DT_NROWS(rows) (sizeof(rows) / sizeof(rows[0]))
/* One Criterion test per row of the dt_case array rows. */
#define DT_TABLE_TEST(suite, name, rows)                                                           \
    ParameterizedTestParameters(suite, name)                                                       \
    {                                                                                              \
        static int ix[DT_NROWS(rows)];                                                             \
        for (size_t i = 0; i < DT_NROWS(rows); i++)                                                \
            ix[i] = (int)i;                                                                        \
        return cr_make_param_array(int, ix, DT_NROWS(rows));                                       \
    }                                                                                              \
    ParameterizedTest(int *row, suite, name)                                                       \
    {                                                                                              \
        dt_check(&rows[*row]);                                                                     \
    }

#endif
