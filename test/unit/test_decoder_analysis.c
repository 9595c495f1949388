/* test_decoder_analysis.c: the arithmetic of the analyses (decoder/analysis.c) and of the
 * commands built on them (summary, contention, export): traces with known times in (1 tick =
 * 1 ns), exact totals out: time per state, lifetime, waits by reason and by site, wakers,
 * regions, tasks, CPU samples, names, duration formatting, and the commands' rows.
 * Invariant: each test builds its own trace (decoder_traces.h's text form). */
#include "decoder_traces.h"

#include "cmds.h"

#include <stdarg.h>

/* G1 runs on thread 1 from 100, blocks on a mutex at 200, is woken by G2 at 500, runs at 700,
 * is in a syscall from 1000 to 1300, ends at 2000. G2 runs from 150 and blocks at 2500, still
 * waiting when the trace ends (its Sync, at 2501). */
static const char waits[] =
    "str 1 sync: mutex\n"
    "str 2 lock\n"
    "str 3 m.c\n"
    "stack 1 10 2 3 42\n"
    "M 1: @90 ProcStatus 0 Running; @100 GoStatus 1 1 Running; @200 GoBlock 1 1\n"
    "M 2: @140 ProcStatus 1 Running; @150 GoStatus 2 2 Running;"
    " @500 GoUnblock 1 1 1\n"
    "M 1: @700 GoStart 1 2; @1000 GoSyscallBegin 1; @1300 GoSyscallEnd;"
    " @2000 GoDestroy\n"
    "M 2: @2500 GoBlock 1 1\n";

static const struct gd_ana_g *g_of(const struct gd_ana *a, uint64_t id)
{
    uint32_t *i = gd_hm_get(&a->gmap, id);
    cr_assert(i != NULL, "no goroutine %llu", (unsigned long long)id);
    return &a->gs[*i];
}

Test(analysis, time_in_each_state)
{
    struct gd_ana a;
    cr_assert_eq(dt_analyse(waits, &a, NULL, NULL), 0);
    cr_assert_eq(a.t0, 90);
    cr_assert_eq(a.tend, 2501);
    const struct gd_ana_g *g1 = g_of(&a, 1), *g2 = g_of(&a, 2);
    cr_assert_eq(g1->first, 100);
    cr_assert_eq(g1->last, 2000);
    cr_assert_eq(g1->ns_run, 100 + 300 + 700);
    cr_assert_eq(g1->ns_wait, 300);
    cr_assert_eq(g1->ns_runnable, 200);
    cr_assert_eq(g1->ns_sys, 300);
    cr_assert_eq(g1->ns_run + g1->ns_wait + g1->ns_runnable + g1->ns_sys, g1->last - g1->first);
    cr_assert_eq(g1->nblock, 1);
    cr_assert_eq(g1->nsys, 1);
    cr_assert_eq(g1->m, 1);
    cr_assert_eq(g1->state, GS_NOTEXIST);
    cr_assert_eq(g2->first, 150);
    cr_assert_eq(g2->last, 2501, "closed at the end of the trace");
    cr_assert_eq(g2->ns_run, 2350);
    cr_assert_eq(g2->ns_wait, 1);
    cr_assert_eq(g2->nblock, 1);
    cr_assert_eq(g2->nsys, 0);
    /* Blocked time by reason. */
    cr_assert_eq(g1->nreasons, 1);
    cr_assert_str_eq(a.str.s[g1->reasons[0].reason], "sync: mutex");
    cr_assert_eq(g1->reasons[0].ns, 300);
    cr_assert_eq(g1->reasons[0].count, 1);
    gd_ana_free(&a);
}

Test(analysis, waits_by_site_and_waker)
{
    struct gd_ana a;
    cr_assert_eq(dt_analyse(waits, &a, NULL, NULL), 0);
    cr_assert_eq(a.nsites, 1, "both waits have the same reason and stack");
    const struct gd_site *s = &a.sites[0];
    cr_assert_str_eq(a.str.s[s->reason], "sync: mutex");
    cr_assert_str_eq(a.str.s[s->stack], "lock m.c:42\n");
    cr_assert_eq(s->count, 2);
    cr_assert_eq(s->total, 301);
    cr_assert_eq(s->max, 300);
    cr_assert_eq(a.nwakes, 2);
    uint32_t g2 = (uint32_t)(g_of(&a, 2) - a.gs);
    for (size_t i = 0; i < a.nwakes; i++) {
        cr_assert_eq(a.wakes[i].site, 0);
        cr_assert_eq(a.wakes[i].count, 1);
        cr_assert(a.wakes[i].g == g2 || a.wakes[i].g == GD_WAKER_END, "waker %u", a.wakes[i].g);
    }
    cr_assert_neq(a.wakes[0].g, a.wakes[1].g);
    gd_ana_free(&a);
}

/* What the export's callbacks are told, in order. */
struct seen {
    char log[2048];
    size_t n;
};

static void note(struct gd_ana *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct gd_ana *a, const char *fmt, ...)
{
    struct seen *s = a->user;
    va_list ap;
    va_start(ap, fmt);
    s->n += (size_t)vsnprintf(s->log + s->n, sizeof(s->log) - s->n, fmt, ap);
    va_end(ap);
}
static void on_slice(struct gd_ana *a, const struct gd_ana_g *g, uint8_t state, int64_t start,
                     int64_t end)
{
    note(a, "G%llu s%d %lld-%lld\n", (unsigned long long)g->id, state, (long long)start,
         (long long)end);
}
static void on_wake(struct gd_ana *a, const struct gd_ana_g *waker, const struct gd_ana_g *wakee,
                    int64_t t, uint64_t flow)
{
    note(a, "wake G%llu->G%llu at %lld flow %llu\n", (unsigned long long)waker->id,
         (unsigned long long)wakee->id, (long long)t, (unsigned long long)flow);
}
static void on_flow_end(struct gd_ana *a, const struct gd_ana_g *wakee, int64_t t, uint64_t flow)
{
    note(a, "start G%llu at %lld flow %llu\n", (unsigned long long)wakee->id, (long long)t,
         (unsigned long long)flow);
}
static void on_region(struct gd_ana *a, const struct gd_ana_g *g, const struct gd_open_region *r,
                      int64_t end)
{
    note(a, "region G%llu task %llu %lld-%lld\n", (unsigned long long)g->id,
         (unsigned long long)r->task, (long long)r->start, (long long)end);
}

Test(analysis, slices_and_flows)
{
    static const struct gd_ana_cb cb = {
        .slice = on_slice, .wake = on_wake, .flow_end = on_flow_end, .region = on_region};
    struct seen s = {.n = 0};
    struct gd_ana a;
    cr_assert_eq(dt_analyse(waits, &a, &cb, &s), 0);
    char want[1024];
    snprintf(want, sizeof(want),
             "G1 s%d 100-200\n"
             "G1 s%d 200-500\n"
             "wake G2->G1 at 500 flow 1\n"
             "G1 s%d 500-700\n"
             "start G1 at 700 flow 1\n"
             "G1 s%d 700-1000\n"
             "G1 s%d 1000-1300\n"
             "G1 s%d 1300-2000\n"
             "G2 s%d 150-2500\n"
             "G2 s%d 2500-2501\n",
             GS_RUNNING, GS_WAITING, GS_RUNNABLE, GS_RUNNING, GS_SYSCALL, GS_RUNNING, GS_RUNNING,
             GS_WAITING);
    cr_assert_str_eq(s.log, want);
    gd_ana_free(&a);
}

/* Regions: two "parse" (60 and 250 ns), an "io" ended without a begin (from the trace's start,
 * 10, to 600) and one still open when its goroutine ends (800 to 1000). Tasks: "job" 7 begun
 * at 30 and ended at 500, "job" 8 never ended; task 9 ends without a begin (not counted). */
static const char annotated[] = "str 1 job\nstr 2 parse\nstr 3 io\n"
                                "M 1: @10 ProcStatus 0 Running; @20 GoStatus 1 1 Running;"
                                " @30 UserTaskBegin 7 0 1; @40 UserRegionBegin 7 2;"
                                " @100 UserRegionEnd 7 2; @150 UserRegionBegin 7 2;"
                                " @400 UserRegionEnd 7 2; @500 UserTaskEnd 7;"
                                " @600 UserRegionEnd 0 3; @700 UserTaskBegin 8 0 1;"
                                " @800 UserRegionBegin 0 3; @900 UserTaskEnd 9; @1000 GoDestroy\n";

static const struct gd_name_acc *acc(const struct gd_ana *a, const struct gd_name_accs *t,
                                     const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(a->str.s[t->v[i].name], name)) return &t->v[i];
    cr_assert_fail("no totals for %s", name);
    return NULL;
}

Test(analysis, regions_and_tasks)
{
    struct gd_ana a;
    cr_assert_eq(dt_analyse(annotated, &a, NULL, NULL), 0);
    cr_assert_eq(a.regions.n, 2);
    const struct gd_name_acc *parse = acc(&a, &a.regions, "parse"), *io = acc(&a, &a.regions, "io");
    cr_assert_eq(parse->count, 2);
    cr_assert_eq(parse->ns, 60 + 250);
    cr_assert_eq(io->count, 2);
    cr_assert_eq(io->ns, (600 - 10) + (1000 - 800));
    cr_assert_eq(a.tasks.n, 1);
    const struct gd_name_acc *job = acc(&a, &a.tasks, "job");
    cr_assert_eq(job->count, 2);
    cr_assert_eq(job->ended, 1);
    cr_assert_eq(job->ns, 470);
    gd_ana_free(&a);
}

Test(analysis, cpu_samples)
{
    struct gd_ana a;
    cr_assert_eq(dt_analyse("str 1 work\nstr 2 idle\nstack 1 10 1 0 1\nstack 2 20 2 0 1 30 1 0 2\n"
                            "cpu 50 1 0 1 1\ncpu 60 1 0 1 1\ncpu 70 1 0 1 2\ncpu 80 1 - 0 2\n"
                            "cpu 85 1 - 0 0\n"
                            "M 1: @10 ProcStatus 0 Running; @20 GoStatus 1 1 Running; @100 GoBlock",
                            &a, NULL, NULL),
                 0);
    cr_assert_eq(a.nsamples, 5);
    cr_assert_eq(a.nsamples_nog, 2);
    cr_assert_eq(g_of(&a, 1)->nsamples, 3);
    cr_assert_eq(a.leaves.n, 2, "a sample without a stack has no leaf");
    cr_assert_eq(acc(&a, &a.leaves, "work")->count, 2);
    cr_assert_eq(acc(&a, &a.leaves, "idle")->count, 2, "the leaf is the innermost frame");
    gd_ana_free(&a);
}

/* A thread's name is its latest GoLabel, wherever it is written, then its start routine: the
 * outermost frame of its first stack (GoCreate's new stack, or a GoStatusStack's). */
Test(analysis, names)
{
    struct gd_ana a;
    cr_assert_eq(
        dt_analyse("str 1 worker\nstr 2 main\nstr 3 w-0\nstr 4 w-1\n"
                   "stack 1 10 1 0 1\nstack 2 20 2 0 1\n"
                   "M 1: ProcStatus 0 Running; GoStatusStack 1 1 Running 2; GoCreate 2 1 2;"
                   " GoCreate 3 1 2; GoCreate 4 2 2; GoLabel 3; GoLabel 2\n"
                   "M 2: ProcStatus 1 Running; GoStart 2 1; GoLabel 4\n",
                   &a, NULL, NULL),
        0);
    struct {
        uint64_t g;
        const char *plain, *with_id;
    } want[] = {
        {1, "main", "main (G1)"},               /* labelled as its start routine */
        {2, "w-1 (worker)", "w-1 (G2 worker)"}, /* a label and a start routine */
        {3, "worker", "worker (G3)"},           /* a start routine only */
        {4, "main", "main (G4)"},
    };
    char buf[GD_NAME_MAX];
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct gd_ana_g *g = g_of(&a, want[i].g);
        cr_expect_str_eq(gd_ana_name(&a, g, 0, buf), want[i].plain, "G%llu",
                         (unsigned long long)want[i].g);
        cr_expect_str_eq(gd_ana_name(&a, g, 1, buf), want[i].with_id, "G%llu",
                         (unsigned long long)want[i].g);
    }
    struct gd_ana_g unknown = {.id = 5}; /* neither */
    cr_expect_str_eq(gd_ana_name(&a, &unknown, 0, buf), "G5");
    cr_expect_str_eq(gd_ana_name(&a, &unknown, 1, buf), "G5");
    gd_ana_free(&a);
}

Test(analysis, duration_format)
{
    struct {
        int64_t ns;
        const char *s;
    } c[] = {{-5, "0ns"},
             {0, "0ns"},
             {999, "999ns"},
             {1000, "1.00us"},
             {1500, "1.50us"},
             {999994, "999.99us"},
             {1000000, "1.00ms"},
             {2345678, "2.35ms"},
             {999999999, "1000.00ms"},
             {1000000000, "1.000s"},
             {61500000000, "61.500s"}};
    char buf[32];
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        cr_expect_str_eq(gd_fmt_dur(c[i].ns, buf, sizeof(buf)), c[i].s, "%lld ns",
                         (long long)c[i].ns);
}

/* The line of out that starts with prefix (asserts there is one). */
static const char *line(const char *out, const char *prefix, char *buf, size_t n)
{
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (!strncmp(p, prefix, strlen(prefix))) {
            size_t k = strcspn(p, "\n");
            snprintf(buf, n, "%.*s", (int)k, p);
            return buf;
        }
    }
    cr_assert_fail("no line \"%s\" in:\n%s", prefix, out);
    return NULL;
}

/* The goroutines are both named "lock" (the outermost frame of their first stack). */
Test(commands, summary_rows_and_totals)
{
    char *out, b[256];
    cr_assert_eq(dt_command(gd_cmd_summary, waits, NULL, &out), 0);
    cr_assert_str_eq(line(out, "trace:", b, sizeof(b)),
                     "trace: t.trace, 12 events, 1 generations, duration 2.41us");
    cr_assert_str_eq(line(out, "lock                                1 ", b, sizeof(b)),
                     "lock                                1        1      1.90us      1.10us     "
                     "  200ns       300ns       300ns       1        1       0");
    cr_assert_str_eq(line(out, "lock                                2 ", b, sizeof(b)),
                     "lock                                2        2      2.35us      2.35us     "
                     "    0ns         0ns         1ns       1        0       0");
    cr_assert_str_eq(
        line(out, "    blocked on sync: mutex", b, sizeof(b)),
        "    blocked on sync: mutex                                    300ns in 1 waits");
    cr_assert_str_eq(line(out, "TOTAL", b, sizeof(b)),
                     "TOTAL (2 threads)                                   4.25us      3.45us     "
                     "  200ns       300ns       301ns       2        1       0");
    free(out);
}

Test(commands, summary_tasks_regions_samples)
{
    char *out, b[256];
    cr_assert_eq(dt_command(gd_cmd_summary,
                            "str 1 work\nstack 1 10 1 0 1\ncpu 50 1 0 1 1\ncpu 60 1 - 0 1\n"
                            "cpu 70 1 - 0 0\nM 1: ProcStatus 0 Running; GoStatus 1 1 Running",
                            NULL, &out),
                 0);
    cr_assert_str_eq(line(out, "CPU samples:", b, sizeof(b)),
                     "CPU samples: 3 (2 without a goroutine); top functions (leaf frame):");
    cr_assert_str_eq(line(out, "          2", b, sizeof(b)), "          2  66.7%  work");
    free(out);
    cr_assert_eq(dt_command(gd_cmd_summary, annotated, NULL, &out), 0);
    cr_assert_str_eq(
        line(out, "job", b, sizeof(b)),
        "job                                                2       1       470ns       470ns");
    cr_assert_str_eq(
        line(out, "io", b, sizeof(b)),
        "io                                                         2       790ns       395ns");
    cr_assert_str_eq(
        line(out, "parse", b, sizeof(b)),
        "parse                                                      2       310ns       155ns");
    free(out);
}

Test(commands, contention_totals)
{
    char *out, b[256];
    const char *args[] = {"--top", "1", NULL};
    cr_assert_eq(dt_command(gd_cmd_contention, waits, args, &out), 0);
    cr_assert_str_eq(line(out, "trace:", b, sizeof(b)),
                     "trace: t.trace: 1 wait sites, total wait 301ns");
    cr_assert_str_eq(line(out, "#1", b, sizeof(b)),
                     "#1  sync: mutex  waits=2  total=301ns  max=300ns  avg=150ns");
    cr_assert_str_eq(line(out, "    lock", b, sizeof(b)), "    lock m.c:42");
    cr_assert_str_eq(line(out, "  woken by:", b, sizeof(b)),
                     "  woken by: (still waiting at trace end) (1), lock (1)");
    free(out);
}

/* The frames of one stack in each form (decoder/trace/stacktext.h): a hook's, with no line but
 * its module's path; one with neither file nor line; one with a line; one with no function. */
static const char forms[] = "str 1 sync: mutex\nstr 2 pthread_mutex_lock\n"
                            "str 3 /usr/lib/x86_64-linux-gnu/libc.so.6\nstr 4 helper\n"
                            "str 5 work\nstr 6 m.c\n"
                            "stack 1 10 2 3 0 11 4 0 0 12 5 6 42 13 0 0 0\n"
                            "M 1: ProcStatus 0 Running; GoStatus 1 1 Running; GoBlock 1 1\n";

Test(commands, stack_frame_forms)
{
    struct gd_ana a;
    cr_assert_eq(dt_analyse(forms, &a, NULL, NULL), 0);
    cr_assert_eq(a.nsites, 1);
    cr_assert_str_eq(a.str.s[a.sites[0].stack],
                     "pthread_mutex_lock (libc.so.6)\nhelper\nwork m.c:42\n?\n");
    gd_ana_free(&a);
    char *out;
    cr_assert_eq(dt_command(gd_cmd_contention, forms, NULL, &out), 0);
    cr_assert(strstr(out, "\n    pthread_mutex_lock (libc.so.6)\n    helper\n    work m.c:42\n"
                          "    ?\n  woken by:"),
              "%s", out);
    free(out);
    cr_assert_eq(dt_command(gd_cmd_dump, forms, (const char *const[]){"--stacks", NULL}, &out), 0);
    cr_assert(strstr(out, " GoBlock reason=\"sync: mutex\" stack=1\n"
                          "\tpthread_mutex_lock (libc.so.6)\n\thelper\n\twork m.c:42\n\t?\n"),
              "%s", out);
    free(out);
}

/* G1 waits 12 times, woken each time by another goroutine: G2..G4 named "pool" count together;
 * the 8 most frequent names are listed, the rest summed. */
Test(commands, contention_wakers)
{
    char t[4096];
    size_t n = (size_t)snprintf(t, sizeof(t),
                                "str 1 pool\nstr 2 sync\nM 1: ProcStatus 0 Running; "
                                "GoStatus 1 1 Running\n");
    for (int k = 2; k <= 13; k++) {
        n += (size_t)snprintf(t + n, sizeof(t) - n,
                              "M %d: ProcStatus %d Running; GoStatus %d %d Running%s\n"
                              "M 1: GoBlock 2\nM %d: GoUnblock 1 %d\nM 1: GoStart 1 %d\n",
                              k, k, k, k, k <= 4 ? "; GoLabel 1" : "", k, 2 * (k - 1) - 1,
                              2 * (k - 1));
    }
    char *out, b[512];
    cr_assert_eq(dt_command(gd_cmd_contention, t, NULL, &out), 0);
    cr_assert_str_eq(line(out, "#1", b, sizeof(b)),
                     "#1  sync  waits=12  total=12ns  max=1ns  avg=1ns");
    cr_assert_str_eq(line(out, "  woken by:", b, sizeof(b)),
                     "  woken by: pool (3), G10 (1), G11 (1), G12 (1), G13 (1), G5 (1), G6 (1), G7 "
                     "(1), others (2)");
    free(out);
}

Test(commands, export_slices_in_microseconds)
{
    char *out;
    const char *args[] = {"--format", "chrome", "-o", "-", NULL};
    cr_assert_eq(dt_command(gd_cmd_export, waits, args, &out), 0);
    static const char *want[] = {
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0.010,\"dur\":0.100,\"cat\":\"running\","
        "\"name\":\"running\"}",
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0.110,\"dur\":0.300,\"cat\":\"blocked\","
        "\"name\":\"blocked: sync: mutex\"}",
        "{\"ph\":\"s\",\"pid\":1,\"tid\":2,\"ts\":0.410,\"cat\":\"wake\",\"name\":\"wake\",\"id\":"
        "1}",
        "{\"ph\":\"f\",\"pid\":1,\"tid\":1,\"ts\":0.610,\"bp\":\"e\",\"cat\":\"wake\","
        "\"name\":\"wake\",\"id\":1}",
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0.910,\"dur\":0.300,\"cat\":\"syscall\","
        "\"name\":\"syscall\"}",
        "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":0.060,\"dur\":2.350,\"cat\":\"running\","
        "\"name\":\"running\"}",
    };
    const char *p = out;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const char *q = strstr(p, want[i]);
        cr_assert(q != NULL, "missing, or out of order: %s\nin:\n%s", want[i], out);
        p = q;
    }
    cr_assert(!strstr(out, "\"cat\":\"runnable\""), "runnable time is not a slice");
    free(out);
}
