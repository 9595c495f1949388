/* single_thread MODE: a program with one thread. "report": some system calls that block (a
 * pipe, nanosleep), then prints whether glibc still runs it single-threaded and how many threads
 * the process has. "crash": the same calls, then a store to address 0 (SIGSEGV). "busy MS":
 * 1-byte pipe round trips on its one thread for MS milliseconds, then prints "round trips N".
 * "thread": the calls, then starts and joins a thread (worker) that makes them too; prints
 * "joined". "fork": the calls, then a forked child makes them and prints its own report
 * ("child: ..."), then the parent prints its report. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fds[2];

static void calls(void)
{
    char c = 'x';
    for (int i = 0; i < 20; i++) {
        if (write(fds[1], &c, 1) != 1 || read(fds[0], &c, 1) != 1) exit(2);
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

static int tasks(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) exit(2);
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *worker(void *arg)
{
    calls();
    return arg;
}

int main(int argc, char **argv)
{
    if (argc < 2 || pipe(fds) != 0) return 2;
    const char *mode = argv[1];
    if (!strcmp(mode, "busy")) {
        double end = now_ms() + (argc > 2 ? atof(argv[2]) : 1000);
        long n = 0;
        char c = 'x';
        for (; now_ms() < end; n++)
            if (write(fds[1], &c, 1) != 1 || read(fds[0], &c, 1) != 1) return 2;
        puts(n > 0 ? "round trips" : "none");
        return 0;
    }
    calls();
    if (!strcmp(mode, "crash")) *(volatile int *)0 = 1;
    if (!strcmp(mode, "thread")) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL)) return 2;
        puts("joined");
        return 0;
    }
    if (!strcmp(mode, "fork")) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) return 2;
        if (pid == 0) {
            calls();
            printf("child: single-threaded %d, threads %d\n", (int)__libc_single_threaded,
                   tasks());
            return 0;
        }
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return 2;
    }
    printf("single-threaded %d, threads %d\n", (int)__libc_single_threaded, tasks());
    return 0;
}
