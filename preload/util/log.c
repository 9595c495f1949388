/* log.c: "gotrace: " messages on stderr. See log.h for the invariants. */
#include "log.h"

#include "invariant.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int debug_on;

void gt_log_set_debug(int on)
{
    debug_on = on;
}

static void vlog(const char *fmt, va_list ap)
{
    int saved = errno;
    char line[512];
    size_t n = 9;
    memcpy(line, "gotrace: ", n);
    int k = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    if (k > 0) n += (size_t)k < sizeof line - n - 1 ? (size_t)k : sizeof line - n - 2;
    line[n++] = '\n';
    (void)syscall(SYS_write, 2, line, n);
    errno = saved;
}

void gt_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void gt_debug(const char *fmt, ...)
{
    if (!debug_on) return;
    va_list ap;
    va_start(ap, fmt);
    vlog(fmt, ap);
    va_end(ap);
}

void gt_assert_fail(const char *file, int line, const char *cond)
{
    gt_log("invariant failed at %s:%d: %s", file, line, cond);
    abort();
}
