/* fatal_end.c SIGNAME COUNTS: two threads sleep 2 ms at a time and count their completed sleeps
 * in COUNTS (a shared file mapping, so the count survives the process); after 300 ms (well
 * inside the tracer's first generation) main ends the process with SIGNAME: TERM, INT, HUP,
 * QUIT, ABRT, USR1, USR2, XCPU, XFSZ, VTALRM, IO, PWR, STKFLT (kill to the process), abort
 * (abort()), SEGV (a store to address 0), BUS (a read past the end of a truncated file
 * mapping), ILL (an invalid instruction), FPE (an integer division by zero), PIPE (a write to a
 * pipe whose reader is closed), ALRM (a 1 ms timer), reraise (SIGTERM to the process, whose
 * handler, installed at the start, restores SIG_DFL and raises it again, as GNU tools do after
 * their clean-up), quick_exit (quick_exit(3) after an at_quick_exit handler that starts and
 * joins a thread: no destructor runs), exit_group (syscall(SYS_exit_group, 4)); wait: nothing
 * (something else ends it: bench/kept.sh sends SIGKILL); fork: main starts one sleeper (counted
 * third), forks, and waits for the child, which does what `wait` does, its pid in COUNTS.pid
 * (recover_kill kills it), then exits with status 0. Untraced it dies of that signal; it never
 * exits normally (fork: the parent does).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static _Atomic long *counts;

static void *sleeper(void *arg)
{
    long i = (long)arg;
    for (;;) {
        usleep(2000);
        counts[i]++;
    }
    return NULL;
}

static void *map_file(const char *path, size_t size, int truncate_after)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) exit(2);
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) exit(2);
    if (truncate_after && ftruncate(fd, 0) != 0) exit(2);
    close(fd);
    return p;
}

static void *nothing(void *arg)
{
    return arg;
}

static void joins_one(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) == 0) pthread_join(t, NULL);
}

static void end_with(const char *how, const char *counts_path)
{
    static const struct {
        const char *name;
        int sig;
    } sent[] = {{"TERM", SIGTERM},    {"INT", SIGINT},       {"HUP", SIGHUP},   {"QUIT", SIGQUIT},
                {"ABRT", SIGABRT},    {"USR1", SIGUSR1},     {"USR2", SIGUSR2}, {"XCPU", SIGXCPU},
                {"XFSZ", SIGXFSZ},    {"VTALRM", SIGVTALRM}, {"IO", SIGIO},     {"PWR", SIGPWR},
                {"STKFLT", SIGSTKFLT}};
    for (size_t i = 0; i < sizeof sent / sizeof *sent; i++)
        if (strcmp(how, sent[i].name) == 0) kill(getpid(), sent[i].sig);
    if (strcmp(how, "abort") == 0) abort();
    if (strcmp(how, "reraise") == 0) kill(getpid(), SIGTERM);
    if (strcmp(how, "quick_exit") == 0) {
        at_quick_exit(joins_one);
        quick_exit(3);
    }
    if (strcmp(how, "exit_group") == 0) syscall(SYS_exit_group, 4);
    if (strcmp(how, "SEGV") == 0) *(volatile int *)0 = 1;
    if (strcmp(how, "BUS") == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s.bus", counts_path);
        volatile char *p = map_file(path, 4096, 1);
        (void)p[0];
    }
    if (strcmp(how, "ILL") == 0) __builtin_trap();
    if (strcmp(how, "FPE") == 0) {
        volatile int zero = 0, one = 1;
        one /= zero;
    }
    if (strcmp(how, "PIPE") == 0) {
        int fds[2];
        if (pipe(fds) != 0 || close(fds[0]) != 0) exit(2);
        if (write(fds[1], "x", 1) != -1) exit(2);
    }
    if (strcmp(how, "ALRM") == 0) {
        struct itimerval once = {.it_value = {.tv_usec = 1000}};
        setitimer(ITIMER_REAL, &once, NULL);
    }
}

static void reraise(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The parent of the fork mode: a thread of its own, then a child doing the work. */
static int forked(const char *counts_path)
{
    pthread_t t;
    pthread_create(&t, NULL, sleeper, (void *)2);
    while (counts[2] < 5)
        usleep(1000);
    pid_t pid = fork();
    if (pid != 0) {
        int st;
        waitpid(pid, &st, 0);
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.pid", counts_path);
    FILE *f = fopen(path, "w");
    if (!f) _exit(2);
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    counts = map_file(argv[2], 4096, 0);
    if (strcmp(argv[1], "reraise") == 0) {
        struct sigaction sa = {.sa_handler = reraise}, old;
        if (sigaction(SIGTERM, &sa, &old) != 0 || old.sa_handler != SIG_DFL) return 2;
    }
    if (strcmp(argv[1], "fork") == 0) {
        int rc = forked(argv[2]);
        if (rc >= 0) return rc;
    }
    pthread_t th[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, sleeper, (void *)i);
    usleep(300000);
    end_with(argv[1], argv[2]);
    for (;;)
        pause(); /* a signal sent to the process may reach another thread first */
}
