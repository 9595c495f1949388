/* cmd_merge.c: `gotrace merge -o OUT FILE...|DIR` — the traces of several processes (files
 * written with GOTRACE_OUT=x.%p.trace, forked children's NAME.trace.PID, exec'd images'
 * NAME-execN.trace, or the folder `gotrace record` keeps) as one trace (merge.h,
 * docs/processes.md).
 * Invariants: a folder stands for the trace files directly in it (files that start with the
 * trace header), in name order; OUT is written whole or not at all (sink.h) and is never one of
 * the inputs; threads are named with their process only when there is more than one input. */
#include "cli.h"
#include "cmds.h"
#include "merge.h"
#include "sink.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: gotrace merge [--window MS] -o OUT FILE... | DIR\n"
    "\n"
    "Merges the traces of several processes of one machine (files written with\n"
    "GOTRACE_OUT=x.%p.trace, or the folder `gotrace record` keeps) into ONE trace: every\n"
    "process's threads on one timeline, each named with its process (\"sort[8541] main\"),\n"
    "as are its own locks (\"mutex ledger_lock in locks[1234]\"); gotrace's lock records\n"
    "(holders, lock order, holds) are carried. OUT is written only when whole.\n"
    "--window: the longest generation of OUT, in ms (default 1000).\n";

/* The list of input paths. */
struct paths {
    char **v;
    size_t n, cap;
};

static int add_path(struct paths *p, const char *dir, const char *name)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        char **v = realloc(p->v, cap * sizeof(*v));
        if (!v) return -1;
        p->v = v;
        p->cap = cap;
    }
    size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    if (!(p->v[p->n] = malloc(len))) return -1;
    snprintf(p->v[p->n++], len, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
    return 0;
}

/* Whether path starts like a Go trace ("go 1.", as the reader checks first). */
static int looks_like_trace(const char *path)
{
    char h[5];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    return n == sizeof h && !memcmp(h, "go 1.", 5);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the trace files of folder dir, in name order; 0, or GD_EXIT_IO after a message. */
static int add_dir(struct paths *p, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "gotrace: merge: %s: %s\n", dir, strerror(errno));
        return GD_EXIT_IO;
    }
    size_t first = p->n;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (add_path(p, dir, e->d_name)) rc = GD_EXIT_IO;
        struct stat st;
        if (!rc && (stat(p->v[p->n - 1], &st) || !S_ISREG(st.st_mode) ||
                    !looks_like_trace(p->v[p->n - 1])))
            free(p->v[--p->n]); /* not a trace: skipped */
    }
    closedir(d);
    if (rc) fprintf(stderr, "gotrace: merge: out of memory\n");
    qsort(p->v + first, p->n - first, sizeof(*p->v), by_name);
    return rc;
}

static void free_paths(struct paths *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
}

/* merge.h's writer on the sink's buffer (batches are far smaller than it). */
static int write_out(void *ctx, const void *p, size_t n)
{
    struct gd_out *o = ctx;
    gd_out_n(o, p, n);
    return o->err ? -1 : 0;
}

struct job {
    struct paths *p;
    int64_t window;
    int status;
};

static int fill(struct gd_out *o, void *ctx)
{
    struct job *j = ctx;
    struct gd_merge_out w = {write_out, o};
    struct gd_err err;
    size_t bad;
    if (!gd_merge((const char *const *)j->p->v, j->p->n, j->p->n > 1, j->window, &w, &err, &bad))
        return 0;
    if (bad < j->p->n) {
        gd_err_print(&err, j->p->v[bad], stderr);
        j->status = err.io ? GD_EXIT_IO : GD_EXIT_BAD_TRACE;
    } else {
        j->status = GD_EXIT_IO; /* the sink reports the failed write */
    }
    return j->status;
}

/* Merges the inputs (files or folders) into out; the exit status. *nproc: how many traces. */
static int merge_inputs(char *const *in, int n, const char *out, int64_t window, size_t *nproc)
{
    struct paths p = {0};
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        struct stat st;
        if (!stat(in[i], &st) && S_ISDIR(st.st_mode))
            rc = add_dir(&p, in[i]);
        else if (add_path(&p, NULL, in[i]))
            rc = GD_EXIT_IO;
    }
    if (!rc && !p.n) {
        fprintf(stderr, "gotrace: merge: no trace files in %s\n", in[0]);
        rc = GD_EXIT_USAGE;
    }
    if (!rc) {
        struct job j = {&p, window, 0};
        rc = gd_sink_write(out, p.v[0], fill, &j);
        if (j.status) rc = j.status;
    }
    *nproc = p.n;
    free_paths(&p);
    return rc;
}

int gd_merge_into(const char *dir, const char *out, size_t *nproc)
{
    char *in[] = {(char *)dir};
    return merge_inputs(in, 1, out, 0, nproc);
}

int gd_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    long window_ms = 0;
    char *end;
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return GD_EXIT_OK;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
            window_ms = strtol(argv[++i], &end, 10);
            if (*end || window_ms < 1 || window_ms > 3600000) i = argc, out = NULL;
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            i = argc; /* unknown option */
            out = NULL;
        } else {
            break;
        }
    }
    if (!out || i >= argc) {
        fputs(usage, stderr);
        return GD_EXIT_USAGE;
    }
    size_t n;
    int rc = merge_inputs(argv + i, argc - i, out, (int64_t)window_ms * 1000000, &n);
    if (!rc) fprintf(stderr, "gotrace: merge: %zu traces merged into %s\n", n, out);
    return rc;
}
