/* exec.c: interposed exec* functions. Before the image is replaced the tracer writes
 * every complete generation, and the new image is told (GOTRACE_EXEC_OF=<pid>.<image>) that
 * it continues this process, so it writes its own file instead of truncating ours. When the
 * exec will most likely succeed, the old image's live file is removed first (lifecycle.h
 * tr_exec_leaves): a new image that is not traced would leave it behind.
 * Invariants: with tracing off, calls are forwarded unchanged; the environment handed to the
 * new image differs only by that one variable (which the new image removes at start); if exec
 * fails, tracing goes on and errno is the real one. */
#include "hooks.h"
#include "real.h"
#include "lifecycle.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* Copies env into out (n + 2 slots), dropping any old marker and adding ours. */
static char **with_marker(char *const env[], char **out, char *marker)
{
    size_t k = 0;
    for (size_t i = 0; env && env[i]; i++)
        if (strncmp(env[i], GT_EXEC_ENV "=", sizeof GT_EXEC_ENV) != 0) out[k++] = env[i];
    out[k++] = marker;
    out[k] = NULL;
    return out;
}

static size_t env_len(char *const env[])
{
    size_t n = 0;
    while (env && env[n])
        n++;
    return n;
}

/* Whether the kernel will most likely run path: a regular file this process may execute. */
static int runnable(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0;
}

/* The same for file found as execvp finds it: a path if it has a slash, else the first
 * runnable one in $PATH's directories (an empty one is the current directory). */
static int runnable_on_path(const char *file)
{
    if (!file || !*file) return 0;
    if (strchr(file, '/')) return runnable(file);
    const char *dirs = getenv("PATH");
    for (const char *d = dirs ? dirs : "/bin:/usr/bin";; d++) {
        const char *end = strchrnul(d, ':');
        char path[PATH_MAX];
        int n = end > d ? snprintf(path, sizeof path, "%.*s/%s", (int)(end - d), d, file)
                        : snprintf(path, sizeof path, "%s", file);
        if (n > 0 && (size_t)n < sizeof path && runnable(path)) return 1;
        if (!*end) return 0;
        d = end;
    }
}

static int runnable_fd(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* Runs exec_call with ENV bound to the environment the new image must get; runs: whether it
 * will most likely succeed (evaluated only when tracing). */
#define EXEC_WITH_ENV(env_in, exec_call, runs)                                                     \
    char marker[64];                                                                               \
    if (!tr_before_exec(marker, sizeof marker)) return exec_call(env_in);                          \
    if (runs) tr_exec_leaves();                                                                    \
    char *ENV[env_len(env_in) + 2];                                                                \
    return exec_call(with_marker(env_in, ENV, marker))

#define CALL_EXECVE(e) REAL(execve)(path, argv, e)
#define CALL_EXECVPE(e) REAL(execvpe)(file, argv, e)
#define CALL_FEXECVE(e) REAL(fexecve)(fd, argv, e)

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    EXEC_WITH_ENV(envp, CALL_EXECVE, runnable(path));
}

EXPORT int execv(const char *path, char *const argv[])
{
    EXEC_WITH_ENV(environ, CALL_EXECVE, runnable(path));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    EXEC_WITH_ENV(envp, CALL_EXECVPE, runnable_on_path(file));
}

EXPORT int execvp(const char *file, char *const argv[])
{
    EXEC_WITH_ENV(environ, CALL_EXECVPE, runnable_on_path(file));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    EXEC_WITH_ENV(envp, CALL_FEXECVE, runnable_fd(fd));
}

/* execl* are variadic: collect the arguments and go through the v variants above. */
#define COLLECT_ARGS(first, ap, argv)                                                              \
    size_t n = 1;                                                                                  \
    va_start(ap, first);                                                                           \
    while (va_arg(ap, char *))                                                                     \
        n++;                                                                                       \
    va_end(ap);                                                                                    \
    char *argv[n + 1];                                                                             \
    va_start(ap, first);                                                                           \
    argv[0] = (char *)first;                                                                       \
    for (size_t i = 1; i <= n; i++) {                                                              \
        argv[i] = va_arg(ap, char *);                                                              \
    }

EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv);
    va_end(ap);
    return execv(path, argv);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv);
    va_end(ap);
    return execvp(file, argv);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
