/* children.h: what the process-tree test programs (proc_waits.c, xproc.c) share: a failed check
 * that does not stop the program (OK: the program prints "failed" at its end and exits 1), the
 * file naming the processes they make (pids: "KIND PID" lines), forking a child noted there, and
 * reaping a child that must have exited with status 0.
 * Invariant: included once, by a program's single source file (its state is static). */
#ifndef ITEST_CHILDREN_H
#define ITEST_CHILDREN_H
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int ok = 1;
#define OK(cond)                                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);                     \
            ok = 0;                                                                                \
        }                                                                                          \
    } while (0)

static FILE *pids;

/* A child of this process running first() (if not NULL) then fn(parent), noted in the pid file
 * as kind; it ends with exit(ok ? 0 : 1) (its trace written on the exit path) when at_exit,
 * else with _exit(0). */
static inline pid_t fork_child(const char *kind, void (*fn)(pid_t parent), void (*first)(void),
                               int at_exit)
{
    pid_t parent = getpid();
    fflush(pids);
    pid_t pid = fork();
    if (pid == 0) {
        if (first) first();
        fn(parent);
        if (at_exit) exit(ok ? 0 : 1);
        _exit(0);
    }
    fprintf(pids, "%s %d\n", kind, (int)pid);
    fflush(pids);
    return pid;
}

static void reap(pid_t pid)
{
    int st;
    OK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
#endif
