/* real.c: resolves the real functions once. See real.h for the invariants. */
#include "real.h"

#include "log.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdatomic.h>
#include <stdlib.h>

/* The lock fast paths call these two without a check (hooks/sync.c REAL_HOT): until real_init
 * ran they point to stubs that resolve first. */
static int trylock_first(pthread_mutex_t *m)
{
    real_init();
    return gt_real.pthread_mutex_trylock(m);
}
static int unlock_first(pthread_mutex_t *m)
{
    real_init();
    return gt_real.pthread_mutex_unlock(m);
}
struct gt_real gt_real = {.pthread_mutex_trylock = trylock_first,
                          .pthread_mutex_unlock = unlock_first};

/* name at version binds like the program's own reference name@version: to the first object
 * after the tracer that defines it at that version or unversioned. dlvsym alone skips the
 * unversioned definition of an interposer that has symbol versions of its own (a sanitizer
 * runtime's interceptor, which the program binds to): when dlsym, which finds either, finds a
 * definition in an object other than dlvsym's, that object comes first and is the one. */
static void *resolve(const char *name, const char *version)
{
    void *any = dlsym(RTLD_NEXT, name);
    void *exact = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
    if (!exact) return any;
    if (any == exact) return exact; /* the usual case, without dladdr (a scan of symbols) */
    Dl_info a, e;
    if (any && dladdr(any, &a) && dladdr(exact, &e) && a.dli_fbase != e.dli_fbase) return any;
    return exact;
}

int real_in_libc(void *fn)
{
    struct dl_find_object libc, f;
    return fn && _dl_find_object((void *)gnu_get_libc_version, &libc) == 0 &&
           _dl_find_object(fn, &f) == 0 && f.dlfo_map_start == libc.dlfo_map_start;
}

void real_init(void)
{
    static atomic_int done;
    if (atomic_load_explicit(&done, memory_order_acquire)) return;
    struct gt_real r;
#define GT_REAL_RESOLVE(name, ret, params, ver)                                                    \
    r.name = (ret(*) params)resolve(#name, ver);                                                   \
    if (!r.name) gt_log("cannot resolve %s; this program cannot run under the tracer", #name);
    GT_REAL_FUNCS(GT_REAL_RESOLVE)
#undef GT_REAL_RESOLVE
    r.libc_start_main =
        (int (*)(int (*)(int, char **, char **), int, char **, void (*)(void), void (*)(void),
                 void (*)(void), void *))resolve("__libc_start_main", 0);
    /* Concurrent first calls resolve the same values; publishing twice is harmless. */
    gt_real = r;
    atomic_store_explicit(&done, 1, memory_order_release);
}
