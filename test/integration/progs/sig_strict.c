/* sig_strict: signal() as a strict C build calls it, then sigaction, on every signal the tracer
 * may hold (its fatal signals, SIGPROF under GOTRACE_CPU_HZ, the flight recorder's SIGUSR2): the
 * Open POSIX Test Suite's sigaction/28-1 ... 28-26 and pthread_create/11-1. Built with
 * -std=c99 -D_POSIX_C_SOURCE (below), signal() is glibc's __sysv_signal: one-shot
 * (SA_RESETHAND | SA_NODEFER). For each signal: signal(sig, h) returns SIG_DFL;
 * sigaction(sig, &other, &old) returns h as old; old put back and the signal raised, h runs
 * once (and the kernel resets SIG_DFL); signal(sig, SIG_DFL) then returns SIG_DFL, signal(sig,
 * h) SIG_DFL again, sigaction reports h; after signal(sig, SIG_DFL), sigaction reports SIG_DFL.
 * One line per signal: its number, the flags and mask seen, and what was not as expected ("ok"
 * when all was); exit status 1 if anything was not. With a signal number as argument, that
 * signal is raised at the end, its disposition SIG_DFL again (the process dies of it). */
/* itest-cflags: -std=c99 -D_POSIX_C_SOURCE=200809L */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t ran[65];

static void on_sig(int sig)
{
    ran[sig]++;
}

static void other(int sig)
{
    (void)sig;
}

static const int sigs[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT,   SIGPIPE, SIGALRM, SIGUSR1,
                           SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGIO,   SIGPWR,  SIGSTKFLT,
                           SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,    SIGABRT, SIGPROF};

static int fails;

/* Prints what unless ok. */
static void expect(int ok, const char *what)
{
    if (ok) return;
    printf(" %s", what);
    fails++;
}

/* sigaction(sig, &other, &old): must report h; old is put back. */
static void replace_and_restore(int sig)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = other;
    sigemptyset(&sa.sa_mask);
    expect(sigaction(sig, &sa, &old) == 0 && old.sa_handler == on_sig, "old-not-h");
    printf(" old.flags=%#x old.masked=%d", (unsigned)old.sa_flags, sigismember(&old.sa_mask, sig));
    expect(sigaction(sig, &old, NULL) == 0, "restore-failed");
}

static void check(int sig)
{
    struct sigaction now;
    int before = fails;
    printf("%d:", sig);
    expect(signal(sig, on_sig) == SIG_DFL, "first-not-SIG_DFL");
    replace_and_restore(sig);
    raise(sig);
    expect(ran[sig] == 1, "h-did-not-run-once");
    expect(signal(sig, SIG_DFL) == SIG_DFL, "one-shot-not-SIG_DFL");
    expect(signal(sig, on_sig) == SIG_DFL, "second-not-SIG_DFL");
    expect(sigaction(sig, NULL, &now) == 0 && now.sa_handler == on_sig, "read-not-h");
    expect(signal(sig, SIG_DFL) == on_sig, "reset-not-h");
    expect(sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_DFL, "read-not-SIG_DFL");
    printf(" dfl.flags=%#x dfl.masked=%d", (unsigned)now.sa_flags, sigismember(&now.sa_mask, sig));
    printf("%s\n", fails == before ? " ok" : "");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        check(sigs[i]);
    if (argc > 1) raise(atoi(argv[1]));
    return fails ? 1 : 0;
}
