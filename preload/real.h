/* real.h: the real (next in link order) versions of every function the tracer interposes,
 * resolved once. Invariants: real_init() is idempotent and safe to call from any hook before
 * the constructor has run (dlsym may allocate; we never interpose malloc); after it returns
 * every pointer is non-NULL or the tracer has disabled itself with one message. Add a function
 * by adding one line to GT_REAL_FUNCS (name, return type, parameter list, symbol version or 0).
 */
#ifndef GOTRACE_REAL_H
#define GOTRACE_REAL_H
#include <pthread.h>
#include <sys/types.h>

#define GT_REAL_FUNCS(X)                                                                           \
    X(pthread_create, int, (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *), 0)   \
    X(pthread_join, int, (pthread_t, void **), 0)                                                  \
    X(pthread_tryjoin_np, int, (pthread_t, void **), 0)                                            \
    X(pthread_timedjoin_np, int, (pthread_t, void **, const struct timespec *), 0)                 \
    X(pthread_clockjoin_np, int, (pthread_t, void **, clockid_t, const struct timespec *), 0)      \
    X(pthread_mutex_lock, int, (pthread_mutex_t *), 0)                                             \
    X(pthread_mutex_unlock, int, (pthread_mutex_t *), 0)                                           \
    X(execve, int, (const char *, char *const[], char *const[]), 0)                                \
    X(execv, int, (const char *, char *const[]), 0)                                                \
    X(execvp, int, (const char *, char *const[]), 0)                                               \
    X(execvpe, int, (const char *, char *const[], char *const[]), 0)                               \
    X(fexecve, int, (int, char *const[], char *const[]), 0)                                        \
    X(_exit, void, (int), 0)                                                                       \
    X(_Exit, void, (int), 0)

struct gt_real {
#define GT_REAL_FIELD(name, ret, params, ver) ret(*name) params;
    GT_REAL_FUNCS(GT_REAL_FIELD)
#undef GT_REAL_FIELD
    int (*libc_start_main)(int (*)(int, char **, char **), int, char **, void (*)(void),
                           void (*)(void), void (*)(void), void *);
};

extern struct gt_real gt_real;
void real_init(void);
#define REAL(name) (gt_real.name ? gt_real.name : (real_init(), gt_real.name))
#endif
