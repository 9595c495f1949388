/* names.c: interposed thread naming: pthread_setname_np and prctl(PR_SET_NAME), so thread
 * names reach the trace (annotations.h, names_set).
 * Invariants: each hook returns exactly what the real function returns, with the errno it left;
 * prctl forwards its option and four argument words untouched whatever the option (the
 * kernel's interface: glibc's own wrapper passes the same five words) and looks only at a
 * successful PR_SET_NAME. */
#include "annotations.h"
#include "hooks.h"
#include "real.h"

#include <errno.h>
#include <stdarg.h>
#include <sys/prctl.h>

EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
    int r = REAL(pthread_setname_np)(th, name);
    if (r == 0) names_set(th, name); /* preserves errno */
    return r;
}

EXPORT int prctl(int option, ...)
{
    va_list ap;
    va_start(ap, option);
    unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
    unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
    va_end(ap);
    int r = REAL(prctl)(option, a2, a3, a4, a5);
    if (option == PR_SET_NAME && r == 0) names_set(pthread_self(), (const char *)a2);
    return r;
}
