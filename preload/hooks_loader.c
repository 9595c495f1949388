/* hooks_loader.c: interposed dynamic-loader calls: dlclose, after which the unloaded object's
 * code addresses may be reused by another, so the stack module forgets every unwind rule and
 * memo it keeps by address (stack.h, stack_forget).
 * Invariants: the hook returns exactly what the real dlclose returns, with its errno; nothing is
 * forgotten when the call fails. */
#include "real.h"
#include "stack.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int dlclose(void *handle)
{
    int r = REAL(dlclose)(handle);
    if (r == 0) stack_forget(); /* touches no errno */
    return r;
}
