/* cmd_record.c: `gotrace record [-o FILE] -- PROGRAM ARGS...` — runs PROGRAM with
 * libgotrace.so preloaded, then says where the trace is and how to look at it.
 * Invariants: the library is found next to this binary, else in ../lib; LD_PRELOAD keeps any
 * existing value (ours is appended); GOTRACE_OUT defaults to gotrace.%p.trace and %p is the
 * child's pid; the exit status is the program's (128+signal if killed, 127 if it could not be
 * started); a program killed by a signal has its trace recovered (cmd_recover.c) first. */
#include "cli.h"
#include "cmds.h"
#include "live.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
    "usage: gotrace record [-o FILE] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM with the tracer (libgotrace.so, found next to gotrace or in ../lib)\n"
    "preloaded and writes a Go execution trace to FILE (default gotrace.%p.trace; %p is the\n"
    "program's pid, %% a percent sign). Exits with the program's status (128+signal if it\n"
    "was killed) and prints where the trace is and what to run next. When the program is\n"
    "killed by a signal, its trace is completed first (as `gotrace recover` does).\n";

/* Finds libgotrace.so next to the executable or in ../lib; 0 or -1. */
static int find_lib(char *out, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len <= 0) return -1;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = 0;
    static const char *cand[] = {"%s/libgotrace.so", "%s/../lib/libgotrace.so"};
    for (size_t i = 0; i < 2; i++) {
        struct stat st;
        int k = snprintf(out, n, cand[i], exe);
        if (k > 0 && (size_t)k < n && stat(out, &st) == 0 && S_ISREG(st.st_mode)) return 0;
    }
    return -1;
}

/* Expands %p and %% like the tracer does. */
static void expand(const char *pat, pid_t pid, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = pat; *p && k + 1 < n; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            k += (size_t)snprintf(out + k, n - k, "%d", (int)pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            out[k++] = '%';
            p++;
        } else {
            out[k++] = *p;
        }
        if (k >= n) k = n - 1;
    }
    out[k] = 0;
}

int gd_cmd_record(int argc, char **argv)
{
    const char *outpat = "gotrace.%p.trace";
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return GD_EXIT_OK;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            outpat = argv[++i];
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (argv[i][0] == '-') {
            fputs(usage, stderr);
            return GD_EXIT_USAGE;
        } else {
            break;
        }
    }
    if (i >= argc) {
        fputs(usage, stderr);
        return GD_EXIT_USAGE;
    }
    char lib[PATH_MAX];
    if (find_lib(lib, sizeof(lib))) {
        fprintf(stderr, "gotrace: record: libgotrace.so not found next to gotrace or in ../lib\n");
        return GD_EXIT_BAD_TRACE;
    }
    const char *old = getenv("LD_PRELOAD");
    size_t need = strlen(lib) + (old ? strlen(old) + 1 : 0) + 1;
    char *preload = malloc(need);
    if (!preload) return GD_EXIT_BAD_TRACE;
    snprintf(preload, need, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", lib);

    struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oquit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &oint); /* the program gets ^C; we wait for its trace */
    sigaction(SIGQUIT, &ign, &oquit);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("gotrace: record: fork");
        free(preload);
        return GD_EXIT_BAD_TRACE;
    }
    if (pid == 0) {
        sigaction(SIGINT, &oint, NULL);
        sigaction(SIGQUIT, &oquit, NULL);
        if (setenv("LD_PRELOAD", preload, 1) || setenv("GOTRACE_OUT", outpat, 1)) _exit(127);
        execvp(argv[i], argv + i);
        fprintf(stderr, "gotrace: record: %s: %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    free(preload);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGQUIT, &oquit, NULL);
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    char path[PATH_MAX];
    expand(outpat, pid, path, sizeof(path));
    char live[512];
    if (WIFSIGNALED(st) && gd_live_find(path, 1, live, sizeof live)) { /* killed: complete it */
        fprintf(stderr, "gotrace: record: %s was killed by signal %d; recovering its trace\n",
                argv[i], WTERMSIG(st));
        fflush(stdout);
        gd_recover_file(path, 0);
    }
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "gotrace: record: %s exited with status %d; no trace at %s\n", argv[i],
                code, path);
        return code;
    }
    fprintf(stderr,
            "gotrace: record: %s exited with status %d; trace written to %s (%lld bytes)\n"
            "next:\n"
            "  gotrace summary %s       # per-thread running / blocked / syscall time\n"
            "  gotrace contention %s    # where threads waited, by stack\n"
            "  gotrace export --format chrome %s -o trace.json   # Perfetto UI\n"
            "  go tool trace %s         # Go's web viewer\n",
            argv[i], code, path, (long long)sb.st_size, path, path, path, path);
    return code;
}
