/* robust_side_effects MODE: what a program can see of its own process, to compare traced and
 * untraced runs. MODE "report": errno at main's start, the signal mask of main and of a new
 * thread, every signal's disposition and flags, the first pthread key, the first descriptor
 * open() returns, every resource limit, the umask. MODE "closefrom", "close_range",
 * "close-loop": a daemon-like cleanup of every descriptor above 2 with threads running; MODE
 * "dup2-trace": a dup2 of /dev/null onto a descriptor open on a *.trace file, then a close of
 * it (untraced there is none) -- either way, then one more thread
 * (after_close) works for a while; prints "ok" when every call behaved as on a process whose
 * descriptors above 2 are all the program's own (close of an unknown one says EBADF). MODES
 * "sys-close-range", "sys-close-loop", "sys-dup2-trace", "sys-dup3-trace": the same through
 * syscall(SYS_...). MODE "asm-dup2-trace FILE": once the *.trace file holds a generation
 * (more than its header), a dup2 of FILE (created empty) onto its descriptor as an inline
 * system call no hook can see, then the same; FILE must stay empty (checked by the case). MODE
 * "main-exit": main calls pthread_exit while a worker still runs; the worker prints "ok" and
 * returns, so the process ends with status 0. MODE "ignored": SIGHUP, SIGINT, SIGQUIT, SIGUSR1,
 * SIGPIPE and SIGTERM set to SIG_IGN, then an exec of itself in MODE "report": a program started
 * with them ignored, as under nohup or a shell's trap ''. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

static int errno_at_start;
__attribute__((constructor(65535))) static void note_errno(void)
{
    errno_at_start = errno;
}

static void print_mask(const char *who)
{
    sigset_t s;
    pthread_sigmask(SIG_BLOCK, NULL, &s);
    printf("mask %s:", who);
    for (int i = 1; i < 65; i++)
        if (sigismember(&s, i)) printf(" %d", i);
    printf("\n");
}

static void *mask_thread(void *arg)
{
    print_mask("thread");
    return arg;
}

static void report(void)
{
    printf("errno at start: %d\n", errno_at_start);
    print_mask("main");
    pthread_t t;
    CHECK(pthread_create(&t, NULL, mask_thread, NULL));
    CHECK(pthread_join(t, NULL));
    for (int i = 1; i < 65; i++) {
        struct sigaction sa;
        if (sigaction(i, NULL, &sa) != 0) {
            printf("signal %d: error %d\n", i, errno);
            continue;
        }
        const char *h = sa.sa_handler == SIG_DFL   ? "default"
                        : sa.sa_handler == SIG_IGN ? "ignore"
                                                   : "handler";
        printf("signal %d: %s flags %#x\n", i, h, (unsigned)sa.sa_flags);
    }
    pthread_key_t k;
    CHECK(pthread_key_create(&k, NULL));
    printf("first key: %u\n", (unsigned)k);
    printf("first fd: %d\n", open("/dev/null", O_RDONLY));
    for (int r = 0; r < RLIM_NLIMITS; r++) {
        struct rlimit rl;
        getrlimit(r, &rl);
        printf("rlimit %d: %llu %llu\n", r, (unsigned long long)rl.rlim_cur,
               (unsigned long long)rl.rlim_max);
    }
    mode_t m = umask(022);
    umask(m);
    printf("umask: %o\n", (unsigned)m);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;
static void *worker(void *arg)
{
    double end = now_ms() + (double)(long)arg;
    while (now_ms() < end) {
        CHECK(pthread_mutex_lock(&mu));
        counter++;
        CHECK(pthread_mutex_unlock(&mu));
        usleep(100);
    }
    return NULL;
}
static void *after_close(void *arg)
{
    return worker(arg);
}
static void *last_worker(void *arg)
{
    worker(arg);
    puts("ok");
    return NULL;
}

/* Descriptors above 2 as the program sees them in /proc/self/fd. */
static int list_fds(int *out, int max)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd > 2 && fd != dirfd(d) && n < max) out[n++] = fd;
    }
    if (d) closedir(d);
    return n;
}

static int dup2_fn(int from, int to)
{
    return dup2(from, to);
}
static int sys_dup2(int from, int to)
{
    return (int)syscall(SYS_dup2, from, to);
}
static int sys_dup3(int from, int to)
{
    return (int)syscall(SYS_dup3, from, to, 0);
}
static int sys_close(int fd)
{
    return (int)syscall(SYS_close, fd);
}

/* dup2 as the kernel's system call itself: no function of any library runs. */
static int asm_dup2(int from, int to)
{
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"((long)SYS_dup2), "D"((long)from), "S"((long)to)
                     : "rcx", "r11", "memory");
    return (int)r;
}

/* Waits (bounded) until fd's file holds more than its header (16 bytes, written when the tracer
 * creates it): the trace then has a complete generation. */
static void wait_for_data(int fd)
{
    struct stat st;
    for (int i = 0; i < 20000 && fstat(fd, &st) == 0 && st.st_size <= 16; i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

/* dup2s `from` onto every descriptor open on a *.trace file (none untraced), then closes it;
 * the number of failures, or 1 if there were several. */
static int onto_trace(int from, int (*dup2_with)(int, int), int (*close_with)(int), int wait)
{
    int fds[64], n = list_fds(fds, 64), hit = 0, bad = 0;
    for (int i = 0; i < n; i++) {
        char link[64], target[512];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fds[i]);
        ssize_t k = readlink(link, target, sizeof target - 1);
        target[k > 0 ? k : 0] = 0;
        if (!strstr(target, ".trace")) continue;
        if (wait) wait_for_data(fds[i]);
        bad += dup2_with(from, fds[i]) != fds[i] || close_with(fds[i]) != 0;
        hit++;
    }
    return bad + (hit > 1);
}

static int cleanup(const char *mode, const char *file)
{
    int bad = 0;
    if (strcmp(mode, "closefrom") == 0) {
        closefrom(3);
    } else if (strcmp(mode, "close_range") == 0) {
        bad += close_range(3, ~0U, 0) != 0;
    } else if (strcmp(mode, "close-loop") == 0) {
        for (int fd = 3; fd < 4096; fd++)
            if (close(fd) != 0 && errno != EBADF) bad++;
    } else if (strcmp(mode, "sys-close-range") == 0) {
        bad += syscall(SYS_close_range, 3, ~0U, 0) != 0;
    } else if (strcmp(mode, "sys-close-loop") == 0) {
        for (int fd = 3; fd < 4096; fd++)
            if (syscall(SYS_close, fd) != 0 && errno != EBADF) bad++;
    } else if (strstr(mode, "dup") && strstr(mode, "-trace")) {
        int asm_mode = strcmp(mode, "asm-dup2-trace") == 0;
        int from = asm_mode ? (file ? open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1)
                            : open("/dev/null", O_RDONLY);
        if (from < 0) return 1;
        if (strcmp(mode, "dup2-trace") == 0)
            bad += onto_trace(from, dup2_fn, close, 0);
        else if (strcmp(mode, "sys-dup2-trace") == 0)
            bad += onto_trace(from, sys_dup2, sys_close, 0);
        else if (strcmp(mode, "sys-dup3-trace") == 0)
            bad += onto_trace(from, sys_dup3, sys_close, 0);
        else if (asm_mode)
            bad += onto_trace(from, asm_dup2, close, 1);
        else
            return 1;
        bad += close(from) != 0;
    } else {
        return 1;
    }
    bad += close(3) != -1 || errno != EBADF;
    return bad;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "report";
    if (strcmp(mode, "report") == 0) {
        report();
        return 0;
    }
    if (strcmp(mode, "ignored") == 0) {
        static const int ignored[] = {SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGPIPE, SIGTERM};
        for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
            if (signal(ignored[i], SIG_IGN) == SIG_ERR) return 98;
        execl("/proc/self/exe", argv[0], "report", (char *)NULL);
        perror("execl");
        return 98;
    }
    pthread_t w;
    if (strcmp(mode, "main-exit") == 0) {
        CHECK(pthread_create(&w, NULL, last_worker, (void *)300L));
        pthread_exit(NULL);
    }
    CHECK(pthread_create(&w, NULL, worker, (void *)200L));
    int bad = cleanup(mode, argc > 2 ? argv[2] : NULL);
    CHECK(pthread_join(w, NULL));
    CHECK(pthread_create(&w, NULL, after_close, (void *)300L));
    CHECK(pthread_join(w, NULL));
    puts(bad ? "bad" : "ok");
    return 0;
}
