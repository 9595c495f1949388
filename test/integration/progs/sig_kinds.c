/* sig_kinds: every other way a program sets or reads a handler, on every signal the tracer may
 * hold (its fatal signals, SIGPROF under GOTRACE_CPU_HZ). The first argument names the way:
 *   bsd_signal, ssignal, sysv_signal: f(sig, h) returns SIG_DFL, sigaction reports h (flags and
 *     mask printed), a raise runs h, f(sig, SIG_DFL) returns h (SIG_DFL for the one-shot
 *     sysv_signal), f(sig, h) SIG_DFL again, f(sig, SIG_DFL) h, and sigaction's SIG_DFL is
 *     printed with its flags;
 *   sigset: sigset(sig, h) returns SIG_DFL, SIG_HOLD returns h then SIG_HOLD, a raise while
 *     held is pending, sigset(sig, h) returns SIG_HOLD and unblocks it (h runs),
 *     sigset(sig, SIG_DFL) returns h, SIG_HOLD then returns SIG_DFL, and sigset(sig, SIG_DFL)
 *     SIG_HOLD, the signal unblocked;
 *   sigignore: sigaction reports SIG_IGN, a raise is ignored, signal(sig, SIG_DFL) returns it;
 *   raw: h installed by syscall(SYS_rt_sigaction), which reads SIG_DFL as the previous action;
 *     sigaction reports h, a raise runs h (the tracer did not take it back), signal(sig,
 *     SIG_DFL) returns h;
 *   raw-dfl SIG: h installed so on signal SIG, sigaction(SIG, SIG_DFL) returns h, and a raise
 *     then kills the process (exit status 3 if it survives).
 * One line per signal: its number, then what each call returned ("dfl", "ign", "hold", "h",
 * "err" or "other") and the flags seen; exit status 1 if a call did not return what it
 * should, 2 for a bad argument. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

sighandler_t bsd_signal(int sig, sighandler_t handler);    /* glibc's, declared for XPG4 only */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* sigset, sigignore: the point */

static volatile sig_atomic_t ran[NSIG];

static void on_sig(int sig)
{
    ran[sig]++;
}

static const int sigs[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT,   SIGPIPE, SIGALRM, SIGUSR1,
                           SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGIO,   SIGPWR,  SIGSTKFLT,
                           SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,    SIGABRT, SIGPROF};

static int fails;

static const char *name(sighandler_t h)
{
    if (h == SIG_DFL) return "dfl";
    if (h == SIG_IGN) return "ign";
    if (h == SIG_HOLD) return "hold";
    if (h == SIG_ERR) return "err";
    return h == on_sig ? "h" : "other";
}

/* Prints what the call returned; counts a failure unless it is want. */
static void got(sighandler_t h, sighandler_t want)
{
    printf(" %s", name(h));
    if (h != want) {
        printf("(want %s)", name(want));
        fails++;
    }
}

/* What sigaction reports for sig: the handler (against want), its flags and sig's mask bit. */
static void reads(int sig, sighandler_t want)
{
    struct sigaction now;
    got(sigaction(sig, NULL, &now) == 0 ? now.sa_handler : SIG_ERR, want);
    printf("[%#x %d]", (unsigned)now.sa_flags, sigismember(&now.sa_mask, sig));
}

static void ran_once(int sig)
{
    printf(" ran=%d", (int)ran[sig]);
    if (ran[sig] != 1) fails++;
    ran[sig] = 0;
}

/* bsd_signal, ssignal, sysv_signal (one_shot: SA_RESETHAND). */
static void signal_like(int sig, sighandler_t (*set)(int, sighandler_t), int one_shot)
{
    got(set(sig, on_sig), SIG_DFL);
    reads(sig, on_sig);
    raise(sig);
    ran_once(sig);
    got(set(sig, SIG_DFL), one_shot ? SIG_DFL : on_sig);
    got(set(sig, on_sig), SIG_DFL);
    got(set(sig, SIG_DFL), on_sig);
    reads(sig, SIG_DFL);
}

static int blocked(int sig)
{
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    return sigismember(&cur, sig);
}

static void with_sigset(int sig)
{
    got(sigset(sig, on_sig), SIG_DFL);
    got(sigset(sig, SIG_HOLD), on_sig);
    got(sigset(sig, SIG_HOLD), SIG_HOLD);
    raise(sig);
    printf(" held-ran=%d", (int)ran[sig]);
    got(sigset(sig, on_sig), SIG_HOLD);
    ran_once(sig);
    got(sigset(sig, SIG_DFL), on_sig);
    got(sigset(sig, SIG_HOLD), SIG_DFL);
    got(sigset(sig, SIG_DFL), SIG_HOLD);
    printf(" blocked=%d", blocked(sig));
    if (blocked(sig)) fails++;
    reads(sig, SIG_DFL);
}

static void with_sigignore(int sig)
{
    printf(" %d", sigignore(sig));
    reads(sig, SIG_IGN);
    raise(sig);
    got(signal(sig, SIG_DFL), SIG_IGN);
    reads(sig, SIG_DFL);
}

/* The kernel's sigaction (x86-64), and its flag for a return trampoline of the caller's. */
#define K_SA_RESTORER 0x04000000
struct ksigaction {
    sighandler_t handler;
    unsigned long flags;
    void (*restorer)(void);
    unsigned long mask;
};

/* h installed for sig by the raw system call, with libc's restorer (restorer_of); the previous
 * handler printed against want. */
static void raw_install(int sig, void (*restorer)(void), sighandler_t want)
{
    struct ksigaction k = {on_sig, K_SA_RESTORER | SA_RESTART, restorer, 0}, old;
    memset(&old, 0xff, sizeof old);
    got(syscall(SYS_rt_sigaction, sig, &k, &old, sizeof k.mask) == 0 ? old.handler : SIG_ERR, want);
}

/* libc's signal return trampoline, as it gives it to the kernel (read back from the kernel: a
 * sanitizer's sigaction reports its own copy of the action). */
static void (*restorer_of(void))(void)
{
    struct sigaction sa;
    struct ksigaction k;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sig;
    sigaction(SIGWINCH, &sa, NULL);
    syscall(SYS_rt_sigaction, SIGWINCH, NULL, &k, sizeof k.mask);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGWINCH, &sa, NULL);
    return k.restorer;
}

static void raw(int sig)
{
    raw_install(sig, restorer_of(), SIG_DFL);
    reads(sig, on_sig);
    raise(sig);
    ran_once(sig);
    got(signal(sig, SIG_DFL), on_sig);
    reads(sig, SIG_DFL);
}

static int raw_then_default(int sig)
{
    struct sigaction sa, old;
    raw_install(sig, restorer_of(), SIG_DFL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    got(sigaction(sig, &sa, &old) == 0 ? old.sa_handler : SIG_ERR, on_sig);
    printf("\n");
    fflush(stdout);
    raise(sig);
    printf("survived\n");
    return 3;
}

static void with_bsd_signal(int sig)
{
    signal_like(sig, bsd_signal, 0);
}

static void with_ssignal(int sig)
{
    signal_like(sig, ssignal, 0);
}

static void with_sysv_signal(int sig)
{
    signal_like(sig, sysv_signal, 1);
}

static const struct {
    const char *name;
    void (*run)(int sig);
} ways[] = {{"bsd_signal", with_bsd_signal},   {"ssignal", with_ssignal},
            {"sysv_signal", with_sysv_signal}, {"sigset", with_sigset},
            {"sigignore", with_sigignore},     {"raw", raw}};

static int each(void (*run)(int sig))
{
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        printf("%d:", sigs[i]);
        run(sigs[i]);
        printf("\n");
        fflush(stdout);
    }
    return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "raw-dfl")) return raw_then_default(atoi(argv[2]));
    for (size_t i = 0; argc == 2 && i < sizeof ways / sizeof *ways; i++)
        if (!strcmp(argv[1], ways[i].name)) return each(ways[i].run);
    return 2;
}
