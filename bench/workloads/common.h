/* common.h: shared by the benchmark workloads. Invariant: a workload reads its size from argv[1]
 * (a positive count, else the default it passes) and prints nothing on success; the driver
 * (bench/run.sh) times the whole process. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H
#include <stdio.h>
#include <stdlib.h>

static inline long arg_count(int argc, char **argv, long dflt)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
    return n > 0 ? n : dflt;
}

static inline void die(const char *what)
{
    perror(what);
    exit(1);
}
#endif
