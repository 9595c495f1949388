/* cli.c: what the commands share (cli.h): their option parser, opening a trace (with the hint to
 * recover a trace whose process died: live.h), the run of a command on the holders analysis
 * through a sink (sink.h), the one printer of stack texts (trace/stacktext.h), and the words
 * `hangs` and the report's Hangs section share (what a thread does, who holds what it waits on).
 * Invariants: options are parsed the same way by every command (a flag not in a command's
 * allowed list is a usage error, exit 2, with the usage on stderr; --help prints it on stdout,
 * exit 0); numbers out of range are usage errors, never clamped; a command's output goes
 * through a sink, so it appears whole or not at all (sink.h). */
#include "cli.h"

#include "live.h"
#include "sink.h"
#include "hangs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A size of at least one byte, with an optional K/M/G suffix; -1 when bad or too large. */
static int parse_size(const char *s, size_t *v)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (end == s || *s == '-' || errno) return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end || n == 0 || n > (SIZE_MAX >> shift)) return -1;
    *v = (size_t)(n << shift);
    return 0;
}

/* A count from 1 to LONG_MAX; -1 when bad. */
static int parse_count(const char *s, long *v)
{
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (end == s || *end || errno || n <= 0) return -1;
    *v = n;
    return 0;
}

static int allowed_has(const char *allowed, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = allowed; (p = strstr(p, name)); p += n)
        if ((p == allowed || p[-1] == ',') && (p[n] == ',' || !p[n])) return 1;
    return 0;
}

int gd_cmd_parse(int argc, char **argv, const char *allowed, const char *usage,
                 struct gd_cmd_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->max_gen_mem = GD_DEFAULT_MAX_GEN_MEM;
    o->top = 20;
    o->from = o->to = o->at = -1;
    const char *env = getenv("GOTRACE_MAX_GEN_MEM");
    if (env && parse_size(env, &o->max_gen_mem)) goto bad;
    int opts = 1; /* options end at "--" */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (!opts || !strcmp(a, "-") || a[0] != '-') {
            if (o->file) goto bad;
            o->file = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            opts = 0;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return -1;
        }
        if (!strncmp(a, "--max-gen-mem", 13)) {
            val = a[13] == '=' ? a + 14 : (a[13] == 0 && i + 1 < argc) ? argv[++i] : NULL;
            if (!val || parse_size(val, &o->max_gen_mem)) goto bad;
        } else if (!strcmp(a, "--stacks") && allowed_has(allowed, "stacks")) {
            o->stacks = 1;
        } else if (!strncmp(a, "--top", 5) && allowed_has(allowed, "top")) {
            val = a[5] == '=' ? a + 6 : (a[5] == 0 && i + 1 < argc) ? argv[++i] : NULL;
            if (!val || parse_count(val, &o->top)) goto bad;
        } else if (!strcmp(a, "-o") && allowed_has(allowed, "o") && i + 1 < argc) {
            o->out = argv[++i];
        } else if (!strcmp(a, "--holders") && allowed_has(allowed, "holders")) {
            o->holders = 1;
        } else if (!strcmp(a, "--order") && allowed_has(allowed, "order")) {
            o->order = 1;
        } else if (!strcmp(a, "--holds") && allowed_has(allowed, "holds")) {
            o->holds = 1;
        } else if (!strcmp(a, "--thread") && allowed_has(allowed, "thread") && i + 1 < argc) {
            o->thread = argv[++i];
        } else if (!strcmp(a, "--region") && allowed_has(allowed, "region") && i + 1 < argc) {
            o->region = argv[++i];
        } else if (!strcmp(a, "--task") && allowed_has(allowed, "task") && i + 1 < argc) {
            long t;
            if (parse_count(argv[++i], &t)) goto bad;
            o->task = (uint64_t)t;
        } else if ((!strcmp(a, "--from") || !strcmp(a, "--to") || !strcmp(a, "--at")) &&
                   allowed_has(allowed, a + 2) && i + 1 < argc) {
            int64_t *t = a[2] == 'f' ? &o->from : a[3] == 'o' ? &o->to : &o->at;
            if (hd_parse_time(argv[++i], t)) goto bad;
        } else if (!strncmp(a, "--format", 8) && allowed_has(allowed, "format")) {
            val = a[8] == '=' ? a + 9 : (a[8] == 0 && i + 1 < argc) ? argv[++i] : NULL;
            if (!val) goto bad;
            o->format = val;
        } else {
            goto bad;
        }
    }
    if (!o->file) goto bad;
    return 0;
bad:
    fputs(usage, stderr);
    return GD_EXIT_USAGE;
}

/* A trace whose process died with events in its live file: say how to get them. */
static void recover_hint(const char *file)
{
    char live[512];
    if (strcmp(file, "-") != 0 && gd_live_find(file, 1, live, sizeof live))
        fprintf(stderr,
                "gotrace: %s: its process died before writing all of it; `gotrace recover %s` "
                "adds what it left in %s\n",
                file, file, live);
}

int gd_cmd_open(struct gd_dec *d, const struct gd_cmd_opts *o)
{
    recover_hint(o->file);
    if (gd_dec_open(d, o->file, o->max_gen_mem) == 0) return 0;
    int rc = gd_cmd_fail(d, o);
    gd_dec_close(d);
    return rc;
}

int gd_cmd_status(const struct gd_dec *d)
{
    return d->err.io ? GD_EXIT_IO : GD_EXIT_BAD_TRACE;
}

int gd_cmd_fail(struct gd_dec *d, const struct gd_cmd_opts *o)
{
    gd_err_print(&d->err, o->file, stderr);
    return gd_cmd_status(d);
}

struct sync_write {
    int (*write)(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s);
    const struct gd_cmd_opts *o;
    struct hd *s;
};

static int fill_sync(struct gd_out *out, void *ctx)
{
    struct sync_write *w = ctx;
    return w->write(out, w->o, w->s);
}

int gd_cmd_sync_write(int argc, char **argv, const char *allowed, const char *usage, int flags,
                      int (*write)(struct gd_out *out, const struct gd_cmd_opts *o, struct hd *s))
{
    struct gd_cmd_opts o;
    struct gd_dec d;
    int rc = gd_cmd_parse(argc, argv, allowed, usage, &o);
    if (rc) return rc < 0 ? GD_EXIT_OK : rc;
    if ((rc = gd_cmd_open(&d, &o))) return rc;
    struct hd *s = malloc(sizeof(*s));
    if (!s) {
        gd_dec_close(&d);
        fprintf(stderr, "gotrace: %s: out of memory\n", o.file);
        return GD_EXIT_BAD_TRACE;
    }
    hd_init(s, flags & GD_SYNC_INTERVALS);
    s->holders_only = !!(flags & GD_SYNC_HOLDERS_ONLY);
    if (s->holders_only) s->a.want_stacks = 0; /* no thread's current stack is shown */
    s->region_name = o.region;
    s->task = o.task;
    rc = hd_run(s, &d, o.file, o.at >= 0 ? o.at : INT64_MAX);
    if (rc == 0) {
        struct sync_write w = {write, &o, s};
        rc = gd_sink_write(NULL, o.file, fill_sync, &w);
    } else {
        rc = rc == -1 ? gd_cmd_status(&d) : GD_EXIT_BAD_TRACE;
    }
    hd_free(s);
    free(s);
    gd_dec_close(&d);
    return rc;
}

void gd_out_stack(struct gd_out *o, const char *text, const char *indent, unsigned max,
                  int no_stack)
{
    if (!*text && no_stack) {
        gd_out_s(o, indent);
        gd_out_s(o, "(no stack)\n");
    }
    for (unsigned k = 0; *text && (!max || k < max); k++) {
        const char *e = strchr(text, '\n');
        size_t n = e ? (size_t)(e - text) : strlen(text);
        gd_out_s(o, indent);
        gd_out_n(o, text, n);
        gd_out_c(o, '\n');
        text += n + (e != NULL);
    }
}

void gd_out_lock_exits(struct gd_out *out, const struct hd *s, int64_t upto)
{
    const struct lg *g = &s->lg;
    size_t n = 0;
    for (size_t i = 0; i < g->nexits; i++)
        n += g->exits[i].t <= upto;
    if (n) gd_out_f(out, "\nheld at thread exit: %zu\n", n);
    for (size_t i = 0; i < g->nexits; i++) {
        const struct lg_exit *x = &g->exits[i];
        if (x->t > upto) continue;
        char gn[GD_NAME_MAX], t1[32];
        const char *site = x->site ? s->a.str.s[x->site] : "?";
        gd_out_f(out, "  %s exited at %s holding %s, taken at %.*s\n",
                 hd_gname(s, hd_g_of_m(s, x->m), gn), gd_fmt_dur(x->t - s->t0, t1, sizeof t1),
                 s->a.str.s[s->objs[x->lock].name], (int)strcspn(site, "\n"), site);
    }
}

/* ---- the words of `hangs` (cmd_hangs.c) and of the report's Hangs section ---- */

const char *gd_hang_blocked(const struct hd *s, const struct hg_report *r, uint32_t g, char *buf,
                            size_t n)
{
    const struct gd_ana_g *ag = &s->a.gs[g];
    const struct hg_thread *t = &r->t[g];
    if (t->doing == HG_SYSCALL) return "in a system call";
    if (t->obj != HD_NONE)
        snprintf(buf, n, "waiting on %s", s->a.str.s[s->objs[t->obj].name]);
    else
        snprintf(buf, n, "waiting (%s)", ag->reason ? s->a.str.s[ag->reason] : "no reason");
    return buf;
}

const char *gd_hang_doing(const struct hd *s, const struct hg_report *r, uint32_t g, char *buf,
                          size_t n)
{
    const struct hg_thread *t = &r->t[g];
    char call[128], d[32];
    switch (t->doing) {
    case HG_RUNNING:
        return "running";
    case HG_RUNNABLE:
        return "runnable";
    case HG_SYSCALL: /* the system call is the first frame of its stack (the hook's) */
        if (!*hg_call(t->stack, call, sizeof call)) return "in a system call";
        snprintf(buf, n, "in a system call (%s)", call);
        return buf;
    case HG_SLEEPING:
        return "sleeping";
    case HG_WAITING:
        return gd_hang_blocked(s, r, g, buf, n);
    case HG_EXITED:
        snprintf(buf, n, "exited at %s", gd_fmt_dur(t->since - s->t0, d, sizeof d));
        return buf;
    }
    return "in no known state";
}

const char *gd_hang_why(int why)
{
    static const char *const text[] = {
        [HG_WHY_TIMED] = "a wait with a timeout",
        [HG_WHY_CALL] = "a call not known to wait forever",
        [HG_WHY_RECENT] = "blocked too recently to judge",
        [HG_WHY_HOLDER] = "its holder is not known",
        [HG_WHY_SHARED] = "the object may be shared with another process",
        [HG_WHY_UNOWNED] = "an object whose owner is not recorded",
    };
    return why > 0 && why <= HG_WHY_UNOWNED ? text[why] : "";
}

const char *gd_hang_holder(const struct hd *s, const struct hg_report *r, uint32_t g, char *buf,
                           size_t n)
{
    const struct hg_thread *t = &r->t[g];
    const struct hd_hold *h = &t->hold;
    char nb[GD_NAME_MAX], nb2[GD_NAME_MAX], w[1300], t1[32], since[GD_NAME_MAX + 64] = "";
    const struct hg_deadlock *d = t->dl ? &r->d[t->dl - 1] : NULL;
    int in_dl = d && !t->behind && d->kind != HG_ALL_STUCK; /* a cycle, an exited holder */
    if (h->g != HD_NONE) {
        if (h->how == HD_HOLD_HANDED)
            snprintf(since, sizeof since, " since %s (%s released it then)",
                     gd_fmt_dur(h->t - s->t0, t1, sizeof t1), hd_gname(s, h->by, nb2));
        int gone = r->t[h->g].doing == HG_EXITED;
        snprintf(buf, n, "held by %s%s, %s%s%s", hd_gname(s, h->g, nb), since,
                 gd_hang_doing(s, r, h->g, w, sizeof w), gone ? " holding it" : "",
                 in_dl ? " (deadlock)" : "");
    } else if (h->how == HD_HOLD_FREE) {
        snprintf(buf, n,
                 "holder: %s released it at %s; no thread is known to hold it since (it is "
                 "being handed to a waiter, or was taken by a thread that did not wait)",
                 hd_gname(s, h->by, nb), gd_fmt_dur(h->t - s->t0, t1, sizeof t1));
    } else if (t->owned) {
        snprintf(buf, n, "holder: unknown (not recorded)");
    } else {
        snprintf(buf, n, "holder: none known (no thread owns it: only a wake-up ends this wait)");
    }
    return buf;
}
