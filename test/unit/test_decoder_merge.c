/* test_decoder_merge.c: gotrace merge (decoder/trace/merge.c) on traces built here: every kind of
 * sync record carried and translated (names, addresses, durations in ns), lock tracking's after
 * the waits and releases; private objects named with their process when there is more than one,
 * shared-mapping objects, generic reasons and joins not; a record of an unknown type stops the
 * merge with the input named.
 * Invariant: each test writes its inputs into a fresh folder of its own and removes it. */
#include "decoder_traces.h"

#include "merge.h"

/* One thread blocking on reasons 1 to 4 in turn, then ending; the strings name a private mutex
 * L (1), an object in a shared mapping (2), a generic condvar (3), a join (4), and a mutex K
 * held while L was taken (5). */
static const char blocks[] =
    "str 1 sync: mutex L\nstr 2 sync: mutex shared /dev/shm/p+0x40 [00:1b 5]\n"
    "str 3 sync: condvar\nstr 4 sync: join\nstr 5 sync: mutex K\n"
    "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running; @100 GoBlock 1 0; "
    "@110 GoUnblock 1 1 0; @111 GoStart 1 2; @120 GoBlock 2 0; @130 GoUnblock 1 3 0; "
    "@131 GoStart 1 4; @140 GoBlock 3 0; @150 GoUnblock 1 5 0; @151 GoStart 1 6; "
    "@160 GoBlock 4 0; @170 GoUnblock 1 7 0; @171 GoStart 1 8; @200 GoDestroy\n";

/* The records (go_wire.h), each "TYPE v0 v1 ...": lock tracking's first, as a reader must not
 * rely on their order: an order edge K -> L, L's hold statistics (1000 and 400 ticks), K held at
 * thread 1's exit, and the wait on L. */
static const char recs[] = "3 150 1 256 1 0 512 5 0 34; 4 190 0 256 1 7 3 1000 400 0; "
                           "5 195 1 512 5 0; 1 100 1 256 1 0";

/* A "raw" line: gotrace's sync batch of generation 1 holding the records of spec. */
static char *sync_line(const char *spec)
{
    struct dt_buf p = {0};
    char *copy = strdup(spec), *save = NULL;
    for (char *r = strtok_r(copy, ";", &save); r; r = strtok_r(NULL, ";", &save)) {
        char *end;
        dt_u8(&p, (uint8_t)strtoul(r, &end, 10));
        for (char *q = end; *q && *q != ';';) {
            unsigned long long v = strtoull(q, &end, 10);
            if (end == q) break;
            dt_uv(&p, v);
            q = end;
        }
    }
    free(copy);
    return dt_sync_line(&p);
}

/* Writes dir/name: the trace of text (freq: its frequency) with the records of spec. */
static void write_input(const char *dir, const char *name, const char *freq, const char *spec)
{
    char *line = sync_line(spec), *all = malloc(strlen(blocks) + strlen(line) + 64), path[256];
    sprintf(all, "freq %s\n%s%s\n", freq, blocks, line);
    struct dt_buf t = {0};
    dt_build(&t, all);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(t.b, 1, t.n, f) == t.n && fclose(f) == 0);
    dt_free(&t);
    free(all);
    free(line);
}

static int to_buf(void *ctx, const void *p, size_t n)
{
    dt_put(ctx, p, n);
    return 0;
}

/* What the merged trace says: its GoBlock reasons and its records, as text lines. */
struct seen {
    char reasons[1024], recs[2048];
};

/* The record at p (type, values), rendered "TYPE v0 ... " with string values as their text
 * (those at the indices the type names); its length, 0 at the end. */
static size_t render(const struct gd_gen *g, const uint8_t *p, size_t len, char *out, size_t cap)
{
    static const int nvs[] = {0, 5, 4, 9, 9, 5}, strv[][2] = {{0}, {3}, {0}, {3, 6}, {3}, {3}};
    if (!len) return 0;
    uint8_t type = p[0];
    cr_assert(type >= 1 && type <= 5, "record type %u", type);
    size_t at = 1, o = (size_t)snprintf(out, cap, "%u", type);
    for (int k = 0; k < nvs[type]; k++) {
        uint64_t v;
        int n = gd_uvarint(p + at, len - at, &v);
        cr_assert(n > 0);
        at += (size_t)n;
        uint32_t sl = 0;
        const char *s = (k == strv[type][0] || k == strv[type][1]) && k ? gd_str(g, v, &sl) : NULL;
        if (s)
            o += (size_t)snprintf(out + o, cap - o, " '%.*s'", (int)sl, s);
        else if (k == 2 || (type == GT_SYNC_ORDER && k == 5)) /* an address: its input's tag */
            o += (size_t)snprintf(out + o, cap - o, " %llu@%llu",
                                  (unsigned long long)(v & ((1ull << 48) - 1)),
                                  (unsigned long long)(v >> 48));
        else
            o += (size_t)snprintf(out + o, cap - o, " %llu", (unsigned long long)v);
    }
    return at;
}

static void merged(const char *const *paths, size_t n, int rename, struct seen *w)
{
    struct dt_buf out = {0};
    struct gd_merge_out o = {to_buf, &out};
    struct gd_err err;
    size_t bad;
    cr_assert_eq(gd_merge(paths, n, rename, 0, &o, &err, &bad), 0, "%s", err.msg);
    struct gd_dec d;
    cr_assert_eq(gd_dec_fdopen(&d, dt_memfd(out.b, out.n), 1 << 20), 0, "%s", d.err.msg);
    memset(w, 0, sizeof *w);
    struct gd_tev ev;
    int rc;
    while ((rc = gd_dec_next(&d, &ev)) > 0) {
        uint32_t sl;
        if (ev.type == GO_EV_GO_BLOCK) {
            const char *s = gd_str(&d.gen, ev.args[0], &sl);
            snprintf(w->reasons + strlen(w->reasons), sizeof w->reasons - strlen(w->reasons),
                     "%.*s\n", (int)sl, s);
        }
        if (ev.type != GD_EV_SYNC) continue;
        char line[512];
        for (size_t at = 0, k;
             (k = render(&d.gen, d.gen.sync + at, d.gen.nsync - at, line, sizeof line)); at += k)
            snprintf(w->recs + strlen(w->recs), sizeof w->recs - strlen(w->recs), "%s\n", line);
    }
    cr_assert_eq(rc, 0, "%s", d.err.msg);
    gd_dec_close(&d);
    dt_free(&out);
}

static char dir[64];

static void make_dir(void)
{
    strcpy(dir, "/tmp/gt_merge_XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Two processes (a.trace at 1 GHz, b.trace at 2 GHz): every record carried, lock tracking's
 * after the waits; L and K named with their process in reasons and records, the shared object,
 * the generic condvar and the join not; b's times and hold durations in ns (halved); each
 * input's objects at addresses of their own (its number above bit 48: "256@2"). */
Test(merge, records_and_names_of_two_processes, .init = make_dir, .fini = remove_dir)
{
    write_input(dir, "a.trace", "1000000000", recs);
    write_input(dir, "b.trace", "2000000000", recs);
    char pa[128], pb[128];
    snprintf(pa, sizeof pa, "%s/a.trace", dir);
    snprintf(pb, sizeof pb, "%s/b.trace", dir);
    struct seen w;
    merged((const char *const[]){pa, pb}, 2, 1, &w);
    const char *reasons = "sync: mutex L in b.trace\n"
                          "sync: mutex shared /dev/shm/p+0x40 [00:1b 5]\n"
                          "sync: condvar\n"
                          "sync: join\n";
    cr_assert(strstr(w.reasons, reasons), "%s", w.reasons); /* b's come first (its ns) */
    cr_assert(strstr(w.reasons, "sync: mutex L in a.trace\n"), "%s", w.reasons);
    cr_assert_eq(strstr(w.reasons, "sync: mutex L\n"), NULL, "%s", w.reasons);
    /* times in ns: b's at half its ticks; every wait before every lock tracking record; a's
     * thread 1 is 1 + 2^32: b's thread 1 was alive (merge.c get_m) */
    const char *want =
        "1 50 1 256@2 'sync: mutex L in b.trace' 0\n"
        "1 100 4294967297 256@1 'sync: mutex L in a.trace' 0\n"
        "3 75 1 256@2 'sync: mutex L in b.trace' 0 512@2 'sync: mutex K in b.trace' 0 34\n"
        "4 95 0 256@2 'sync: mutex L in b.trace' 7 3 500 200 0\n"
        "5 97 1 512@2 'sync: mutex K in b.trace' 0\n"
        "3 150 4294967297 256@1 'sync: mutex L in a.trace' 0 512@1 'sync: mutex K in a.trace' 0 "
        "34\n"
        "4 190 0 256@1 'sync: mutex L in a.trace' 7 3 1000 400 0\n"
        "5 195 4294967297 512@1 'sync: mutex K in a.trace' 0\n";
    cr_assert_str_eq(w.recs, want);
}

/* One input (as for a single process): nothing renamed, the records as they were. */
Test(merge, one_process_keeps_names, .init = make_dir, .fini = remove_dir)
{
    write_input(dir, "a.trace", "1000000000", recs);
    char pa[128];
    snprintf(pa, sizeof pa, "%s/a.trace", dir);
    struct seen w;
    merged((const char *const[]){pa}, 1, 0, &w);
    cr_assert(strstr(w.reasons, "sync: mutex L\nsync: mutex shared"), "%s", w.reasons);
    cr_assert(strstr(w.recs, "3 150 1 256@1 'sync: mutex L' 0 512@1 'sync: mutex K' 0 34\n"), "%s",
              w.recs);
}

/* A record of a type merge does not know stops it, naming the input and the type. */
Test(merge, unknown_record_type_stops, .init = make_dir, .fini = remove_dir)
{
    write_input(dir, "a.trace", "1000000000", recs);
    write_input(dir, "b.trace", "1000000000", "1 100 1 256 1 0; 9 120 1 256 1");
    char pa[128], pb[128];
    snprintf(pa, sizeof pa, "%s/a.trace", dir);
    snprintf(pb, sizeof pb, "%s/b.trace", dir);
    struct dt_buf out = {0};
    struct gd_merge_out o = {to_buf, &out};
    struct gd_err err;
    size_t bad;
    cr_assert_eq(gd_merge((const char *const[]){pa, pb}, 2, 1, 0, &o, &err, &bad), -1);
    cr_assert_eq(bad, 1);
    cr_assert(strstr(err.msg, "sync record of type 9 is not known to this merge"), "%s", err.msg);
    dt_free(&out);
}

/* Where the merged trace of two processes unblocks a's thread, "@T M=ID": a's thread blocks at
 * 100 with reason `wait` and unblocks itself at 300; b's thread logs gotrace.post `post` at
 * 200. */
static void post_link(const char *wait, const char *post, char *out, size_t cap)
{
    char a[512], b[512], pa[128], pb[128];
    snprintf(a, sizeof a,
             "str 1 %s\nM 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running; @100 GoBlock 1 0; "
             "@300 GoUnblock 1 1 0; @301 GoStart 1 2; @400 GoDestroy\n",
             wait);
    snprintf(b, sizeof b,
             "str 1 gotrace.post\nstr 2 %s\nM 2: @10 ProcStatus 0 Running; @11 GoStatus 1 2 "
             "Running; @200 UserLog 0 1 2 0; @500 GoDestroy\n",
             post);
    const char *texts[] = {a, b}, *names[] = {"a.trace", "b.trace"};
    char *paths[] = {pa, pb};
    for (int k = 0; k < 2; k++) {
        struct dt_buf t = {0};
        dt_build(&t, texts[k]);
        snprintf(paths[k], 128, "%s/%s", dir, names[k]);
        FILE *f = fopen(paths[k], "wb");
        cr_assert(f && fwrite(t.b, 1, t.n, f) == t.n && fclose(f) == 0);
        dt_free(&t);
    }
    struct dt_buf o = {0};
    struct gd_merge_out mo = {to_buf, &o};
    struct gd_err err;
    size_t bad;
    cr_assert_eq(gd_merge((const char *const[]){pa, pb}, 2, 1, 0, &mo, &err, &bad), 0, "%s",
                 err.msg);
    struct gd_dec d;
    cr_assert_eq(gd_dec_fdopen(&d, dt_memfd(o.b, o.n), 1 << 20), 0, "%s", d.err.msg);
    struct gd_tev ev;
    int rc;
    out[0] = 0;
    while ((rc = gd_dec_next(&d, &ev)) > 0)
        if (ev.type == GO_EV_GO_UNBLOCK)
            snprintf(out + strlen(out), cap - strlen(out), "@%llu M=%llu\n",
                     (unsigned long long)ev.time, (unsigned long long)ev.m);
    cr_assert_eq(rc, 0, "%s", d.err.msg);
    gd_dec_close(&d);
    dt_free(&o);
}

/* A gotrace.post log ends another process's wait on the object it names: by its offset, device
 * and inode (a semaphore's, a condvar's, a futex word's, a runtime's mutex on a futex word
 * woken by a futex wake, a semaphore file mapped under two paths); a log naming another offset
 * or inode, or an object not in a shared mapping, ends nothing (the waiter ends its wait
 * itself). */
Test(merge, post_log_ends_wait_on_the_shared_object, .init = make_dir, .fini = remove_dir)
{
    static const char *const cases[][3] = {
        {"sync: semaphore shared anon+0x40 [00:01 7]", "semaphore shared anon+0x40 [00:01 7]",
         "@201 M=2\n"},
        {"sync: condvar shared /dev/shm/cv+0x0 [00:1b 5]",
         "condvar shared /dev/shm/cv+0x0 [00:1b 5]", "@201 M=2\n"},
        {"sync: futex shared anon+0x40 [00:01 7]", "futex shared anon+0x40 [00:01 7]",
         "@201 M=2\n"},
        {"sync: mutex shared anon+0x40 [00:01 7]", "futex shared anon+0x40 [00:01 7]",
         "@201 M=2\n"},
        {"sync: rwlock write shared anon+0x40 [00:01 7]", "rwlock shared anon+0x40 [00:01 7]",
         "@201 M=2\n"},
        {"sync: futex shared anon+0x40 [00:01 7]", "futex shared anon+0x44 [00:01 7]",
         "@300 M=1\n"},
        {"sync: futex shared anon+0x40 [00:01 7]", "futex shared anon+0x40 [00:01 8]",
         "@300 M=1\n"},
        {"sync: futex 0x40", "futex 0x40", "@300 M=1\n"},
        {"sync: semaphore shared /dev/shm/sem.q+0x0 [00:1b 5]",
         "semaphore shared /dev/shm/sem.WwRJ2A+0x0 [00:1b 5]", "@201 M=2\n"},
        {"sync: semaphore shared /dev/shm/sem.q+0x0 [00:1b 5]",
         "semaphore shared /dev/shm/sem.q+0x0 [00:1b 6]", "@300 M=1\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char got[256];
        post_link(cases[k][0], cases[k][1], got, sizeof got);
        cr_assert_str_eq(got, cases[k][2], "got %s: wait '%s', post '%s'", got, cases[k][0],
                         cases[k][1]);
    }
}

/* ---- signals to a process group ---- */

/* Writes dir/name: process pid (group pgid; 0: a process batch without the group, as older
 * tracers wrote it) whose thread pid either logs gotrace.kill "kill" at tick 100 (a sender) or
 * waits in sigsuspend from tick 50 to its own unblock at 150 (kill NULL). */
static void write_process(const char *name, unsigned pid, unsigned pgid, const char *kill)
{
    struct dt_buf p = {0}, b = {0}, t = {0};
    dt_uv(&p, pid);
    dt_uv(&p, 1);
    dt_uv(&p, 1);
    dt_put(&p, "x", 1);
    if (pgid) dt_uv(&p, pgid);
    dt_put(&b, (uint8_t[]){GO_EV_EXPERIMENTAL_BATCH, GT_EXP_PROC}, 2);
    dt_uv(&b, 1);
    dt_uv(&b, GO_NO_THREAD);
    dt_uv(&b, 0);
    dt_uv(&b, p.n);
    dt_put(&b, p.b, p.n);
    char text[1024], path[256];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "str 1 gotrace.kill\nstr 2 %s\nstr 3 signal: "
                                "sigsuspend\nM %u: @10 ProcStatus 0 Running; @11 GoStatus 1 %u "
                                "Running; %s; @200 GoDestroy\nraw",
                                kill ? kill : "-", pid, pid,
                                kill ? "@100 UserLog 0 1 2 0"
                                     : "@50 GoBlock 3 0; @150 GoUnblock 1 1 0; @151 GoStart 1 2");
    for (size_t i = 0; i < b.n; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, " %02x", b.b[i]);
    dt_build(&t, text);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(t.b, 1, t.n, f) == t.n && fclose(f) == 0);
    dt_free(&t);
    dt_free(&b);
    dt_free(&p);
}

/* The merge of a sender (pid 10, group 10) whose log is kill, and of four processes in
 * sigsuspend: 21 and 22 in group 20, 30 in group 30, 23 without a known group: which of them
 * were woken by the sender ("21 22 " if those), in pid order. */
static void group_woken(const char *kill, char *out, size_t cap)
{
    static const unsigned pids[] = {21, 22, 30, 23}, groups[] = {20, 20, 30, 0};
    const char *paths[5];
    char names[5][160];
    write_process("s.trace", 10, 10, kill);
    snprintf(names[0], sizeof names[0], "%s/s.trace", dir);
    for (int k = 0; k < 4; k++) {
        char file[32];
        snprintf(file, sizeof file, "w%u.trace", pids[k]);
        write_process(file, pids[k], groups[k], NULL);
        snprintf(names[k + 1], sizeof names[k + 1], "%s/%s", dir, file);
    }
    for (int k = 0; k < 5; k++)
        paths[k] = names[k];
    struct dt_buf o = {0};
    struct gd_merge_out mo = {to_buf, &o};
    struct gd_err err;
    size_t bad;
    cr_assert_eq(gd_merge(paths, 5, 1, 0, &mo, &err, &bad), 0, "%s", err.msg);
    struct gd_dec d;
    cr_assert_eq(gd_dec_fdopen(&d, dt_memfd(o.b, o.n), 1 << 20), 0, "%s", d.err.msg);
    struct gd_tev ev;
    int rc;
    uint64_t sender = GD_NONE;
    out[0] = 0;
    while ((rc = gd_dec_next(&d, &ev)) > 0) {
        if (ev.type == GO_EV_USER_LOG) sender = ev.g;
        if (ev.type != GO_EV_GO_UNBLOCK || ev.g == GD_NONE) continue;
        cr_assert_eq(ev.g, sender, "an unblock by another than the sender");
        snprintf(out + strlen(out), cap - strlen(out), "%llu ", (unsigned long long)(ev.m));
    }
    cr_assert_eq(rc, 0, "%s", d.err.msg);
    gd_dec_close(&d);
    dt_free(&o);
}

/* A signal to a group ends the signal waits of the processes in it (their process batches say
 * their group), one to its own group the same with the sender's group, one to every process
 * every waiter's; a process without a known group (an older tracer's) is not taken; a signal to
 * one pid only that one. The unblocks are written on the sender's thread (M 10). */
Test(merge, signal_to_a_group_wakes_its_members, .init = make_dir, .fini = remove_dir)
{
    char woken[64];
    group_woken("SIGUSR1 to process group 20 by killpg", woken, sizeof woken);
    cr_assert_str_eq(woken, "10 10 ");
    group_woken("SIGUSR1 to process group 30 by kill", woken, sizeof woken);
    cr_assert_str_eq(woken, "10 ");
    group_woken("SIGUSR1 to every process by kill", woken, sizeof woken);
    cr_assert_str_eq(woken, "10 10 10 10 ");
    group_woken("SIGUSR1 to pid 22 by kill", woken, sizeof woken);
    cr_assert_str_eq(woken, "10 ");
}
