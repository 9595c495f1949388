/* children.h: what the process-tree test programs (proc_waits.c, xproc.c) share: a failed check
 * that does not stop the program (OK: the program prints "failed" at its end and exits 1), the
 * file naming the processes they make (pids: "KIND PID" lines), and reaping a child that must
 * have exited with status 0.
 * Invariant: included once, by a program's single source file (its state is static). */
#ifndef ITEST_CHILDREN_H
#define ITEST_CHILDREN_H
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>

static int ok = 1;
#define OK(cond)                                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);                     \
            ok = 0;                                                                                \
        }                                                                                          \
    } while (0)

static FILE *pids;

static void reap(pid_t pid)
{
    int st;
    OK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
#endif
