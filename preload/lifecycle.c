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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { INIT_NONE, INIT_RUNNING, INIT_DONE };
static atomic_int init_state;
static struct gt_config cfg;
static unsigned image;

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

/* Which image of this process we are: 0, or n when exec'd n times under the tracer. */
static unsigned image_of_process(void)
{
    const char *v = getenv(GT_EXEC_ENV);
    if (!v) return 0;
    char *end;
    long pid = strtol(v, &end, 10);
    unsigned long image = *end == '.' ? strtoul(end + 1, NULL, 10) : 0;
    unsetenv(GT_EXEC_ENV); /* the program sees the environment it would see untraced */
    return pid == (long)getpid() && image < 1000000 ? (unsigned)image : 0;
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
    image = image_of_process();
    if (config_expand_path(cfg.out_pattern, (long)getpid(), path, sizeof path) != 0 ||
        image_path(path, sizeof path, image) != 0) {
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

/* Runs a flusher operation on an application thread as the flusher would: untraced, so the
 * tracer's own writes and symbolization never become events. */
static void as_tracer(void (*op)(void))
{
    int was = gt_internal;
    gt_internal = 1;
    op();
    gt_internal = was;
}

void tracer_flush_now(void)
{
    if (atomic_load(&gt_on)) as_tracer(flusher_flush_now);
}

int tracer_before_exec(char *marker, size_t size)
{
    if (!atomic_load(&gt_on)) return 0;
    as_tracer(flusher_flush_now);
    snprintf(marker, size, "%s=%ld.%u", GT_EXEC_ENV, (long)getpid(), image + 1);
    return 1;
}

void tracer_shutdown(void)
{
    if (atomic_load(&gt_on)) as_tracer(flusher_final);
}
