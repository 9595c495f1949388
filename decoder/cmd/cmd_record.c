/* cmd_record.c: `gotrace record [-o FILE] -- PROGRAM ARGS...` — runs PROGRAM with
 * libgotrace.so preloaded, then says where the trace is and how to look at it.
 * Invariants: the library is found next to this binary, else in ../lib; LD_PRELOAD keeps any
 * existing value (ours is appended); GOTRACE_OUT defaults to gotrace.%p.trace and %p is the
 * child's pid; the exit status is the program's (128+signal if killed, 127 if it could not be
 * started), as a shell reports it, so `gotrace record -- make test` can stand in for
 * `make test` in a script; a program killed by a signal has its trace recovered
 * (cmd_recover.c) first. record's own messages go to stderr, so the program's stdout is only
 * the program's (a recovery prints its one line to stdout, as `gotrace recover` does).
 * record's own failures (no tracer found, fork failed) are status 1. */
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

/* Finds libgotrace.so next to the executable or in ../lib; 0 or -1. The binary's own
 * location (/proc/self/exe, links resolved), not PATH or the working directory: build/gotrace
 * finds build/libgotrace.so, and $PREFIX/bin/gotrace finds $PREFIX/lib/libgotrace.so, so the
 * tracer is always the one built with this decoder. The path is absolute (the link's target),
 * so the program's children, which inherit LD_PRELOAD and may run elsewhere, find it too. */
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

/* Expands %p and %% like the tracer does, to name the trace the tracer wrote: the pattern is
 * passed on unexpanded (the pid is not known before the fork), and the child keeps its pid
 * through exec. The result is cut to n - 1 bytes if it is longer. */
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

/* Parses record's options: *outpat from -o, *prog the index of PROGRAM in argv. 0 to go on,
 * else the exit status (after --help, GD_EXIT_OK; a bad command line, GD_EXIT_USAGE). */
static int parse_args(int argc, char **argv, const char **outpat, int *prog)
{
    /* Options stop at "--" or at the first operand: everything from PROGRAM on is the
     * program's command line, untouched, so `record ./app -o x` passes -o to app. */
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return -1;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            *outpat = argv[++i];
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (argv[i][0] == '-') {
            i = argc; /* an unknown option: usage below */
        } else {
            break;
        }
    }
    if (i >= argc) {
        fputs(usage, stderr);
        return GD_EXIT_USAGE;
    }
    *prog = i;
    return 0;
}

/* The LD_PRELOAD value for the program: the one it has, then our library (appended, so a
 * preload the user asked for still comes first and sees the program's calls before us).
 * NULL after a message when the library is not found or memory is short. */
static char *preload_value(void)
{
    char lib[PATH_MAX];
    if (find_lib(lib, sizeof(lib))) {
        fprintf(stderr, "gotrace: record: libgotrace.so not found next to gotrace or in ../lib\n");
        return NULL;
    }
    const char *old = getenv("LD_PRELOAD");
    size_t need = strlen(lib) + (old ? strlen(old) + 1 : 0) + 1;
    char *preload = malloc(need);
    if (preload)
        snprintf(preload, need, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", lib);
    return preload;
}

/* Runs argv[0] with the tracer and waits for it: its pid and wait status in *pid, *st; 0 or -1
 * (fork failed). SIGINT and SIGQUIT are ignored meanwhile, as a shell does for a foreground
 * job it waits for: the terminal sends ^C (^\) to the whole foreground process group, record
 * and the program alike. The program handles it as it would untraced (its tracer writes the
 * last generation as it dies); record must outlive it, to report its status and, if the signal
 * killed it before its trace was whole, to recover the rest, which nobody would do if record
 * died of the same ^C. The child gets the dispositions record had, so the program sees no
 * difference (an ignored SIGINT would survive exec and make it immune to ^C). */
static int run_traced(char **argv, const char *preload, const char *outpat, pid_t *pid, int *st)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oquit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    fflush(NULL); /* what record printed so far comes before the program's output */
    *pid = fork();
    if (*pid < 0) {
        perror("gotrace: record: fork");
    } else if (*pid == 0) {
        sigaction(SIGINT, &oint, NULL);
        sigaction(SIGQUIT, &oquit, NULL);
        /* Set in the child only: record's own environment stays as it was. 127 is a shell's
         * status for a command that could not be run; _exit, not exit: the parent's stdio
         * buffers and atexit handlers are not the child's to run. */
        if (setenv("LD_PRELOAD", preload, 1) || setenv("GOTRACE_OUT", outpat, 1)) _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "gotrace: record: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    } else {
        /* Only this child: the program's own children are the program's to reap. */
        while (waitpid(*pid, st, 0) < 0 && errno == EINTR)
            ;
    }
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGQUIT, &oquit, NULL);
    return *pid < 0 ? -1 : 0;
}

/* After the program ended with wait status st: completes the trace at path if a signal killed
 * the program before it wrote all of it (its live file is left), then says where the trace is
 * and what to run next (or that there is none). */
static void report_trace(const char *prog, const char *path, int st, int code)
{
    char live[512];
    /* Only after a signal: a program that exited wrote its last generation and removed its
     * live file itself. A fatal signal the tracer caught also ends cleanly (the file is
     * gone); SIGKILL, or a signal whose handler was the program's, leaves it. dead_only: a
     * file whose process still runs (a child the program forked) is not recovered now, and
     * recover would refuse it anyway; record then only says where the trace is. */
    if (WIFSIGNALED(st) && gd_live_find(path, 1, live, sizeof live)) {
        fprintf(stderr, "gotrace: record: %s was killed by signal %d; recovering its trace\n", prog,
                WTERMSIG(st));
        fflush(stdout);
        gd_recover_file(path, 0); /* its messages are its own; the status stays the program's */
    }
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "gotrace: record: %s exited with status %d; no trace at %s\n", prog, code,
                path);
        return;
    }
    fprintf(stderr,
            "gotrace: record: %s exited with status %d; trace written to %s (%lld bytes)\n"
            "next:\n"
            "  gotrace summary %s       # per-thread running / blocked / syscall time\n"
            "  gotrace contention %s    # where threads waited, by stack\n"
            "  gotrace export --format chrome %s -o trace.json   # Perfetto UI\n"
            "  go tool trace %s         # Go's web viewer\n",
            prog, code, path, (long long)sb.st_size, path, path, path, path);
}

int gd_cmd_record(int argc, char **argv)
{
    const char *outpat = "gotrace.%p.trace";
    int prog, rc = parse_args(argc, argv, &outpat, &prog);
    if (rc) return rc < 0 ? GD_EXIT_OK : rc;
    char *preload = preload_value();
    if (!preload) return GD_EXIT_BAD_TRACE; /* status 1: record's failure, not the program's */
    pid_t pid;
    int st = 0;
    rc = run_traced(argv + prog, preload, outpat, &pid, &st);
    free(preload);
    if (rc) return GD_EXIT_BAD_TRACE;
    /* The program's own status, as a shell reports it. */
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    char path[PATH_MAX];
    expand(outpat, pid, path, sizeof(path));
    report_trace(argv[prog], path, st, code);
    return code;
}
