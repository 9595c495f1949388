/* sigown.c: the program's signal calls, routed to their owner. See sigown.h. */
#include "sigown.h"

#include "cpuprof.h"
#include "fatal.h"

int sigown_sigaction(int sig, const struct sigaction *act, struct sigaction *old, int *r)
{
    return (sig == SIGPROF && cpuprof_sigaction(act, old, r)) || fatal_sigaction(sig, act, old, r);
}

int sigown_handles(int sig, void (*handler)(int))
{
    return sig == SIGPROF || fatal_handles(sig, handler);
}
