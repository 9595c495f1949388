/* lifecycle.c: the tracer's start and end. See lifecycle.h for the invariants.
 * tr_init runs as the tracer (gt_internal: what it opens is the tracer's, fds.h). Fork: the
 * prepare handler takes the tracer's locks (flush, registry, procs, buffer pool, in that
 * order) so no structure is mid-update in the child; the lock-free intern tables cannot be
 * locked out, so the child repairs them (intern.h); the child forgets the parent's threads,
 * keeps its own in-memory tables, and traces to its own file from file generation 1, while the
 * internal generation number goes on increasing. */
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
#include "log.h"
#include "modules.h"
#include "pages.h"
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <unistd.h>

enum { INIT_NONE, INIT_RUNNING, INIT_DONE };
#define ABORT_WAIT_MS 5000 /* the last write before abort() */
static atomic_int init_state;
static struct gt_config cfg GT_BIG;
static unsigned image;
static pid_t tracer_pid;
static int fork_traced; /* the fork in progress gives a traced child (prepare's decision) */
static int forked;      /* this process is a forked child (or its exec'd image) */

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

/* The forking thread holds the locks from here to the parent or child handler; meanwhile it
 * is inside the tracer, so fork handlers of other libraries that run then emit nothing. A
 * fork from inside the tracer (a signal handler) takes no lock and gives an untraced child. */
static void fork_prepare(void)
{
    struct gt_thread *t = gt_self;
    fork_traced = state_tracing() && !gt_internal && !(t && t->depth) && tr_in_own_process();
    gt_internal++;
    if (!fork_traced) return;
    flusher_fork_prepare();
    thread_fork_prepare();
    buf_fork_prepare();
    arena_fork_prepare();
}

static void fork_parent(void)
{
    gt_internal--;
    if (!fork_traced) return;
    arena_fork_parent();
    buf_fork_parent();
    thread_fork_parent();
    flusher_fork_parent();
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

static void fork_child(void)
{
    if (fork_traced) /* first: the parent's live file must not be written from here on */
        arena_fork_child();
    else
        arena_detach();
    tracer_pid = getpid();
    fatal_fork_child();
    plainlock_fork_child();
    image = 0;
    forked = 1;
    struct gt_thread *t = gt_self;
    if (t) atomic_store(&t->exited, 1); /* the parent's record of this thread; it is adopted anew */
    gt_self = NULL;
    state_fork_child(); /* nothing of the parent's current generation is written */
    cpuprof_fork_child();
    selfcost_fork_child();                /* the child reports its own time, not its parent's */
    static char path[GT_PATH_MAX] GT_BIG; /* the child runs this alone, maybe on a small stack */
    if (fork_traced) {
        int records = thread_records_made();
        buf_fork_child();
        thread_fork_child();
        waitq_fork_child(t, records);
        intern_fork_child();
    }
    if (!fork_traced || child_path(path, sizeof path) != 0) {
        flusher_fork_child(NULL);
        gt_internal = 1; /* for good: this process runs untraced */
        return;
    }
    fence_init(); /* single-threaded here: the mode may change */
    if (flusher_fork_child(path) != 0) {
        state_stop();
        arena_complete();
    }
    gt_internal--;
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
    symcache_dir(cfg.symcache); /* read at the first symbolization, on the flusher */
    /* GOTRACE_HANG_MS (flush/hang.h): before the flusher */
    hang_init(cfg.hang_ms, tr_tracer_log, sigown_program_catches);
    if (flusher_start(&cfg, path, __libc_single_threaded) != 0) goto fail;
    fatal_init(cfg.flight ? (int)cfg.flight_signal : 0, __libc_single_threaded);
    cpuprof_init(cfg.cpu_hz);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
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

/* Whether this thread may write generations now: tracing, in the tracer's own process, and
 * not inside the tracer (a signal handler interrupting it). */
static int may_flush(void)
{
    struct gt_thread *t = gt_self;
    return state_tracing() && !gt_internal && !(t && t->depth) && tr_in_own_process();
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
    if (flusher_lazy() && tr_in_own_process()) flusher_need_thread();
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
    if (!may_flush()) return 0;
    as_tracer(flusher_flush_now);
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

void tr_shutdown(void)
{
    if (!may_flush()) return;
    uint64_t t0 = selfcost_begin();
    as_tracer(flusher_final);
    selfcost_end(SC_FINAL, t0, 1);
    char line[512]; /* the text and ten counts of up to 20 digits each: never cut */
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
    /* A thread the tracer did not see start: the flusher thread is needed. Not the main thread
     * (adopted here when a constructor calls first, or anew in a forked child, where the
     * thread that forked is the main one): a program with one thread still has one. */
    if (flusher_lazy() && gettid() != getpid()) flusher_need_thread();
    return tr_adopt(NULL);
}
