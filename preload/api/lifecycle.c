/* lifecycle.c: the tracer's start and end. See lifecycle.h for the invariants.
 * tr_init runs as the tracer (gt_internal: what it opens is the tracer's, fds.h). Fork: the
 * prepare handler takes the output lock, so no generation is mid-write in the child; the
 * structures other threads update under locks of their own (registry, Ps, buffer pool, arena)
 * the child starts anew, their locks free; the lock-free intern tables cannot be locked out, so
 * the child repairs them (intern.h); the child forgets the parent's threads, keeps its own
 * in-memory tables, and traces to its own file from file generation 1, while the internal
 * generation number goes on increasing. All of that waits for the child's first record
 * (settle_child). */
#include "lifecycle.h"

#include "arena.h"
#include "buf.h"
#include "clock.h"
#include "config.h"
#include "cpuprof.h"
#include "fatal.h"
#include "fence.h"
#include "flusher.h"
#include "hang.h"
#include "intern.h"
#include "lockorder.h"
#include "log.h"
#include "modules.h"
#include "output.h"
#include "pages.h"
#include "pipes.h"
#include "plainlock.h"
#include "real.h"
#include "selfcost.h"
#include "sigown.h"
#include "stack.h"
#include "strtab.h"
#include "symcache.h"
#include "tracer.h"
#include "waitq.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <unistd.h>

enum { INIT_NONE, INIT_RUNNING, INIT_DONE };
#define ABORT_WAIT_MS 5000 /* the last write before abort() */
static atomic_int init_state;
static struct gt_config cfg GT_BIG;
static unsigned image GT_FORK_WORDS;
static pid_t tracer_pid GT_FORK_WORDS;
static int forked GT_FORK_WORDS; /* this process is a forked child (or its exec'd image) */
/* This thread's fork in progress gives a traced child (prepare's decision: two threads may fork
 * at once), and began then (selfcost.h; 0: untimed). In the thread's own TLS, which the fork
 * writes anyway (gt_internal). */
static __thread int fork_traced;
static __thread uint64_t fork_began;
/* 1: a forked child that has recorded nothing yet (its tracer's state is its parent's, as the
 * fork left it: settle_child), 2: being settled, 0: neither. */
static atomic_int unsettled GT_FORK_WORDS;
static struct gt_thread *forker GT_FORK_WORDS; /* that child's forking thread's (its parent's) */

static void warn_config(const char *msg)
{
    gt_log("%s", msg);
}
static const char *env(const char *name)
{
    return getenv(name);
}

int tr_in_own_process(void)
{
    return getpid() == tracer_pid;
}

void tr_child_reaped(pid_t pid)
{
    int saved = errno;
    arena_forget_child(pid);
    errno = saved;
}

/* A process that is dying of a fatal signal (its handler writes the last generation) forks no
 * more: untraced, the signal would have ended it already. The thread waits for the end here
 * (fatal_park), holding none of the tracer's locks. */
static void park_if_dying(void)
{
    if (fatal_dying() && tr_in_own_process()) fatal_park();
}

/* The forking thread holds the output lock from here to the parent or child handler: no
 * generation is being written when the child is made (the flusher's state is consistent in it).
 * The structures other threads update under locks of their own (registry, Ps, buffer pool,
 * arena) are not held still: the child starts all of them anew (settle_child), locks free.
 * Meanwhile the thread is inside the tracer, so fork handlers of other libraries that run then
 * emit nothing, and a fatal signal sent to it acts after the parent handler (fatal.h: its last
 * write needs that lock, and glibc's malloc ones, which the fork takes after it); one that comes
 * while it waits for the output lock (a generation being written) acts at once. A fork from
 * inside the tracer (a signal handler) takes no lock and gives an untraced child. */
static void fork_prepare(void)
{
    park_if_dying();
    struct gt_thread *t = gt_self;
    fork_traced = state_tracing() && !gt_internal && !(t && t->depth) && tr_in_own_process();
    gt_internal++;
    if (!fork_traced) return;
    fork_began = selfcost_begin();
    fatal_fork_begin();
    while (flusher_fork_prepare(fatal_fork_deferred) != 0) { /* a fatal signal came meanwhile */
        gt_internal--;
        fatal_fork_end(); /* it acts now (the process ends), as if it came before the fork */
        park_if_dying();
        gt_internal++;
        fatal_fork_begin();
    }
}

static void fork_parent(void)
{
    gt_internal--;
    if (!fork_traced) return;
    flusher_fork_parent();
    selfcost_end(SC_FORK, fork_began, 1);
    fatal_fork_end(); /* a fatal signal sent meanwhile acts now */
}

void tr_forked(pid_t pid)
{
    if (!fatal_dying() || !tr_in_own_process()) return;
    REAL(kill)(pid, SIGKILL); /* not the hook: it may take up the thread, which parks */
    fatal_park();
}

/* A forked child's file (and its exec'd images'): PATH.<pid> when GOTRACE_OUT has no %p, so
 * it never names the parent's file. */
static int forked_path(char *path, size_t size)
{
    if (config_path_has_pid(cfg.out_pattern)) return 0;
    size_t len = strlen(path);
    return snprintf(path + len, size - len, ".%ld", (long)getpid()) < (int)(size - len) ? 0 : -1;
}

static int child_path(char *path, size_t size)
{
    if (config_expand_path(cfg.out_pattern, (long)getpid(), path, size) != 0) return -1;
    return forked_path(path, size);
}

/* A child that runs untraced (forked from inside the tracer, or with tracing off): it neither
 * writes nor removes anything of its parent's (its live file, its records) and writes nothing. */
static void untraced_child(void)
{
    arena_detach();
    fatal_fork_child();
    gt_self = NULL;
    state_fork_child();
    cpuprof_fork_child();
    selfcost_fork_child();
    flusher_fork_child();
    flusher_fork_settle(NULL);
    gt_internal = 1; /* for good: this process runs untraced */
}

/* The child's first record: its own tables, file, threads and flusher, as the fork left its
 * parent's. 0, or -1 when the child runs untraced from now on. */
static int settle_child(void)
{
    uint64_t began = selfcost_begin();
    arena_fork_settle(); /* first: the parent's live file must not be written from here on */
    fatal_fork_child();
    struct gt_thread *t = forker;
    if (t) atomic_store(&t->exited, 1); /* the parent's record of this thread; it is adopted anew */
    state_fork_child();                 /* nothing of the parent's current generation is written */
    cpuprof_fork_child();
    selfcost_fork_child();                /* the child reports its own time, not its parent's */
    static char path[GT_PATH_MAX] GT_BIG; /* the child runs this alone, maybe on a small stack */
    int records = thread_records_made();
    buf_fork_child();
    thread_fork_child();
    waitq_fork_child(t, records);
    intern_fork_child();
    if (child_path(path, sizeof path) != 0) {
        flusher_fork_settle(NULL);
        return -1;
    }
    fence_init(); /* single-threaded here: the mode may change */
    if (flusher_fork_settle(path) != 0) {
        state_stop();
        arena_complete();
    }
    selfcost_end(SC_CHILD, began, 1);
    return 0;
}

/* Settles a forked child on its first record (settle_child), once; a thread that comes
 * meanwhile (one started without the hooks) waits. 1 when this call settled it, traced. */
static int settle_if_forked(void)
{
    int expect = 1;
    if (atomic_load(&unsettled) != 1 || !atomic_compare_exchange_strong(&unsettled, &expect, 2)) {
        while (atomic_load(&unsettled) == 2)
            sched_yield();
        return 0;
    }
    gt_internal++; /* hooks of a handler that interrupts it emit nothing */
    int traced = settle_child() == 0;
    gt_internal = traced ? gt_internal - 1 : 1; /* 1 for good: this process runs untraced */
    atomic_store(&unsettled, 0);
    return traced;
}

/* The child releases what the parent's fork held and takes its own process id; hooks take the
 * forking thread for a new one. The rest, which reads or writes the tracer's state, waits for
 * the child's first record (settle_child): a child that exits or execs without one costs its
 * tracer nothing more, and until then the tracer neither writes nor removes anything of its
 * parent's. */
static void fork_child(void)
{
    if (fatal_fork_orphaned()) REAL(kill)(getpid(), SIGKILL); /* it ends here */
    tracer_pid = getpid();
    plainlock_fork_child();
    image = 0;
    forked = 1;
    if (!fork_traced) {
        untraced_child();
        return;
    }
    arena_fork_child();
    flusher_fork_child();
    if (!atomic_load(&unsettled)) forker = gt_self; /* (a child's child keeps the first) */
    gt_self = NULL;
    atomic_store(&unsettled, 1);
    gt_internal--;
    if (cfg.flight) settle_if_forked(); /* it frees the parent's generations: never in a handler */
}

/* Which image of this process we are: 0, or n when exec'd n times under the tracer
 * (GT_EXEC_ENV=<pid>.<n>, with a trailing "f" in a forked child: sets forked). */
static unsigned image_of_process(void)
{
    const char *v = getenv(GT_EXEC_ENV);
    if (!v) return 0;
    char *end;
    long pid = strtol(v, &end, 10);
    unsigned long image = *end == '.' ? strtoul(end + 1, &end, 10) : 0;
    int of_fork = *end == 'f';
    unsetenv(GT_EXEC_ENV); /* the program sees the environment it would see untraced */
    if (pid != (long)getpid() || image >= 1000000) return 0;
    forked = of_fork;
    return (unsigned)image;
}

/* gotrace.123.trace -> gotrace.123-exec1.trace for the second image of process 123. */
static int image_path(char *path, size_t size, unsigned image)
{
    if (!image) return 0;
    size_t len = strlen(path);
    const char *ext = len >= 6 && strcmp(path + len - 6, ".trace") == 0 ? ".trace" : "";
    size_t stem = len - strlen(ext);
    char tail[32];
    int k = snprintf(tail, sizeof tail, "-exec%u%s", image, ext);
    if (stem + (size_t)k >= size) return -1;
    memcpy(path + stem, tail, (size_t)k + 1);
    return 0;
}

void tr_init(void)
{
    int expected = INIT_NONE;
    if (!atomic_compare_exchange_strong(&init_state, &expected, INIT_RUNNING)) return;
    uint64_t began = gt_now_ns(); /* the start-up's time (selfcost.h), kept if GOTRACE_DEBUG */
    int saved_errno = errno;
    gt_internal++;
    tracer_pid = getpid();
    real_init();
    plainlock_init();
    config_defaults(&cfg);
    config_parse(&cfg, env, warn_config);
    gt_log_set_debug(cfg.debug);
    selfcost_enable(cfg.debug);
    clock_begin(cfg.tsc); /* the TSC's rate is measured from here (clock.h) */
    fence_init();
    plainlock_lone_begin(__libc_single_threaded);
    if (cfg.disable) goto done;
    static char path[GT_PATH_MAX] GT_BIG; /* once; maybe on a small stack (the first hook) */
    image = image_of_process();
    if (config_expand_path(cfg.out_pattern, (long)getpid(), path, sizeof path) != 0 ||
        image_path(path, sizeof path, image) != 0 ||
        (forked && forked_path(path, sizeof path) != 0)) {
        gt_log("GOTRACE_OUT is too long; running untraced");
        goto done;
    }
    if (cfg.live && !cfg.flight) arena_init(); /* before anything is allocated */
    arena_reserve();
    if (str_init() != 0 || stack_init((int)cfg.stack_depth, cfg.stacks) != 0 ||
        buf_pool_init((size_t)cfg.buf_kb * 1024) != 0) {
        gt_log("cannot set up the tracer's tables; running untraced");
        goto fail;
    }
    stack_set_self(thread_self_stacks);
    buf_publish_layout();
    thread_publish_layout();
    modules_record();
    tr_reasons_init();
    lo_init(cfg.lock_order, cfg.lock_holds, tr_reason_id(GT_R_MUTEX),
            tr_reason_id(GT_R_RWLOCK_WRITE));
    symcache_dir(cfg.symcache); /* read at the first symbolization, on the flusher */
    /* GOTRACE_HANG_MS (flush/hang.h): before the flusher */
    hang_init(cfg.hang_ms, tr_tracer_log, sigown_program_catches);
    if (flusher_start(&cfg, path, __libc_single_threaded) != 0) goto fail;
    fatal_init(cfg.flight ? (int)cfg.flight_signal : 0, __libc_single_threaded);
    cpuprof_init(cfg.cpu_hz);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    pipes_share(cfg.waits); /* (a forked child keeps the mapping and the table) */
    pipes_enable(cfg.pipes);
    pipes_scan();
    gt_debug("tracing to %s (period %u ms, stacks %s, clock %s)", path, cfg.period_ms,
             cfg.stacks ? "on" : "off", clock_name());
    state_start((size_t)cfg.flush_mb << 20);
    goto done;
fail:
    arena_complete(); /* nothing to recover: untraced */
done:
    selfcost_end(SC_START, cfg.debug ? began : 0, 1);
    gt_internal--;
    atomic_store(&init_state, INIT_DONE);
    errno = saved_errno;
}

/* Runs a flusher operation on an application thread as the flusher would: untraced, so the
 * tracer's own writes and symbolization never become events. */
static void as_tracer(void (*op)(void))
{
    int was = gt_internal;
    struct gt_thread *t = gt_self;
    gt_internal = 1;
    if (t) t->depth++; /* its hooks' fast path (tr_current) looks at depth only */
    op();
    if (t) t->depth--;
    gt_internal = was;
}

/* Whether this thread may act for the tracer now: tracing, in the tracer's own process, and not
 * inside the tracer (a signal handler interrupting it). A thread that has ended for the tracer
 * stays inside it for good (its hooks do nothing), yet it may still run the process's exit: the
 * main thread's pthread_exit, when it is the last thread, makes glibc call exit(0) on it; that
 * thread may write the last generation (its own events all are written). */
static int may_act(void)
{
    struct gt_thread *t = gt_self;
    int inside = t && t->depth && !atomic_load_explicit(&t->exited, memory_order_acquire);
    return state_tracing() && !gt_internal && !inside && tr_in_own_process();
}

/* Whether it may write generations now: a forked child that recorded nothing has none (known
 * first: its exit makes no system call here). */
static int may_flush(void)
{
    return !atomic_load(&unsettled) && may_act();
}

void tr_flush_now(void)
{
    if (may_flush()) as_tracer(flusher_flush_now);
}

/* With no flusher thread, the last write (a forked child's); else what the flusher writes now
 * (a handler of the program's may keep the process alive: the fatal signal's handler, if it
 * dies, writes the last one). */
static void write_before_death(void)
{
    if (flusher_lazy())
        flusher_final_within(ABORT_WAIT_MS);
    else
        flusher_flush_now();
}

void tr_flush_dying(void)
{
    if (may_flush()) as_tracer(write_before_death);
}

void tr_threads_begin(void)
{
    if (!tr_in_own_process()) return;
    if (atomic_load(&unsettled) && may_act()) settle_if_forked(); /* (its flusher is lazy) */
    if (flusher_lazy()) flusher_need_thread();
}

/* output_open_pending for as_tracer, which takes no argument. */
static void open_pending_fresh(void)
{
    output_open_pending(1);
}

static void open_pending(void)
{
    output_open_pending(0);
}

/* A forked child that has recorded nothing yet settles first (its own live file, its output
 * path), so that both are made with the privileges it has now; settled here, it has recorded
 * nothing, and its file starts as a trace with no thread. */
void tr_before_user_change(uid_t euid)
{
    int saved = errno;
    if (euid != (uid_t)-1 && euid != geteuid() && tr_in_own_process()) {
        int fresh = atomic_load(&unsettled) == 1 && may_act() && settle_if_forked();
        if (may_flush()) as_tracer(fresh ? open_pending_fresh : open_pending);
        arena_give_to(euid);
    }
    errno = saved;
}

void tr_before_unload(void)
{
    tr_flush_now();
}

void tr_after_unload(void)
{
    stack_forget();
    flusher_code_unloaded();
}

int tr_before_exec(char *marker, size_t size)
{
    if (!may_act()) return 0;
    if (may_flush()) as_tracer(flusher_flush_now);
    snprintf(marker, size, "%s=%ld.%u%s", GT_EXEC_ENV, (long)getpid(), image + 1,
             forked ? "f" : "");
    return 1;
}

void tr_exec_leaves(void)
{
    arena_unlink();
}

int tr_flight_dump(void)
{
    if (!may_flush()) return -1;
    int was = gt_internal;
    gt_internal = 1;
    int r = flusher_flight_dump();
    gt_internal = was;
    return r;
}

/* Says once, at the end, what lock tracking could not keep (lockorder.h). */
static void lock_tracking_losses(void)
{
    uint64_t held, edges, locks;
    lo_lost(&held, &edges, &locks);
    if (held || edges || locks)
        gt_log("lock tracking: not kept: %llu locks held beyond 16 by one thread, %llu lock-order "
               "edges (table full), %llu locks' hold times (table full)",
               (unsigned long long)held, (unsigned long long)edges, (unsigned long long)locks);
}

void tr_shutdown(void)
{
    if (!may_flush()) return;
    if (lo__on) lock_tracking_losses();
    uint64_t t0 = selfcost_begin();
    as_tracer(flusher_final);
    selfcost_end(SC_FINAL, t0, 1);
    char line[640]; /* the text and 13 counts of up to 20 digits each: never cut */
    if (t0 && selfcost_format(line, sizeof line) > 0) gt_debug("%s", line);
}

GOTRACE_API_FN struct gt_thread *tr_current_slow(void)
{
    if (gt_internal) return NULL;
    if (fatal_dying() && tr_in_own_process()) fatal_park(); /* the process ends meanwhile */
    if (!state_tracing_acquire()) {
        tr_init();
        if (!state_tracing_acquire()) return NULL;
    }
    if (gt_self) return NULL;              /* inside the tracer, or after the thread's exit */
    if (!tr_in_own_process()) return NULL; /* a vfork child: the parent's state */
    if (atomic_load_explicit(&unsettled, memory_order_acquire)) {
        settle_if_forked();
        if (gt_internal || !state_tracing_acquire()) return NULL;
    }
    /* A thread the tracer did not see start: the flusher thread is needed. Not the main thread
     * (adopted here when a constructor calls first, or anew in a forked child, where the
     * thread that forked is the main one): a program with one thread still has one. */
    if (flusher_lazy() && gettid() != getpid()) flusher_need_thread();
    return tr_adopt(NULL);
}
