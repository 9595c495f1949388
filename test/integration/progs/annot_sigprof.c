/* annot_sigprof: a program that profiles itself with SIGPROF (ITIMER_PROF). With argument
 * "signal" it installs its handler with signal(), else with sigaction(). Before installing it
 * prints what sigaction reports for SIGPROF ("before=default" when SIG_DFL), then burns 300 ms
 * of CPU and prints "ticks>0" if its handler ran. */
#include "common.h"

#include <signal.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
static void on_prof(int sig)
{
    (void)sig;
    ticks++;
}

int main(int argc, char **argv)
{
    struct sigaction old, sa;
    if (sigaction(SIGPROF, NULL, &old) != 0) return 97;
    printf("before=%s\n", old.sa_handler == SIG_DFL ? "default" : "other");
    if (argc > 1 && strcmp(argv[1], "signal") == 0) {
        if (signal(SIGPROF, on_prof) == SIG_ERR) return 96;
    } else {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_prof;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGPROF, &sa, NULL) != 0) return 96;
    }
    struct itimerval it = {{0, 10000}, {0, 10000}};
    if (setitimer(ITIMER_PROF, &it, NULL) != 0) return 95;
    spin_ms(300);
    printf("ticks%s\n", ticks > 0 ? ">0" : "=0");
    return 0;
}
