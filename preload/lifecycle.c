/* lifecycle.c: setting the tracer up on first use, and ending it: the final generation at
 * exit, a flush before exec, a fresh start (untraced) in a forked child.
 * Invariants: tracer_init runs its body once (from the constructor, or from the first hook if
 * another library's constructor calls one earlier); any failure leaves the program running
 * untraced after one "gotrace: " message; nothing here runs on the event path. */
#include "buf.h"
#include "config.h"
#include "flusher.h"
#include "log.h"
#include "real.h"
#include "stack.h"
#include "strings.h"
#include "tracer.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

enum { INIT_NONE, INIT_RUNNING, INIT_DONE };
static atomic_int init_state;
static struct gt_config cfg;

static void warn_config(const char *msg) { gt_log("%s", msg); }
static const char *env(const char *name) { return getenv(name); }

static void in_child_after_fork(void)
{
    /* The child has only the forking thread; the tracer state is the parent's. It runs
     * untraced rather than share the parent's file. */
    flusher_forget();
    buf_pool_reset_lock();
    gt_self = NULL;
    gt_internal = 1;
}

void tracer_init(void)
{
    int expected = INIT_NONE;
    if (!atomic_compare_exchange_strong(&init_state, &expected, INIT_RUNNING)) return;
    real_init();
    config_defaults(&cfg);
    config_parse(&cfg, env, warn_config);
    gt_log_set_debug(cfg.debug);
    if (cfg.disable) goto done;
    char path[GT_PATH_MAX];
    if (config_expand_path(cfg.out_pattern, (long)getpid(), path, sizeof path) != 0) {
        gt_log("GOTRACE_OUT is too long; running untraced");
        goto done;
    }
    if (str_init() != 0 || stack_init((int)cfg.stack_depth, cfg.stacks) != 0 ||
        buf_pool_init((size_t)cfg.buf_kb * 1024) != 0) {
        gt_log("cannot set up the tracer's tables; running untraced");
        goto done;
    }
    tr_reasons_init();
    if (flusher_start(&cfg, path) != 0) goto done;
    pthread_atfork(NULL, NULL, in_child_after_fork);
    gt_debug("tracing to %s (period %u ms, stacks %s)", path, cfg.period_ms, cfg.stacks ? "on" : "off");
    atomic_store(&gt_on, 1);
done:
    atomic_store(&init_state, INIT_DONE);
}

void tracer_flush_now(void)
{
    if (atomic_load(&gt_on)) flusher_flush_now();
}

void tracer_shutdown(void)
{
    if (atomic_load(&gt_on)) flusher_final();
}

__attribute__((constructor)) static void gotrace_ctor(void) { tracer_init(); }
__attribute__((destructor)) static void gotrace_dtor(void) { tracer_shutdown(); }
