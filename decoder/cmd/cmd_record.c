/* cmd_record.c: `gotrace record [-o FILE] -- PROGRAM ARGS...` — runs PROGRAM with
 * libgotrace.so preloaded, follows every process it starts (children inherit LD_PRELOAD), and
 * leaves FILE as ONE trace of them all (cmd_merge.c), the per-process traces kept in FILE.d/;
 * then says where the trace is and how to look at it.
 * Invariants: the library is found next to this binary, else in ../lib; LD_PRELOAD keeps any
 * existing value (ours is appended); FILE defaults to gotrace.%p.trace and %p is the program's
 * pid; each process writes FILE.d/PID.trace (an exec'd image PID-execN.trace), the folder's
 * old trace files removed first; record is the subreaper of the program's tree, so it waits
 * for every process of it (one left running in the background too) before merging; the exit
 * status is the program's (128+signal if killed, 127 if it could not be started), as a shell
 * reports it, so `gotrace record -- make test` can stand in for `make test` in a script; a
 * process killed by a signal has its trace recovered (cmd_recover.c) first. record's own
 * messages go to stderr, a recovery's line too, so the program's stdout is only the program's.
 * record's own failures (no tracer found, fork
 * failed) are status 1. */
#include "cli.h"
#include "cmds.h"
#include "live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAITS_FILE ".waits" /* in FILE.d/: the shared wait page (share_waits) */

static const char usage[] =
    "usage: gotrace record [-o FILE] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM with the tracer (libgotrace.so, found next to gotrace or in ../lib)\n"
    "preloaded, with every process it starts, and writes ONE Go execution trace of them all\n"
    "to FILE (default gotrace.%p.trace; %p is the program's pid, %% a percent sign); each\n"
    "process's own trace is kept in FILE.d/. Waits for every process of the tree, exits with\n"
    "the program's status (128+signal if it was killed) and prints where the trace is and\n"
    "what to run next. A process killed by a signal has its trace completed first (as\n"
    "`gotrace recover` does).\n";

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

/* The folder of the per-process traces of trace path: path.d, absolute when abs (the
 * program's processes may change directory); 0, or -1 when it does not fit. */
static int folder_of(const char *path, int abs, char *out, size_t n)
{
    char cwd[PATH_MAX];
    int k;
    if (abs && path[0] != '/') {
        if (!getcwd(cwd, sizeof cwd)) return -1;
        k = snprintf(out, n, "%s/%s.d", cwd, path);
    } else {
        k = snprintf(out, n, "%s.d", path);
    }
    return k > 0 && (size_t)k < n ? 0 : -1;
}

/* Whether a file of the folder is a process's trace: PID.trace, PID-execN.trace, ... */
static int is_proc_trace(const char *name)
{
    return name[0] >= '0' && name[0] <= '9' && strstr(name, ".trace");
}

/* Makes folder dir, or empties it of an earlier run's process traces; 0 or -1 (errno set).
 * Run as root, the folder is writable by every user with the sticky bit (as /tmp): only root
 * can change users, and a server that switches to its own user and then execs (setpriv,
 * runuser, su) writes its new image's trace there as that user; each file stays its writer's. */
static int prepare_folder(const char *dir)
{
    if (mkdir(dir, 0777) == 0) return geteuid() == 0 ? chmod(dir, 01777) : 0;
    if (errno != EEXIST) return -1;
    if (geteuid() == 0 && chmod(dir, 01777) != 0) return -1;
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    char p[PATH_MAX];
    while ((e = readdir(d)))
        if (is_proc_trace(e->d_name) &&
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p)
            unlink(p);
    closedir(d);
    return 0;
}

/* The page the tree's tracers share (GOTRACE_WAITS, preload/util/pipes.h: who waits on which
 * pipe or socket, so that a writer in another process logs the write that ends the wait): a
 * fresh zeroed file dir/.waits (merge skips dot files), removed by record once the tree is
 * over. Without it nothing is shared: 0 either way, unless setenv fails. */
static int share_waits(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/" WAITS_FILE, dir) >= (int)sizeof path) return 0;
    unlink(path);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return 0;
    int sized = ftruncate(fd, 4096) == 0;
    if (geteuid() == 0) fchmod(fd, 0666); /* every user the tree becomes counts its waits */
    close(fd);
    return sized ? setenv("GOTRACE_WAITS", path, 1) : 0;
}

/* In the child, before exec: the folder made and GOTRACE_OUT pointing into it; 0 or -1 after
 * a message. */
static int child_env(const char *preload, const char *outpat)
{
    char path[PATH_MAX], dir[PATH_MAX], out[PATH_MAX + 16];
    expand(outpat, getpid(), path, sizeof path);
    if (folder_of(path, 1, dir, sizeof dir) || prepare_folder(dir)) {
        fprintf(stderr, "gotrace: record: %s.d: %s\n", path, strerror(errno));
        return -1;
    }
    snprintf(out, sizeof out, "%s/%%p.trace", dir);
    return setenv("LD_PRELOAD", preload, 1) || setenv("GOTRACE_OUT", out, 1) || share_waits(dir)
               ? -1
               : 0;
}

/* Waits for program pid (its wait status in *st) and for every process of its tree: record is
 * their subreaper, so orphans come to it, and once none is left every trace is complete. */
static void wait_tree(pid_t pid, int *st)
{
    for (;;) {
        int s;
        pid_t w = waitpid(-1, &s, 0);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return; /* ECHILD: the tree is over */
        if (w == pid) *st = s;
    }
}

/* Runs argv[0] with the tracer and waits for it and its tree: its pid and wait status in *pid,
 * *st; 0 or -1 (fork failed). SIGINT and SIGQUIT are ignored meanwhile, as a shell does for a
 * foreground job it waits for: the terminal sends ^C (^\) to the whole foreground process
 * group, record and the program alike. The program handles it as it would untraced (its tracer
 * writes the last generation as it dies); record must outlive it, to report its status and, if
 * the signal killed it before its trace was whole, to recover the rest, which nobody would do
 * if record died of the same ^C. The child gets the dispositions record had, so the program
 * sees no difference (an ignored SIGINT would survive exec and make it immune to ^C). */
static int run_traced(char **argv, const char *preload, const char *outpat, pid_t *pid, int *st)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oquit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
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
        if (child_env(preload, outpat)) _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "gotrace: record: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    } else {
        wait_tree(*pid, st);
    }
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGQUIT, &oquit, NULL);
    return *pid < 0 ? -1 : 0;
}

/* Completes the trace of every process of folder dir that a signal killed before it wrote all
 * of it (its live file is left: SIGKILL, or a fatal signal whose handler was the program's);
 * returns how many process traces the folder holds, and one of them in one (n bytes). */
static size_t recover_killed(const char *dir, char *one, size_t n)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t count = 0;
    struct dirent *e;
    char p[PATH_MAX], live[512];
    while ((e = readdir(d))) {
        if (!is_proc_trace(e->d_name) ||
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
            continue;
        count++;
        snprintf(one, n, "%s", p);
        if (!gd_live_find(p, 1, live, sizeof live)) continue;
        fprintf(stderr, "gotrace: record: %s: its process was killed; recovering its trace\n", p);
        /* its line to stderr, as record's own (stdout is the program's); the status stays the
         * program's */
        gd_recover_file(p, 0, stderr);
    }
    closedir(d);
    return count;
}

/* Makes path the trace of the folder's processes: the one trace itself (a hard link, else a
 * copy through merge) or their merge; returns how many processes, 0 when none or on failure
 * (after a message). */
static size_t make_trace(const char *path, const char *dir)
{
    char one[PATH_MAX];
    size_t n = recover_killed(dir, one, sizeof one);
    if (!n) return 0;
    if (n == 1) {
        unlink(path);
        if (link(one, path) == 0) return 1;
    }
    size_t found;
    return gd_merge_into(dir, path, &found) == 0 ? found : 0;
}

/* After the program and its tree ended (the program with wait status st): says where the trace
 * is and what to run next (or that there is none). */
static void report_trace(const char *prog, const char *path, size_t nproc, const char *dir,
                         int code)
{
    struct stat sb;
    if (!nproc || stat(path, &sb) != 0) {
        fprintf(stderr, "gotrace: record: %s exited with status %d; no trace at %s\n", prog, code,
                path);
        return;
    }
    fprintf(stderr, "gotrace: record: %s exited with status %d; trace written to %s (%lld bytes)",
            prog, code, path, (long long)sb.st_size);
    if (nproc > 1)
        fprintf(stderr, ": %zu processes on one timeline, each one's own trace in %s/", nproc, dir);
    fprintf(stderr,
            "\n"
            "next:\n"
            "  gotrace summary %s       # per-thread running / blocked / syscall time\n"
            "  gotrace contention %s    # where threads waited, by stack\n"
            "  gotrace export --format chrome %s -o trace.json   # Perfetto UI\n"
            "  go tool trace %s         # Go's web viewer\n",
            path, path, path, path);
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
    char path[PATH_MAX], dir[PATH_MAX];
    expand(outpat, pid, path, sizeof(path));
    size_t n = 0;
    if (!folder_of(path, 0, dir, sizeof dir)) {
        char waits[PATH_MAX + 8];
        n = make_trace(path, dir);
        if (snprintf(waits, sizeof waits, "%s/" WAITS_FILE, dir) < (int)sizeof waits) unlink(waits);
    }
    report_trace(argv[prog], path, n, dir, code);
    return code;
}
