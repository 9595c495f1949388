/* common.h: small helpers shared by the integration test programs.
 * Invariants: no output unless a call fails; a failing pthread call exits with status 99 and a
 * message on stderr, so a case sees a broken run as a wrong exit status. */
#ifndef ITEST_COMMON_H
#define ITEST_COMMON_H
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != 0) {                                                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, strerror(rc_));          \
            exit(99);                                                                              \
        }                                                                                          \
    } while (0)

static inline double clock_ms(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline double now_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}

/* Burns CPU for about ms milliseconds without calling anything the tracer hooks. Returns a
 * value that depends on the work so the loop is not optimized away. */
static inline unsigned long spin_on(clockid_t clk, double ms)
{
    volatile unsigned long x = 1;
    double end = clock_ms(clk) + ms;
    while (clock_ms(clk) < end)
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}

static inline unsigned long spin_ms(double ms)
{
    return spin_on(CLOCK_MONOTONIC, ms);
}

/* The same for ms milliseconds of the calling thread's CPU time (as long on a loaded machine). */
static inline unsigned long spin_cpu_ms(double ms)
{
    return spin_on(CLOCK_THREAD_CPUTIME_ID, ms);
}

/* Returns once the file at path (a /proc file) holds where. Raw system calls: a forked child
 * records nothing through them. */
static inline void until_file_holds(const char *path, const char *where)
{
    char buf[128];
    for (;;) {
        int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
        long n = fd >= 0 ? syscall(SYS_read, fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0) syscall(SYS_close, fd);
        if (n < 0) exit(98);
        buf[n] = 0;
        if (strstr(buf, where)) return;
        syscall(SYS_sched_yield);
    }
}

/* Returns once thread tid of this process sleeps in the kernel function whose name contains
 * where ("pipe_read", "pipe_write": /proc/self/task/TID/wchan). */
static inline void until_task_sleeping(int tid, const char *where)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/wchan", tid);
    until_file_holds(path, where);
}

/* In a forked child: returns once process pid (its parent) sleeps in the kernel function whose
 * name contains where (/proc/PID/wchan: "do_wait" in a wait for a child, "sigsuspend",
 * "do_sigtimedwait", "futex_wait"), so that the parent's call has really begun to wait. */
static inline void until_sleeping_in(int pid, const char *where)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/wchan", pid);
    until_file_holds(path, where);
}
#endif
