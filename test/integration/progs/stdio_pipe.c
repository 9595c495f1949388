/* stdio_pipe: stdio calls that wait for the other end of a pipe.
 *   stdio_pipe read FN   main reads LINES lines from a pipe with FN (getc_unlocked, the macro
 *                        that calls __uflow; getc; fgetc; fgets; fread; getline; getdelim;
 *                        and read(2) on the stream's descriptor, fortified: __read_chk);
 *                        thread `feeder` writes each line with write(2) only once main sleeps
 *                        in the pipe's read (its task's wchan), GAP_MS later: main waits in
 *                        each read at least GAP_MS.
 *   stdio_pipe write FN  thread `filler` writes 256 KiB into a pipe with FN (fwrite, fputs,
 *                        fputc, putc, fflush after a setvbuf buffer), more than the pipe holds;
 *                        main reads it with read(2) only once the filler sleeps in the pipe's
 *                        write, GAP_MS later: the filler waits at least GAP_MS.
 *   stdio_pipe produce  writes LINES lines to stdout with fputs and fflush, each once the
 *                        process reading its stdout pipe (as its stdin) sleeps in its read.
 * Prints "FN lines N" or "FN bytes N". Built with _FORTIFY_SOURCE: fgets and fread with a known
 * buffer size are glibc's __fgets_chk and __fread_chk. */
/* itest-cflags: -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 */
#include <dirent.h>
#include <pthread.h>
#include <unistd.h>

#include "common.h"

#define LINES 3
#define GAP_MS 20
#define FILL (256 * 1024)

static int fds[2];
static pid_t main_tid, filler_tid;
static const char *fn;
/* Sizes the compiler cannot see, so that fortified fgets and fread check them at run time. */
static volatile int line_max = 64, record = 5;

static void gap(void)
{
    struct timespec ts = {0, GAP_MS * 1000000L};
    nanosleep(&ts, NULL);
}

static void *feeder(void *arg)
{
    (void)arg;
    for (int i = 0; i < LINES; i++) {
        until_task_sleeping(main_tid, "pipe_read");
        gap();
        if (write(fds[1], "line\n", 5) != 5) exit(99);
    }
    close(fds[1]);
    return NULL;
}

/* One line with fn: 1 if read, 0 at end of file. */
static int read_line(FILE *f)
{
    char buf[64], *line = NULL;
    size_t cap = 0;
    int c, got = 0;
    if (!strcmp(fn, "getc_unlocked")) {
        while ((c = getc_unlocked(f)) != EOF && (got = 1) && c != '\n') {
        }
    } else if (!strcmp(fn, "getc")) {
        while ((c = (getc)(f)) != EOF && (got = 1) && c != '\n') {
        }
    } else if (!strcmp(fn, "fgetc")) {
        while ((c = fgetc(f)) != EOF && (got = 1) && c != '\n') {
        }
    } else if (!strcmp(fn, "fgets")) {
        got = fgets(buf, line_max, f) != NULL;
    } else if (!strcmp(fn, "fread")) {
        got = fread(buf, 1, (size_t)record, f) == (size_t)record;
    } else if (!strcmp(fn, "getline")) {
        got = getline(&line, &cap, f) > 0;
    } else if (!strcmp(fn, "read")) { /* not stdio: fortified read(2), __read_chk */
        got = read(fileno(f), buf, (size_t)record) == record;
    } else if (!strcmp(fn, "getdelim")) {
        got = getdelim(&line, &cap, '\n', f) > 0;
    } else {
        exit(2);
    }
    free(line);
    return got;
}

__attribute__((noinline)) static int read_lines(FILE *f)
{
    int n = 0;
    while (read_line(f))
        n++;
    return n;
}

static int reader(void)
{
    pthread_t t;
    main_tid = gettid();
    CHECK(pthread_create(&t, NULL, feeder, NULL));
    FILE *f = fdopen(fds[0], "r");
    if (!f) return 99;
    int n = read_lines(f);
    CHECK(pthread_join(t, NULL));
    printf("%s lines %d\n", fn, n);
    return fclose(f) != 0;
}

/* Writes FILL bytes into f with fn. */
__attribute__((noinline)) static void fill(FILE *f)
{
    static char chunk[4097];
    memset(chunk, 'x', 4096);
    for (int done = 0; done < FILL; done += 4096) {
        int ok = 1;
        if (!strcmp(fn, "fwrite"))
            ok = fwrite(chunk, 1, 4096, f) == 4096;
        else if (!strcmp(fn, "fputs"))
            ok = fputs(chunk, f) >= 0;
        else if (!strcmp(fn, "fputc") || !strcmp(fn, "putc"))
            for (int i = 0; i < 4096 && ok; i++)
                ok = (fn[1] == 'u' ? putc('x', f) : fputc('x', f)) == 'x';
        else if (!strcmp(fn, "fflush"))
            ok = fwrite(chunk, 1, 4096, f) == 4096 && !fflush(f);
        else
            exit(2);
        if (!ok) exit(99);
    }
}

static void *filler(void *arg)
{
    FILE *f = arg;
    __atomic_store_n(&filler_tid, gettid(), __ATOMIC_RELEASE);
    fill(f);
    if (fclose(f) != 0) exit(99);
    return NULL;
}

static int writer(void)
{
    pthread_t t;
    static char big[1 << 20];
    FILE *f = fdopen(fds[1], "w");
    if (!f) return 99;
    if (!strcmp(fn, "fflush")) setvbuf(f, big, _IOFBF, sizeof big);
    CHECK(pthread_create(&t, NULL, filler, f));
    while (!__atomic_load_n(&filler_tid, __ATOMIC_ACQUIRE))
        sched_yield();
    until_task_sleeping(filler_tid, "pipe_write");
    gap();
    char buf[8192];
    long total = 0;
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
        total += n;
    CHECK(pthread_join(t, NULL));
    printf("%s bytes %ld\n", fn, total);
    return 0;
}

/* The pid of another process that holds this process's stdout (a pipe) open for reading, 0. */
static int stdout_reader(void)
{
    char mine[64], path[300], link[64];
    ssize_t n = readlink("/proc/self/fd/1", mine, sizeof mine - 1);
    if (n <= 0) return 0;
    mine[n] = 0;
    DIR *d = opendir("/proc");
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d));) {
        int pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid()) continue;
        snprintf(path, sizeof path, "/proc/%d/fd/0", pid); /* a filter reads its stdin */
        ssize_t k = readlink(path, link, sizeof link - 1);
        if (k == n && !memcmp(link, mine, (size_t)n)) found = pid;
    }
    if (d) closedir(d);
    return found;
}

/* produce: LINES lines to stdout (a pipe) with fputs and fflush, each once the process reading
 * it (its stdin) sleeps in the pipe's read. */
static int producer(void)
{
    int r = 0;
    while (!(r = stdout_reader()))
        sched_yield();
    for (int i = 0; i < LINES; i++) {
        until_sleeping_in(r, "pipe_read");
        if (fputs("line\n", stdout) < 0 || fflush(stdout) != 0) return 99;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "produce")) return producer();
    if (argc != 3 || pipe(fds) != 0) return 2;
    fn = argv[2];
    return !strcmp(argv[1], "read") ? reader() : writer();
}
