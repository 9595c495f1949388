/* dwlazy.c: libdw (and through it libelf) opened at the first call of dwlazy_load. See
 * dwlazy.h. The library is never closed: frames resolved later may need it again. */
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include <dlfcn.h>

#define DWLAZY_DEFINE(f) __typeof__(f) *dwlazy_##f;
#include "dwlazy.h"
DWLAZY_FUNCS(DWLAZY_DEFINE)

int dwlazy_load(void)
{
    static int state; /* 0 not tried, 1 loaded, -1 failed */
    if (state) return state > 0 ? 0 : -1;
    state = -1;
    void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return -1;
#define DWLAZY_RESOLVE(f)                                                                          \
    if (!(dwlazy_##f = (__typeof__(f) *)dlsym(h, #f))) return -1;
    DWLAZY_FUNCS(DWLAZY_RESOLVE)
    state = 1;
    return 0;
}
