/* entry.c: the library's entry points: the constructor starts the tracer, the destructor
 * (after the program's own exit handlers) writes the last generation, and so does the last
 * at_quick_exit handler (quick_exit runs no destructor, and its _exit is libc's own call).
 * Invariant: kept out of the core archive, so unit tests linking the core never trace. */
#include "lifecycle.h"

#include <stdlib.h>

static void gotrace_quick_exit(void)
{
    tr_shutdown();
}

__attribute__((constructor)) static void gotrace_ctor(void)
{
    tr_init();
    at_quick_exit(gotrace_quick_exit); /* before the program's: runs after them */
}
__attribute__((destructor)) static void gotrace_dtor(void)
{
    tr_shutdown();
}
