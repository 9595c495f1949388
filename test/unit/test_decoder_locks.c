/* test_decoder_locks.c: the sync-object analysis (decoder/holders.c) and the commands on it
 * (locks, hangs, critical-path): traces with known times, holders and releases in (1 tick =
 * 1 ns, gotrace's experimental batch built here), exact totals and blames out.
 * Invariant: each test builds its own trace (decoder_traces.h's text form). */
#include "decoder_traces.h"

#include "cli.h"
#include "cmds.h"
#include "holders.h"

/* A "raw" line holding gotrace's experimental batch of generation 1 with the records of spec:
 * "w T M ADDR REASON HOLDER" (a wait) and "r T M ADDR STACK" (a release), ';'-separated. */
static char *sync_batch(const char *spec)
{
    struct dt_buf p = {0};
    char *copy = strdup(spec), *save = NULL;
    for (char *r = strtok_r(copy, ";", &save); r; r = strtok_r(NULL, ";", &save)) {
        char kind;
        unsigned long long v[5] = {0};
        int n = sscanf(r, " %c %llu %llu %llx %llu %llu", &kind, &v[0], &v[1], &v[2], &v[3], &v[4]);
        cr_assert(n >= 5 && (kind == 'w' || kind == 'r'), "bad record \"%s\"", r);
        dt_u8(&p, kind == 'w' ? GT_SYNC_WAIT : GT_SYNC_RELEASE);
        for (int k = 0; k < (kind == 'w' ? 5 : 4); k++)
            dt_uv(&p, v[k]);
    }
    free(copy);
    return dt_sync_line(&p);
}

/* text + the batch line, malloc'd. */
static char *with_records(const char *text, const char *spec)
{
    char *line = sync_batch(spec), *all = malloc(strlen(text) + strlen(line) + 2);
    sprintf(all, "%s%s\n", text, line);
    free(line);
    return all;
}

static void analyse(const char *text, struct hd *s, int intervals)
{
    struct dt_buf t = {0};
    dt_build(&t, text);
    struct gd_dec d;
    cr_assert_eq(gd_dec_fdopen(&d, dt_memfd(t.b, t.n), 1 << 20), 0, "%s", d.err.msg);
    hd_init(s, intervals);
    cr_assert_eq(hd_run(s, &d, "t", INT64_MAX), 0);
    gd_dec_close(&d);
    dt_free(&t);
}

static struct hd_obj *obj(struct hd *s, const char *name)
{
    for (size_t i = 0; i < s->nobjs; i++)
        if (!strcmp(s->a.str.s[s->objs[i].name], name)) return &s->objs[i];
    cr_assert_fail("no object %s", name);
    return NULL;
}

static int64_t blamed(struct hd *s, struct hd_obj *o, uint64_t gid)
{
    for (size_t i = 0; i < o->nholders; i++) {
        const struct hd_share *h = &o->holders[i];
        if (gid == 0 ? h->g == HD_NONE : h->g != HD_NONE && s->a.gs[h->g].id == gid) return h->ns;
    }
    return 0;
}

/* Threads 1, 2, 3 run G1, G2, G3. G2 waits on mutex L (at 0x100) from 100 to 1000, G3 from
 * 150 to 700; G1 held L when both blocked; G1 releases it at 500 (G3 gets it), G3 at 900 (G2
 * gets it). Blame: G2's wait 400 on G1, 500 on G3 (its release and the hand-off after it);
 * G3's wait 350 + 200 on G1. */
static const char chain[] =
    "str 1 sync: mutex L\nstr 2 f\nstr 3 l.c\nstr 4 unlock\nstack 1 10 2 3 7\nstack 2 20 4 3 9\n"
    "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running\n"
    "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
    "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @150 GoBlock 1 1\n"
    "M 3: @700 GoUnblock 3 1 1; @701 GoStart 3 2\n"
    "M 2: @1000 GoUnblock 2 1 1; @1001 GoStart 2 2\n"
    "M 1: @2000 GoDestroy\n";
static const char chain_recs[] = "w 100 2 100 1 1; w 150 3 100 1 1; r 500 1 100 2; r 900 3 100 2";

Test(locks, handoff_chain_blame)
{
    char *text = with_records(chain, chain_recs);
    struct hd s;
    analyse(text, &s, 0);
    struct hd_obj *o = obj(&s, "mutex L");
    cr_assert_eq(o->waits, 2);
    cr_assert_eq(o->total, 900 + 550);
    cr_assert_eq(o->max, 900);
    cr_assert_eq(blamed(&s, o, 1), 400 + 350 + 200);
    cr_assert_eq(blamed(&s, o, 3), 500);
    cr_assert_eq(blamed(&s, o, 1) + blamed(&s, o, 3), o->total, "the parts add up");
    cr_assert_eq(o->nsites, 1);
    cr_assert_str_eq(s.a.str.s[o->sites[0].stack], "f l.c:7\n");
    for (size_t i = 0; i < o->nholders; i++) /* the release stack names the releaser's call */
        cr_assert_str_eq(s.a.str.s[o->holders[i].stack], "unlock l.c:9\n");
    hd_free(&s);
    free(text);
}

/* Without release records (a trace of Go's, or the records lost), a wait goes to the holder
 * at block time, else to "unknown"; rwlock read and write waits are one object; a reason
 * without "sync" is no object. */
Test(locks, holder_at_block_time_and_rwlock_modes)
{
    char *text = with_records(
        "str 1 sync: rwlock read T\nstr 2 sync: rwlock write T\nstr 3 sleep\nstr 4 sync: mutex M\n"
        "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running; @100 GoBlock 1 0;"
        " @300 GoUnblock 1 1 0; @301 GoStart 1 2; @400 GoBlock 2 0; @450 GoUnblock 1 3 0;"
        " @451 GoStart 1 4; @500 GoBlock 3 0; @600 GoUnblock 1 5 0; @601 GoStart 1 6;"
        " @700 GoBlock 4 0; @760 GoUnblock 1 7 0; @761 GoStart 1 8\n"
        "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @3000 GoDestroy\n",
        "w 100 1 200 1 2; w 400 1 200 2 2");
    struct hd s;
    analyse(text, &s, 0);
    struct hd_obj *t = obj(&s, "rwlock T");
    cr_assert_eq(t->waits, 2);
    cr_assert_eq(t->total, 200 + 50);
    cr_assert_eq(blamed(&s, t, 2), 250, "the writer (thread 2) held it");
    struct hd_obj *m = obj(&s, "mutex M");
    cr_assert_eq(m->waits, 1);
    cr_assert_eq(blamed(&s, m, 0), 60, "no record: the holder is unknown");
    for (size_t i = 0; i < s.nobjs; i++)
        cr_assert(strcmp(s.a.str.s[s.objs[i].name], "sleep"), "sleep is no sync object");
    hd_free(&s);
    free(text);
}

static char *run(int (*cmd)(int, char **), const char *text, const char *const *args, int want)
{
    char *out = NULL;
    int rc = dt_command(cmd, text, args, &out);
    cr_assert_eq(rc, want, "exit status %d, output:\n%s", rc, out);
    return out;
}

Test(locks, locks_command)
{
    char *text = with_records(chain, chain_recs);
    char *out = run(gd_cmd_locks, text, (const char *const[]){"--holders", NULL}, 0);
    cr_assert(strstr(out, "1 sync objects, 2 waits, total wait 1.45us"), "%s", out);
    cr_assert(strstr(out, "#1  mutex L  waits=2  total=1.45us  avg=725ns  max=900ns"), "%s", out);
    cr_assert(strstr(out, "  held by G1: blamed 950ns in 2 waits, released at:\n"
                          "      unlock l.c:9\n"),
              "%s", out);
    cr_assert(strstr(out, "  held by f (G3): blamed 500ns in 1 waits"), "%s", out);
    cr_assert(strstr(out, "held by G1") < strstr(out, "held by f (G3)"), "by blamed time");
    free(out);
    free(text);
}

Test(locks, contention_shows_holders)
{
    char *text = with_records(chain, chain_recs);
    char *out = run(gd_cmd_contention, text, NULL, 0);
    cr_assert(strstr(out, "#1  sync: mutex L  waits=2  total=1.45us"), "%s", out);
    cr_assert(strstr(out, "  held by: G1 (950ns), f (G3) (500ns)\n"), "%s", out);
    /* Both waits ended themselves (their waiters' own GoUnblocks) after a release: G3's after
     * G1's, G2's after G3's, which let them go on. */
    cr_assert(strstr(out, "  woken by: (released by G1) (1), (released by f) (1)\n"), "%s", out);
    free(out);
    /* The summary's reason lines name the holder blamed most. */
    out = run(gd_cmd_summary, text, NULL, 0);
    cr_assert(strstr(out, "in 1 waits, 56% held by f\n"), "%s", out);
    cr_assert(strstr(out, "in 1 waits, 100% held by G1\n"), "%s", out);
    free(out);
    /* The export names the holder at block time of each blocked slice. */
    out = run(gd_cmd_export, text, (const char *const[]){"--format", "chrome", "-o", "-", NULL}, 0);
    cr_assert(strstr(out, "\"name\":\"blocked: sync: mutex L\",\"args\":{\"holder\":\"G1\"}}"),
              "%s", out);
    free(out);
    free(text);
}

/* G2 waits on A (0xa) held by G3, G3 on B (0xb) held by G2, both in pthread_mutex_lock: a
 * deadlock at the end (30 ms, past the 10 ms a wait must last to be judged); G4 waits on a
 * condvar: blocked, no holder; G1 runs to the end, so the program as a whole could go on. */
static const char abba_text[] =
    "str 1 sync: mutex A\nstr 2 sync: mutex B\nstr 3 sync: condvar C\nstr 4 pthread_mutex_lock\n"
    "str 5 pthread_cond_wait\nstr 9 f\nstack 1 10 4 0 0 11 9 0 0\nstack 2 20 5 0 0 21 9 0 0\n"
    "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running\n"
    "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
    "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @110 GoBlock 2 1\n"
    "M 4: @40 ProcStatus 3 Running; @41 GoStatus 4 4 Running; @120 GoBlock 3 2\n"
    "M 1: @30000000 GoSyscallBegin 1 0; @30000001 GoSyscallEnd\n";

/* text with the first "from" replaced by "to", malloc'd. */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    cr_assert(p, "no \"%s\" in the trace text", from);
    char *out = malloc(strlen(text) + strlen(to) + 1);
    sprintf(out, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
    return out;
}

Test(locks, hangs_finds_the_cycle)
{
    char *text = with_records(abba_text, "w 100 2 a 1 3; w 110 3 b 2 2");
    char *out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, ": 3 threads blocked\n"), "%s", out);
    cr_assert(strstr(out, "\ndeadlock: f (G2) waiting on mutex A held by f (G3) waiting on mutex B "
                          "held by f (G2)\n"),
              "%s", out);
    cr_assert(strstr(out, "f (G4)  waiting on condvar C  for 30.00ms (since 110ns)\n"), "%s", out);
    cr_assert(strstr(out, "\nnot every thread is stuck: G1 running\n"), "%s", out);
    cr_assert(strstr(out, "holder: none known"), "%s", out);
    cr_assert(strstr(out, "\n1 deadlock\n"), "%s", out);
    free(out);
    /* At 95 ns after the start (the first event, 10): only G2 waits, on G3 running. */
    out = run(gd_cmd_hangs, text, (const char *const[]){"--at", "95", NULL}, 0);
    cr_assert(strstr(out, ": 1 threads blocked\n"), "%s", out);
    cr_assert(strstr(out, "held by G3, running\n"), "%s", out); /* G3 has no stack yet */
    cr_assert(strstr(out, "\n0 deadlocks\n"), "%s", out);
    free(out);
    free(text);
}

/* The same cycle in pthread_mutex_timedlock: each wait ends at its timeout, so the program goes
 * on: no deadlock (the threads are said to wait with a timeout). */
Test(locks, hangs_timed_waits_are_no_deadlock)
{
    char *t = replaced(abba_text, "str 4 pthread_mutex_lock", "str 4 pthread_mutex_timedlock");
    char *text = with_records(t, "w 100 2 a 1 3; w 110 3 b 2 2");
    char *out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, "\nno deadlock: not every thread is stuck: G1 running; f (G2) waiting "
                          "on mutex A (a wait with a timeout); f (G3) waiting on mutex B (a wait "
                          "with a timeout)\n"),
              "%s", out);
    cr_assert(strstr(out, "\n0 deadlocks\n"), "%s", out);
    free(out);
    free(text);
    free(t);
}

/* Item 1 of issue 46: G1 takes L, then blocks in read() (a system call) from 50 ns to 30 ms;
 * G2 (from 100) and G3 (from 200) wait for L; G1 releases it at 30 ms, G2 gets it (its wait
 * ends at 30.00001 ms) and keeps it; G3 waits to the end (50 ms). */
static const char reader_text[] =
    "str 1 sync: mutex L\nstr 2 pthread_mutex_lock\nstr 3 read\nstr 4 f\nstr 5 l.c\n"
    "str 6 pthread_mutex_unlock\n"
    "stack 1 10 2 0 0 11 4 5 3\nstack 2 20 3 0 0 21 4 5 9\nstack 3 30 6 0 0 31 4 5 12\n"
    "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running; @50 GoSyscallBegin 1 2;"
    " @30000000 GoSyscallEnd; @30000010 GoUnblock 2 1 3; @50000000 GoDestroy\n"
    "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1;"
    " @30000100 GoStart 2 2\n"
    "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @200 GoBlock 1 1\n";
static const char reader_recs[] = "w 100 2 100 1 1; w 200 3 100 1 1; r 30000005 1 100 3";

Test(locks, hangs_at_names_the_holder_in_read)
{
    char *text = with_records(reader_text, reader_recs);
    /* At 20 ms G1 still holds L, blocked in read(): its release at 30 ms is after T. */
    char *out = run(gd_cmd_hangs, text, (const char *const[]){"--at", "20ms", NULL}, 0);
    cr_assert(strstr(out, "f (G2)  waiting on mutex L  for 20.00ms (since 90ns)\n"
                          "      pthread_mutex_lock\n      f l.c:3\n"
                          "  held by f (G1), in a system call (read)\n"
                          "      read\n      f l.c:9\n"),
              "%s", out);
    cr_assert(!strstr(out, "released"), "%s", out);
    cr_assert(
        strstr(out, "no deadlock: not every thread is stuck: f (G1) in a system call (read)\n"),
        "%s", out);
    free(out);
    /* At 40 ms G1 released it (at 30 ms) and G2, which waited, got it: G3 waits for G2. */
    out = run(gd_cmd_hangs, text, (const char *const[]){"--at", "40ms", NULL}, 0);
    cr_assert(strstr(out, "f (G3)  waiting on mutex L  for 40.00ms (since 190ns)\n"), "%s", out);
    cr_assert(strstr(out, "  held by f (G2) since 30.00ms (f (G1) released it then), running\n"),
              "%s", out);
    free(out);
    /* A window of the critical path ending inside G2's wait (20 ms) leads to G1's read(). */
    out = run(gd_cmd_critical_path, text,
              (const char *const[]){"--thread", "G2", "--to", "20ms", NULL}, 0);
    cr_assert(strstr(out, "        40ns    20.00ms  syscall   f (G1)\n"), "%s", out);
    free(out);
    free(text);
}

/* Item 2: G2 takes L and exits at 1 ms holding it; G3 waits for L from 100 ns (holder: thread
 * 2); G1 joins G3 from 300 ns; G4 runs to 40 ms and exits. G3 can never go on: a deadlock, and
 * G1 behind it. */
static const char exited_text[] =
    "str 1 sync: mutex L\nstr 2 sync: join\nstr 3 pthread_mutex_lock\nstr 4 pthread_join\n"
    "str 5 f\nstack 1 10 3 0 0 11 5 0 0\nstack 2 20 4 0 0 21 5 0 0\n"
    "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running; @300 GoBlock 2 2\n"
    "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @1000010 GoDestroy\n"
    "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @100 GoBlock 1 1\n"
    "M 4: @40 ProcStatus 3 Running; @41 GoStatus 4 4 Running; @40000000 GoDestroy\n";

Test(locks, hangs_holder_exited_holding_the_lock)
{
    char *text = with_records(exited_text, "w 100 3 100 1 2; w 300 1 200 2 3");
    char *out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, "\ndeadlock: f (G3) waiting on mutex L held by G2, which exited at "
                          "1.00ms holding it\n  behind it: f (G1) waiting on join f (G3)\n"),
              "%s", out);
    cr_assert(strstr(out, "  held by G2, exited at 1.00ms holding it (deadlock)\n"), "%s", out);
    cr_assert(strstr(out, "\n1 deadlock\n"), "%s", out);
    free(out);
    /* Before the exit G2 runs: no verdict. */
    out = run(gd_cmd_hangs, text, (const char *const[]){"--at", "500000", NULL}, 0);
    cr_assert(strstr(out, "  held by G2, running\n"), "%s", out);
    cr_assert(strstr(out, "\n0 deadlocks\n"), "%s", out);
    free(out);
    /* The critical path of G1 (joining G3) leads to G3's wait, then G2's work before it exited. */
    out = run(gd_cmd_critical_path, text, (const char *const[]){"--thread", "G1", NULL}, 0);
    cr_assert(strstr(out, "deadlock: held by G2, which exited holding it\n"), "%s", out);
    cr_assert(strstr(out, "   97.5%     39.00ms  f (G3)\n"), "%s", out);
    free(out);
    free(text);
}

/* Item 5: G2 waits on semaphore SA, G3 on SB (each posted only by the other), G1 joins G2; G4
 * exits at 40 ms. No owner, no cycle of holders, yet no thread can move. SPEC replaces "SA SB":
 * the objects' names, the end (G4's exit) and G3's call vary by test. */
static char *sems(const char *a, const char *b, const char *g3call, const char *end)
{
    char buf[2000];
    snprintf(buf, sizeof buf,
             "str 1 sync: semaphore %s\nstr 2 sync: semaphore %s\nstr 3 sync: join\n"
             "str 4 sem_wait\nstr 5 pthread_join\nstr 6 %s\nstr 7 f\nstack 1 10 4 0 0 11 7 0 0\n"
             "stack 2 20 5 0 0 21 7 0 0\nstack 3 30 6 0 0 31 7 0 0\n"
             "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running; @300 GoBlock 3 2\n"
             "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
             "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @110 GoBlock 2 3\n"
             "M 4: @40 ProcStatus 3 Running; @41 GoStatus 4 4 Running; @%s GoDestroy\n",
             a, b, g3call, end);
    return with_records(buf, "w 300 1 200 3 2");
}

Test(locks, hangs_no_thread_can_move)
{
    char *text = sems("sem_a", "sem_b", "sem_wait", "40000000");
    char *out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, "\ndeadlock: no thread can make progress: f (G1) waiting on join f (G2); "
                          "f (G2) waiting on semaphore sem_a; f (G3) waiting on semaphore sem_b\n"),
              "%s", out);
    cr_assert(strstr(out, "\n1 deadlock\n"), "%s", out);
    free(out);
    /* The critical path of the main thread leads into G2's wait. */
    out = run(gd_cmd_critical_path, text, (const char *const[]){"--thread", "G1", NULL}, 0);
    cr_assert(strstr(out, "  100.0%     40.00ms  f (G2)\n"), "%s", out);
    free(out);
    free(text);
    /* Objects known by address only: another process may post them. */
    text = sems("0x5600 from f (f.c:3)", "0x5608 from f (f.c:3)", "sem_wait", "40000000");
    out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, "\nno deadlock: not every thread is stuck: f (G2) waiting on semaphore "
                          "0x5600 from f (f.c:3) (the object may be shared with another process)"),
              "%s", out);
    cr_assert(strstr(out, "\n0 deadlocks\n"), "%s", out);
    free(out);
    free(text);
    /* G3 in sem_timedwait: it goes on at its timeout. */
    text = sems("sem_a", "sem_b", "sem_timedwait", "40000000");
    out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, "f (G3) waiting on semaphore sem_b (a wait with a timeout)"), "%s", out);
    cr_assert(strstr(out, "\n0 deadlocks\n"), "%s", out);
    free(out);
    free(text);
    /* The trace ends 5 ms after the last wait began: too soon to judge. */
    text = sems("sem_a", "sem_b", "sem_wait", "5000000");
    out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(!strstr(out, "\ndeadlock:"), "%s", out);
    cr_assert(strstr(out, "\n0 deadlocks\n"), "%s", out);
    free(out);
    free(text);
}

/* A lost wake-up: G3 signalled the condvar and exited (at 50 ns) before G2 waited on it (from
 * 100 ns, without a predicate); G1 joins G2; G4 exits at 40 ms. */
Test(locks, hangs_lost_wakeup)
{
    char *text = with_records(
        "str 1 sync: condvar wake_cv\nstr 2 sync: join\nstr 3 pthread_cond_wait\n"
        "str 4 pthread_join\nstr 5 f\nstack 1 10 3 0 0 11 5 0 0\nstack 2 20 4 0 0 21 5 0 0\n"
        "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running; @300 GoBlock 2 2\n"
        "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
        "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @50 GoDestroy\n"
        "M 4: @40 ProcStatus 3 Running; @41 GoStatus 4 4 Running; @40000000 GoDestroy\n",
        "w 300 1 200 2 2");
    char *out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, "\ndeadlock: no thread can make progress: f (G1) waiting on join f (G2); "
                          "f (G2) waiting on condvar wake_cv\n"),
              "%s", out);
    free(out);
    free(text);
}

/* The negative: G2 (consumer) waits on a condvar that G3 (producer, asleep: reason "sleep")
 * will signal; G1 joins G2; the trace ends at 40 ms, mid-sleep. A sleep ends by itself: no
 * deadlock, and the line says who can still move. */
Test(locks, hangs_sleeping_producer_is_no_deadlock)
{
    char *text = with_records(
        "str 1 sync: condvar data_ready\nstr 2 sync: join\nstr 3 pthread_cond_wait\n"
        "str 4 pthread_join\nstr 5 sleep\nstr 6 f\nstack 1 10 3 0 0 11 6 0 0\n"
        "stack 2 20 4 0 0 21 6 0 0\nstack 3 30 5 0 0 31 6 0 0\n"
        "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running; @300 GoBlock 2 2\n"
        "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
        "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @110 GoBlock 5 3\n"
        "M 4: @40 ProcStatus 3 Running; @41 GoStatus 4 4 Running; @40000000 GoDestroy\n",
        "w 300 1 200 2 2");
    char *out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, "\nno deadlock: not every thread is stuck: f (G3) sleeping\n"), "%s",
              out);
    cr_assert(strstr(out, "\n0 deadlocks\n"), "%s", out);
    cr_assert(!strstr(out, "\ndeadlock:"), "%s", out);
    free(out);
    free(text);
}

/* Item 6: the critical path of the main thread of abba_text, extended with G1 joining G2 until
 * the end: it follows G1's join to G2, G2's wait to G3, G3's to G2 again at the same time (a
 * cycle): G3's wait is the path, noted, and the walk goes on back along G3. */
Test(locks, critical_path_into_a_deadlock)
{
    char *t = replaced(abba_text, "M 1: @30000000 GoSyscallBegin 1 0; @30000001 GoSyscallEnd\n",
                       "str 6 sync: join\nstr 7 pthread_join\nstr 8 main\n"
                       "stack 3 30 7 0 0 31 8 0 0\nM 1: @500 GoBlock 6 3\n"
                       "M 5: @50 ProcStatus 4 Running; @51 GoStatus 5 5 Running;"
                       " @30000000 GoDestroy\n");
    char *text = with_records(t, "w 100 2 a 1 3; w 110 3 b 2 2; w 500 1 c 6 2");
    free(t);
    char *out = run(gd_cmd_critical_path, text, NULL, 0);
    cr_assert(strstr(out, "critical path of the main thread main (G1): 1ns .. 30.00ms"), "%s", out);
    cr_assert(strstr(out, "  100.0%     30.00ms  f (G3)\n"), "%s", out);
    cr_assert(strstr(out, "deadlock: held by f (G2), which waits for f (G3)\n"), "%s", out);
    free(out);
    out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, "\ndeadlock: f (G2) waiting on mutex A held by f (G3) waiting on mutex B "
                          "held by f (G2)\n  behind it: main (G1) waiting on join f (G2)\n"),
              "%s", out);
    cr_assert(strstr(out, "no thread can make progress"), "%s", out);
    free(out);
    free(text);
}

/* G1 holds L; G2 waits on it from 100 to the end, at a stack of 8 frames whose leaf, the hook,
 * has no line but its module; G1 releases L at 500 from a hook frame of an older trace (no
 * file either). locks shows 6 frames of a stack, hangs all, both in the one text form. */
Test(locks, stack_texts)
{
    char *text = with_records(
        "str 1 sync: mutex L\nstr 2 pthread_mutex_lock\nstr 3 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "str 4 f\nstr 5 l.c\nstr 6 pthread_mutex_unlock\n"
        "stack 1 10 2 3 0 11 4 5 1 12 4 5 2 13 4 5 3 14 4 5 4 15 4 5 5 16 4 5 6 17 4 5 7\n"
        "stack 2 20 6 0 0 21 4 5 9\n"
        "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running\n"
        "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
        "M 1: @1000 GoDestroy\n",
        "w 100 2 100 1 1; r 500 1 100 2");
    char *out = run(gd_cmd_locks, text, (const char *const[]){"--holders", NULL}, 0);
    cr_assert(strstr(out, "  waited 1 times, 901ns, at:\n"
                          "      pthread_mutex_lock (libc.so.6)\n"
                          "      f l.c:1\n      f l.c:2\n      f l.c:3\n      f l.c:4\n"
                          "      f l.c:5\n"
                          "  held by G1: blamed 901ns in 1 waits, released at:\n"
                          "      pthread_mutex_unlock\n"
                          "      f l.c:9\n"),
              "%s", out);
    free(out);
    out = run(gd_cmd_hangs, text, NULL, 0);
    cr_assert(strstr(out, "\n      pthread_mutex_lock (libc.so.6)\n      f l.c:1\n"), "%s", out);
    cr_assert(strstr(out, "\n      f l.c:6\n      f l.c:7\n"), "%s", out);
    free(out);
    free(text);
}

/* G1 (main) waits from 100 until G2 wakes it at 900, runs from 910 to its end at 1000; G2 runs
 * from 40 (its status) to 900. The path from G1's end: 90 running + 10 runnable on G1, then
 * G2's 860 running, then 20 before G2 appears; 980 = G1's lifetime (20 to 1000). */
static const char woken[] = "str 1 sync: join\nstr 2 main\nstack 1 5 2 0 1\n"
                            "M 1: @10 ProcStatus 0 Running; @20 GoStatus 1 1 Running;"
                            " @100 GoBlock 1 1\n"
                            "M 2: @30 ProcStatus 1 Running; @40 GoStatus 2 2 Running;"
                            " @900 GoUnblock 1 1 0; @950 GoDestroy\n"
                            "M 1: @910 GoStart 1 2; @1000 GoDestroy\n";

Test(locks, critical_path_through_a_wakeup)
{
    char *out = run(gd_cmd_critical_path, woken, NULL, 0);
    cr_assert(strstr(out, "critical path of the main thread main (G1): 10ns .. 990ns, 980ns"), "%s",
              out);
    cr_assert(strstr(out, "   87.8%       860ns  G2\n"), "%s", out);
    cr_assert(strstr(out, "   10.2%       100ns  main (G1)\n"), "%s", out);
    cr_assert(strstr(out, "    2.0%        20ns  (before the trace)\n"), "%s", out);
    free(out);
    out = run(gd_cmd_critical_path, woken, (const char *const[]){"--from", "500", NULL}, 0);
    cr_assert(strstr(out, ": 500ns .. 990ns, 490ns"), "%s", out);
    cr_assert(strstr(out, "   79.6%       390ns  G2\n"), "%s", out);
    free(out);
}

/* A window ending inside a lock wait (--to 600 in G2's wait of chain): the walk looks at the
 * releases up to 600 only (G1's at 500), never at G3's at 900, after the window: the segments
 * cover the window exactly (shares add up to 100 %) and G3 is not on the path. */
Test(locks, critical_path_window_ends_inside_a_wait)
{
    char *text = with_records(chain, chain_recs);
    char *out = run(gd_cmd_critical_path, text,
                    (const char *const[]){"--thread", "G2", "--to", "600", NULL}, 0);
    cr_assert(strstr(out, "): 11ns .. 600ns, 589ns, 2 segments\n"), "%s", out);
    cr_assert(strstr(out, "   81.3%       479ns  G1\n   18.7%       110ns  f (G2)\n"), "%s", out);
    cr_assert(strstr(out, " 490ns      110ns  hand-off  f (G2)"), "%s", out);
    cr_assert(!strstr(out, "G3"), "%s", out);
    free(out);
    free(text);
}

/* Nothing holds a condvar: G2 waits on C (0xc) from 100 until G1 signals it at 600 (stack
 * signal c.c:9); G3 from 200 until its own call returns at 400 (a timeout: its GoUnblock on its
 * own thread, with its stack); G4 from 300 to the end (1001). G2's wait record says thread 1
 * held C and a release record of C by thread 1 falls inside G2's wait (what the tracer never
 * writes for a condvar; a reused address could): neither makes anyone a holder. */
static const char cond[] =
    "str 1 sync: condvar C\nstr 2 wait\nstr 3 c.c\nstr 4 signal\n"
    "stack 1 10 2 3 7\nstack 2 20 4 3 9\n"
    "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running\n"
    "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
    "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @200 GoBlock 1 1\n"
    "M 4: @40 ProcStatus 3 Running; @41 GoStatus 4 4 Running; @300 GoBlock 1 1\n"
    "M 3: @400 GoUnblock 3 1 1; @401 GoStart 3 2\n"
    "M 1: @600 GoUnblock 2 1 2\n"
    "M 2: @610 GoStart 2 2\n"
    "M 1: @1000 GoDestroy\n";
static const char cond_recs[] = "w 100 2 c 1 1; w 200 3 c 1 0; w 300 4 c 1 0; r 500 1 c 2";

/* The "locks" part of a report page (up to the critical path's data). */
static char *report_locks(const char *text)
{
    char *out = NULL;
    int rc = dt_command(gd_cmd_report, text, (const char *const[]){"-o", "-", NULL}, &out);
    cr_assert_eq(rc, 0, "report: %d", rc);
    char *p = strstr(out, "\"locks\":"), *e = p ? strstr(p, "\"critical") : NULL;
    cr_assert(p && e, "no locks in the page");
    *e = 0;
    memmove(out, p, strlen(p) + 1);
    return out;
}

Test(locks, condvar_signalled_by)
{
    char *text = with_records(cond, cond_recs);
    struct hd s;
    analyse(text, &s, 0);
    struct hd_obj *o = obj(&s, "condvar C");
    cr_assert_eq(o->kind, HD_CONDVAR);
    cr_assert_eq(o->waits, 3);
    cr_assert_eq(o->total, 500 + 200 + 701);
    cr_assert_eq(blamed(&s, o, 1), 500, "G1 signalled");
    cr_assert_eq(blamed(&s, o, 0), 200, "G3's wait ended itself");
    hd_free(&s);
    char *out = run(gd_cmd_locks, text, (const char *const[]){"--holders", NULL}, 0);
    cr_assert(strstr(out, "#1  condvar C  waits=3  total=1.40us  avg=467ns  max=701ns\n"), "%s",
              out);
    cr_assert(strstr(out, "  (still waiting at trace end): 701ns in 1 waits\n"
                          "  signalled by G1: 500ns in 1 waits, signalled at:\n"
                          "      signal c.c:9\n"
                          "  (ended itself: no waker recorded): 200ns in 1 waits\n"),
              "%s", out);
    cr_assert(!strstr(out, "held by"), "%s", out);
    free(out);
    out = run(gd_cmd_summary, text, NULL, 0);
    cr_assert(strstr(out, "500ns in 1 waits, 100% signalled by G1\n"), "%s", out);
    cr_assert(strstr(out, "200ns in 1 waits, 100% (ended itself: no waker recorded)\n"), "%s", out);
    cr_assert(strstr(out, "701ns in 1 waits, 100% (still waiting at trace end)\n"), "%s", out);
    cr_assert(!strstr(out, "held by"), "%s", out);
    free(out);
    out = run(gd_cmd_contention, text, NULL, 0);
    cr_assert(strstr(out, "  woken by: (ended itself: no waker recorded) (1), (still waiting at "
                          "trace end) (1), G1 (1)\n  signalled by: G1 (500ns)\n"),
              "%s", out);
    cr_assert(!strstr(out, "held by"), "%s", out);
    free(out);
    out = run(gd_cmd_export, text, (const char *const[]){"--format", "chrome", "-o", "-", NULL}, 0);
    cr_assert(strstr(out, "\"blocked: sync: condvar C\""), "%s", out);
    cr_assert(!strstr(out, "\"holder\""), "a condvar wait has no holder: %s", out);
    free(out);
    out = report_locks(text);
    cr_assert(strstr(out, "[\"signalled by G1\",500,1,\"signal c.c:9\\u000a\"]"), "%s", out);
    cr_assert(strstr(out, "[\"(ended itself: no waker recorded)\",200,1,\"\"]"), "%s", out);
    cr_assert(strstr(out, "[\"(still waiting at trace end)\",701,1,\"\"]"), "%s", out);
    cr_assert(strstr(out, "],\"signalled\"]"), "%s", out);
    cr_assert(!strstr(out, "held by") && !strstr(out, "before the trace"), "%s", out);
    free(out);
    free(text);
}

/* G2 waits on futex word F (0x200, no lock type known: hooks/futex.c) from 100 until G1's wake
 * at 500; G3 waits on an OpenMP critical section (0x300) from 150 to 700, and G1 releases it
 * twice inside (400 and 420: libomp's futex wake after the hook's own record). Blame: F's wait
 * is woken by G1, no holder; the section's 550 ns held by G1, counted as one wait. */
static const char futexes[] =
    "str 1 sync: futex F\nstr 2 f\nstr 3 l.c\nstr 4 wake\nstr 5 sync: omp critical\n"
    "stack 1 10 2 3 7\nstack 2 20 4 3 9\n"
    "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running\n"
    "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
    "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @150 GoBlock 5 1\n"
    "M 1: @500 GoUnblock 2 1 2\n"
    "M 2: @501 GoStart 2 2\n"
    "M 3: @700 GoUnblock 3 1 1; @701 GoStart 3 2\n"
    "M 1: @2000 GoDestroy\n";
static const char futexes_recs[] =
    "w 100 2 200 1 0; w 150 3 300 5 0; r 400 1 300 2; r 420 1 300 2; r 500 1 200 2";

Test(locks, futex_woken_by_and_one_holder_releasing_twice)
{
    char *text = with_records(futexes, futexes_recs);
    struct hd s;
    analyse(text, &s, 0);
    struct hd_obj *f = obj(&s, "futex F"), *c = obj(&s, "omp critical");
    cr_assert_eq(f->kind, HD_FUTEX);
    cr_assert_eq(blamed(&s, f, 1), 400, "G1 woke it");
    cr_assert_eq(c->kind, HD_LOCK);
    cr_assert_eq(c->waits, 1);
    cr_assert_eq(blamed(&s, c, 1), 550, "G1 held it");
    hd_free(&s);
    char *out = run(gd_cmd_locks, text, (const char *const[]){"--holders", NULL}, 0);
    cr_assert(strstr(out, "  woken by G1: 400ns in 1 waits, woke it at:\n      wake l.c:9\n"), "%s",
              out);
    cr_assert(strstr(out, "  held by G1: blamed 550ns in 1 waits, released at:\n"), "%s", out);
    free(out);
    free(text);
}

/* G2 waits on semaphore S (0x5) from 100 until producer (G3) posts at 500, then from 600 until
 * G1 posts at 700; G3 waits on S from 800 until its sem_timedwait times out at 900. */
Test(locks, semaphore_posted_by)
{
    char *text =
        with_records("str 1 sync: semaphore S\nstr 2 take\nstr 3 s.c\nstr 4 post\nstr 5 producer\n"
                     "stack 1 10 2 3 7\nstack 2 20 4 3 9\n"
                     "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running\n"
                     "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
                     "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @32 GoLabel 5;"
                     " @500 GoUnblock 2 1 2\n"
                     "M 2: @510 GoStart 2 2; @600 GoBlock 1 1\n"
                     "M 1: @700 GoUnblock 2 3 2\n"
                     "M 2: @710 GoStart 2 4\n"
                     "M 3: @800 GoBlock 1 1; @900 GoUnblock 3 1 1; @901 GoStart 3 2\n"
                     "M 1: @1000 GoDestroy\n",
                     "w 100 2 5 1 0; w 600 2 5 1 0; w 800 3 5 1 0");
    char *out = run(gd_cmd_locks, text, (const char *const[]){"--holders", NULL}, 0);
    cr_assert(strstr(out, "#1  semaphore S  waits=3  total=600ns"), "%s", out);
    cr_assert(strstr(out, "  posted by producer (G3 take): 400ns in 1 waits, posted at:\n"
                          "      post s.c:9\n"
                          "  posted by G1: 100ns in 1 waits, posted at:\n"
                          "      post s.c:9\n"
                          "  (ended itself: no waker recorded): 100ns in 1 waits\n"),
              "%s", out);
    cr_assert(!strstr(out, "held by"), "%s", out);
    free(out);
    out = run(gd_cmd_summary, text, NULL, 0);
    cr_assert(strstr(out, "500ns in 2 waits, 80% posted by producer (take)\n"), "%s", out);
    cr_assert(strstr(out, "100ns in 1 waits, 100% (ended itself: no waker recorded)\n"), "%s", out);
    free(out);
    out = run(gd_cmd_contention, text, NULL, 0);
    cr_assert(strstr(out, "  posted by: producer (G3 take) (400ns), G1 (100ns)\n"), "%s", out);
    free(out);
    free(text);
}

/* A barrier of 3: G2 arrives at 100, G3 at 200, G4 at 300 and completes the round (wakes both,
 * stack arrive b.c:9, and does not wait); then G4 at 400, G2 at 450, G3 at 500 completes it. */
Test(locks, barrier_arrived_last)
{
    char *text = with_records(
        "str 1 sync: barrier B\nstr 2 meet\nstr 3 b.c\nstr 4 arrive\n"
        "stack 1 10 2 3 7\nstack 2 20 4 3 9\n"
        "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running\n"
        "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
        "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @200 GoBlock 1 1\n"
        "M 4: @40 ProcStatus 3 Running; @41 GoStatus 4 4 Running; @300 GoUnblock 2 1 2;"
        " @301 GoUnblock 3 1 2; @400 GoBlock 1 1\n"
        "M 2: @310 GoStart 2 2; @450 GoBlock 1 1\n"
        "M 3: @320 GoStart 3 2; @500 GoUnblock 4 1 2; @501 GoUnblock 2 3 2\n"
        "M 4: @510 GoStart 4 2\n"
        "M 2: @520 GoStart 2 4\n"
        "M 1: @1000 GoDestroy\n",
        "w 100 2 b 1 0; w 200 3 b 1 0; w 400 4 b 1 0; w 450 2 b 1 0");
    struct hd s;
    analyse(text, &s, 0);
    struct hd_obj *o = obj(&s, "barrier B");
    cr_assert_eq(o->kind, HD_BARRIER);
    cr_assert_eq(o->waits, 4);
    cr_assert_eq(blamed(&s, o, 4), 200 + 101, "G4 completed the first round");
    cr_assert_eq(blamed(&s, o, 3), 100 + 51, "G3 the second");
    hd_free(&s);
    char *out = run(gd_cmd_locks, text, (const char *const[]){"--holders", NULL}, 0);
    cr_assert(strstr(out, "  meet (G4) arrived last: 301ns in 2 waits, arrived at:\n"
                          "      arrive b.c:9\n"
                          "  meet (G3) arrived last: 151ns in 2 waits, arrived at:\n"),
              "%s", out);
    cr_assert(!strstr(out, "held by"), "%s", out);
    free(out);
    out = run(gd_cmd_summary, text, NULL, 0);
    cr_assert(strstr(out, "251ns in 2 waits, 80% meet arrived last\n"), "G2: %s", out);
    free(out);
    out = run(gd_cmd_contention, text, NULL, 0);
    cr_assert(strstr(out, "  arrived last: meet (G4) (301ns), meet (G3) (151ns)\n"), "%s", out);
    free(out);
    free(text);
}

/* What ended a wait no goroutine woke: G2 sleeps from 100 until its own call returns at 300
 * (its GoUnblock on its thread, with its stack: libgotrace.so's); G3 from 150 until a wake-up
 * without a goroutine and without a stack at 400 on another thread (Go's runtime: a timer). */
Test(locks, what_ended_a_wait)
{
    char *out = run(gd_cmd_contention,
                    "str 1 sleep\nstr 2 nap\nstr 3 n.c\nstack 1 10 2 3 7\nstack 2 20 2 3 8\n"
                    "M 1: @10 ProcStatus 0 Running; @11 GoStatus 1 1 Running\n"
                    "M 2: @20 ProcStatus 1 Running; @21 GoStatus 2 2 Running; @100 GoBlock 1 1\n"
                    "M 3: @30 ProcStatus 2 Running; @31 GoStatus 3 3 Running; @150 GoBlock 1 2\n"
                    "M 2: @300 GoUnblock 2 1 1; @301 GoStart 2 2\n"
                    "M 4: @35 ProcStatus 3 Running; @400 GoUnblock 3 1 0\n"
                    "M 3: @410 GoStart 3 2\n"
                    "M 1: @1000 GoDestroy\n",
                    NULL, 0);
    cr_assert(strstr(out, "    nap n.c:7\n  woken by: (ended itself: no waker recorded) (1)\n"),
              "%s", out);
    cr_assert(strstr(out, "    nap n.c:8\n  woken by: (no goroutine) (1)\n"), "%s", out);
    free(out);
}

Test(locks, usage_errors)
{
    free(run(gd_cmd_locks, woken, (const char *const[]){"--at", "1s", NULL}, GD_EXIT_USAGE));
    free(run(gd_cmd_hangs, woken, (const char *const[]){"--at", "soon", NULL}, GD_EXIT_USAGE));
    free(run(gd_cmd_critical_path, woken, (const char *const[]){"--task", "0", NULL},
             GD_EXIT_USAGE));
    free(run(gd_cmd_critical_path, woken, (const char *const[]){"--thread", "nobody", NULL},
             GD_EXIT_USAGE));
    free(run(gd_cmd_critical_path, woken, (const char *const[]){"--region", "r", NULL},
             GD_EXIT_USAGE));
    int64_t ns;
    cr_assert_eq(hd_parse_time("1.5s", &ns), 0);
    cr_assert_eq(ns, 1500000000);
    cr_assert_eq(hd_parse_time("20us", &ns), 0);
    cr_assert_eq(ns, 20000);
    cr_assert_eq(hd_parse_time("7", &ns), 0);
    cr_assert_eq(ns, 7);
    cr_assert_eq(hd_parse_time("3 ms", &ns), -1);
    cr_assert_eq(hd_parse_time("-1ms", &ns), -1);
}

/* The report's data carry the same verdicts: exited_text's deadlock (kind "exited", its holder
 * and exit time, main behind it) and the critical path's note. */
Test(locks, report_has_the_hangs)
{
    char *text = with_records(exited_text, "w 100 3 100 1 2; w 300 1 200 2 3");
    char *out = run(gd_cmd_report, text, (const char *const[]){"-o", "-", NULL}, 0);
    cr_assert(strstr(out, "\"deadlocks\":[[\"exited\",[[\"f (G3)\",\"waiting on mutex L\",\"G2\"]],"
                          "\"G2\",1000000,[[\"f (G1)\",\"waiting on join f (G3)\",\"\"]]]]"),
              "%.3000s", strstr(out, "\"hangs\"") ? strstr(out, "\"hangs\"") : out);
    cr_assert(strstr(out, "\"held by G2, exited at 1.00ms holding it (deadlock)\""), "%s",
              strstr(out, "\"hangs\""));
    cr_assert(strstr(out, "\"deadlock: held by G2, which exited holding it\""), "%s",
              strstr(out, "\"critical_path\""));
    free(out);
    free(text);
}
