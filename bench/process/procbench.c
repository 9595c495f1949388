/* procbench.c: the per-process cost of a preload, measured with paired, alternating runs.
 *
 *   procbench ROUNDS NAME=PRELOAD[+VAR=VALUE...]... -- COMMAND ARGS...
 *
 * Each round runs COMMAND once under every variant (LD_PRELOAD=PRELOAD; an empty PRELOAD runs
 * it with LD_PRELOAD unset; each +VAR=VALUE is set too), in an order rotated by one every
 * round, so that machine noise
 * hits every variant alike. It prints one line per variant: the median wall time of the whole
 * process (spawn to reaped, ms), the first and third quartiles, the median of the per-round
 * differences against the first variant (the paired difference: steadier than a difference of
 * medians), then the median CPU time (user + system of the process and its reaped children, ms)
 * and its paired difference: less sensitive than wall time to other work on the machine. COMMAND's
 * output goes to /dev/null; a run that does not exit 0 fails the bench. Invariants: the only
 * environment changes are LD_PRELOAD and the variant's own variables; one process at a time. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { MAX_VARIANTS = 8 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of n values (sorted in place), interpolated. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    double pos = q * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

/* Whether entry (NAME=VALUE) sets one of the variables of spec (PRELOAD+VAR=VALUE...). */
static int overridden(const char *entry, const char *spec)
{
    size_t n = strcspn(entry, "=");
    if (n == 10 && strncmp(entry, "LD_PRELOAD", 10) == 0) return 1;
    for (const char *p = strchr(spec, '+'); p; p = strchr(p + 1, '+'))
        if (strncmp(p + 1, entry, n + 1) == 0) return 1;
    return 0;
}

/* The environment with the variant's LD_PRELOAD (none if empty) and variables. spec is
 * PRELOAD+VAR=VALUE...; it is cut at its '+'s. */
static char **env_with(char *spec)
{
    size_t n = 0, extra = 1;
    while (environ[n])
        n++;
    for (const char *p = spec; (p = strchr(p, '+')) != NULL; p++)
        extra++;
    char **env = calloc(n + extra + 1, sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!overridden(environ[i], spec)) env[k++] = environ[i];
    char *plus = strchr(spec, '+');
    for (char *p = plus; p; p = strchr(p, '+')) {
        *p++ = 0;
        env[k++] = p;
    }
    if (*spec) {
        size_t len = strlen(spec) + 12;
        if (!(env[k] = malloc(len))) return NULL;
        snprintf(env[k++], len, "LD_PRELOAD=%s", spec);
    }
    return env;
}

/* Wall ms of one run of argv under env (its CPU ms into *cpu); -1 if it could not run or did not
 * exit 0. */
static double run_once(char **argv, char **env, double *cpu)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
    pid_t pid;
    double t0 = now_ms();
    int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) return -1;
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) return -1;
    double t = now_ms() - t0;
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1;
}

/* The median of variant i's values (of nv variants) over the rounds, or of their differences
 * to variant 0's (paired); v is scratch. */
static double median_of(const double *t, int rounds, int nv, int i, int paired, double *v)
{
    for (int r = 0; r < rounds; r++)
        v[r] = t[r * nv + i] - (paired ? t[r * nv] : 0);
    return quantile(v, rounds, 0.5);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 0, nv = 0, cmd = 0;
    const char *name[MAX_VARIANTS];
    char **env[MAX_VARIANTS];
    for (int i = 2; i < argc && !cmd; i++) {
        char *eq = strchr(argv[i], '=');
        if (strcmp(argv[i], "--") == 0) {
            cmd = i + 1;
        } else if (eq && nv < MAX_VARIANTS) {
            *eq = 0;
            name[nv] = argv[i];
            if (!(env[nv++] = env_with(eq + 1))) return 1;
        } else {
            cmd = -1;
        }
    }
    if (rounds < 1 || nv < 1 || cmd <= 0 || cmd >= argc) {
        fprintf(stderr,
                "usage: procbench ROUNDS NAME=PRELOAD[+VAR=VALUE...]... -- COMMAND ARGS...\n");
        return 2;
    }
    double *t = calloc((size_t)(rounds * nv), sizeof *t),
           *c = calloc((size_t)(rounds * nv), sizeof *c), *v = calloc((size_t)rounds, sizeof *v);
    if (!t || !c || !v) return 1;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < nv; k++) {
            int i = (r + k) % nv;
            if ((t[r * nv + i] = run_once(argv + cmd, env[i], &c[r * nv + i])) < 0) {
                fprintf(stderr, "procbench: %s failed under %s\n", argv[cmd], name[i]);
                return 1;
            }
        }
    for (int i = 0; i < nv; i++) {
        for (int r = 0; r < rounds; r++)
            v[r] = t[r * nv + i];
        double q1 = quantile(v, rounds, 0.25), q3 = quantile(v, rounds, 0.75);
        printf("%s %.3f %.3f %.3f %+.3f %.3f %+.3f\n", name[i], median_of(t, rounds, nv, i, 0, v),
               q1, q3, median_of(t, rounds, nv, i, 1, v), median_of(c, rounds, nv, i, 0, v),
               median_of(c, rounds, nv, i, 1, v));
    }
    return 0;
}
