/* tracing.h: for unit tests that run the real tracer (one test binary each, so static
 * functions are fine): start it writing to a fresh temporary file.
 * Invariant: the caller's other GOTRACE_* settings are already in the environment. */
#ifndef GOTRACE_TEST_TRACING_H
#define GOTRACE_TEST_TRACING_H
#include "lifecycle.h"
#include "tracer.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <unistd.h>

/* path: a mkstemp template ("...XXXXXX"), rewritten to the file's name (the caller unlinks it
 * after tr_shutdown). */
static void tracing_start(char *path)
{
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    setenv("GOTRACE_OUT", path, 1);
    tr_init();
}
#endif
