/* entry.c: the library's entry points: the constructor starts the tracer, the destructor
 * (after the program's own exit handlers) writes the last generation.
 * Invariant: kept out of the core archive, so unit tests linking the core never trace. */
#include "lifecycle.h"

__attribute__((constructor)) static void gotrace_ctor(void)
{
    tr_init();
}
__attribute__((destructor)) static void gotrace_dtor(void)
{
    tr_shutdown();
}
