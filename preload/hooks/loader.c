/* loader.c: interposed dynamic-loader calls: dlclose. The generation in progress is
 * written first, while the library's code is still mapped (its stacks are symbolized from it);
 * after a successful unload, whatever the tracer keeps by code address (unwind rules, stack
 * memos, symbols) is dropped, since another object may be mapped there (tracer.h).
 * Invariants: the hook returns exactly what the real dlclose returns, with its errno. */
#include "hooks.h"
#include "real.h"
#include "lifecycle.h"

#include <errno.h>

EXPORT int dlclose(void *handle)
{
    int saved = errno;
    tr_before_unload();
    errno = saved;
    int r = REAL(dlclose)(handle);
    if (r == 0) tr_after_unload(); /* touches no errno */
    return r;
}
