/* xpipes: reads of pipes and Unix sockets that a write of another thread or process ends, for
 * the tracer to show as waits and a merged trace to link (xpipes.sh; docs/blocking.md "Pipes
 * and sockets"). Usage: xpipes MODE [PIDFILE]; appends "KIND PID" lines to PIDFILE naming the
 * processes it made; prints "ok" when every call returned what was expected. Each writer writes
 * only once the reader sleeps in the kernel's read (until_sleeping_in), so each read blocks.
 * - pipe: main reads a pipe that child "writer" writes.
 * - sockets: a socketpair's request and response: main sends, child "server" (asleep in recv)
 *   receives it, then sends the answer main sleeps in recv for.
 * - unix: the same over a Unix stream socket (abstract address) main accepted from child
 *   "client" (connect), which sends once main sleeps in recv.
 * - fifo: main reads a FIFO (made next to PIDFILE) that child "fifo-writer" opened and writes.
 * - threads: main and thread "ponger" pass a byte back and forth ROUNDS times over two pipes.
 * - poll: main polls a pipe (poll, POLLIN, no timeout) that child "poll-writer" writes once
 *   main sleeps in the kernel's poll, then reads it; then the same with a socketpair's end the
 *   child sends to.
 * - pollthreads: thread "poller" waits for a pipe (ppoll and select in turn, no timeout) then
 *   reads it, ROUNDS times; main writes a byte each time the poller sleeps in the kernel's poll.
 * - polls: polls that are not a pipe's wait a writer ends, or end at once: main polls two pipes
 *   (child "poll-writer" writes one once main sleeps), one pipe with a 20 ms timeout that nobody
 *   writes (returns 0), one pipe that holds a byte (returns at once), a listening Unix socket
 *   nobody connects to, with a 20 ms timeout (returns 0); then selects: of the empty pipe with
 *   a 20 ms timeout (returns 0, the set and the time left zeroed), of two pipes (one ready).
 * - data: main writes a byte into a pipe, then reads it (finds data: no wait); reads of an
 *   empty pipe made nonblocking (pipe2 O_NONBLOCK, fcntl F_SETFL) fail with EAGAIN (no wait).
 * - produce N: writes N lines to stdout (a pipe), each once the pipe's reader sleeps in read.
 * - consume: reads stdin until end of file with read(2), prints "consumed N lines". */
#include "children.h"
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define ROUNDS 20

static void *nothing(void *arg)
{
    return arg;
}

/* A forked child's trace starts at its first traced call (a thread started and joined), so
 * that its write's log is timed at the write (docs/processes.md, "Waits across processes"). */
static void start_trace(void)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, nothing, NULL));
    CHECK(pthread_join(t, NULL));
}

/* A child running fn then exiting (exit: its trace is written), noted in the pid file. */
static pid_t child(const char *kind, void (*fn)(pid_t parent))
{
    return fork_child(kind, fn, start_trace, 1);
}

static int p[2], s[2];

static void write_pipe(pid_t parent)
{
    until_sleeping_in(parent, "pipe_read");
    OK(write(p[1], "p", 1) == 1);
}

static char fifo[512];

static void write_fifo(pid_t parent)
{
    int fd = open(fifo, O_WRONLY); /* (waits for main's open) */
    until_sleeping_in(parent, "pipe_read");
    OK(fd >= 0 && write(fd, "f", 1) == 1);
    close(fd);
}

static void mode_fifo(const char *pidfile)
{
    char c = 0;
    snprintf(fifo, sizeof fifo, "%s.fifo", pidfile);
    unlink(fifo);
    OK(mkfifo(fifo, 0600) == 0);
    pid_t pid = child("fifo-writer", write_fifo);
    int fd = open(fifo, O_RDONLY);
    OK(fd >= 0 && read(fd, &c, 1) == 1 && c == 'f');
    close(fd);
    unlink(fifo);
    reap(pid);
}

static void serve(pid_t parent)
{
    char c = 0;
    OK(recv(s[1], &c, 1, 0) == 1 && c == 'q'); /* main sends once this sleeps */
    until_sleeping_in(parent, "unix_stream_read");
    OK(send(s[1], "a", 1, 0) == 1);
}

static void mode_sockets(void)
{
    char c = 0;
    OK(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
    pid_t pid = child("server", serve);
    /* the server's thread, asleep in recv: its tid is its pid (single-threaded by then) */
    until_sleeping_in(pid, "unix_stream_read");
    OK(send(s[0], "q", 1, 0) == 1);
    OK(recv(s[0], &c, 1, 0) == 1 && c == 'a');
    reap(pid);
}

static struct sockaddr_un addr;
static socklen_t addr_len;

static void client(pid_t parent)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    OK(fd >= 0 && connect(fd, (struct sockaddr *)&addr, addr_len) == 0);
    until_sleeping_in(parent, "unix_stream_read");
    OK(send(fd, "c", 1, 0) == 1);
    close(fd);
}

static void mode_unix(void)
{
    char c = 0;
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    addr.sun_family = AF_UNIX;
    int n = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "xpipes-%d", (int)getpid());
    addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    OK(l >= 0 && bind(l, (struct sockaddr *)&addr, addr_len) == 0 && listen(l, 1) == 0);
    pid_t pid = child("client", client);
    int fd = accept(l, NULL, NULL);
    OK(fd >= 0 && recv(fd, &c, 1, 0) == 1 && c == 'c');
    reap(pid);
}

/* ---- threads ---- */

static int ping[2], pong[2];
static atomic_int ponger_tid;

static void *ponger(void *arg)
{
    char c;
    atomic_store(&ponger_tid, (int)syscall(SYS_gettid));
    for (int i = 0; i < ROUNDS; i++) {
        OK(read(ping[0], &c, 1) == 1);
        until_task_sleeping((int)getpid(), "pipe_read"); /* main's tid is the pid */
        OK(write(pong[1], "o", 1) == 1);
    }
    return arg;
}

static void mode_threads(void)
{
    char c;
    pthread_t t;
    OK(pipe(ping) == 0 && pipe(pong) == 0);
    CHECK(pthread_create(&t, NULL, ponger, NULL));
    while (!atomic_load(&ponger_tid))
        sched_yield();
    for (int i = 0; i < ROUNDS; i++) {
        until_task_sleeping(atomic_load(&ponger_tid), "pipe_read");
        OK(write(ping[1], "i", 1) == 1);
        OK(read(pong[0], &c, 1) == 1);
    }
    CHECK(pthread_join(t, NULL));
}

/* ---- polls ---- */

static void write_polled(pid_t parent)
{
    until_sleeping_in(parent, "poll_schedule");
    OK(write(p[1], "w", 1) == 1);
}

static void write_both_polled(pid_t parent)
{
    write_polled(parent);
    until_sleeping_in(parent, "poll_schedule"); /* (woken by the write, it sleeps again) */
    OK(send(s[1], "s", 1, 0) == 1);
}

static void mode_poll(void)
{
    char c = 0;
    OK(pipe(p) == 0);
    struct pollfd f = {.fd = p[0], .events = POLLIN};
    OK(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
    pid_t pid = child("poll-writer", write_both_polled);
    OK(poll(&f, 1, -1) == 1 && f.revents == POLLIN);
    OK(read(p[0], &c, 1) == 1 && c == 'w');
    f.fd = s[0];
    OK(poll(&f, 1, -1) == 1 && f.revents == POLLIN);
    OK(recv(s[0], &c, 1, 0) == 1 && c == 's');
    reap(pid);
}

static atomic_int poller_tid;

static void *poller(void *arg)
{
    char c;
    struct pollfd f = {.fd = p[0], .events = POLLIN | POLLRDNORM};
    atomic_store(&poller_tid, (int)syscall(SYS_gettid));
    for (int i = 0; i < ROUNDS; i++) {
        f.revents = 0;
        fd_set r;
        FD_ZERO(&r);
        FD_SET(p[0], &r);
        struct timeval tv = {60, 0};
        if (i % 2 == 0)
            OK(ppoll(&f, 1, NULL, NULL) == 1 && f.revents == (POLLIN | POLLRDNORM));
        else
            OK(select(p[0] + 1, &r, NULL, NULL, &tv) == 1 && FD_ISSET(p[0], &r));
        OK(read(p[0], &c, 1) == 1 && c == 't');
    }
    return arg;
}

static void mode_pollthreads(void)
{
    pthread_t t;
    OK(pipe(p) == 0);
    CHECK(pthread_create(&t, NULL, poller, NULL));
    while (!atomic_load(&poller_tid))
        sched_yield();
    for (int i = 0; i < ROUNDS; i++) {
        until_task_sleeping(atomic_load(&poller_tid), "poll_schedule");
        OK(write(p[1], "t", 1) == 1);
    }
    CHECK(pthread_join(t, NULL));
}

static void mode_polls(void)
{
    char c = 0;
    OK(pipe(p) == 0 && pipe(s) == 0);
    struct pollfd two[2] = {{.fd = s[0], .events = POLLIN}, {.fd = p[0], .events = POLLIN}};
    pid_t pid = child("poll-writer", write_polled);
    OK(poll(two, 2, -1) == 1 && two[0].revents == 0 && two[1].revents == POLLIN);
    OK(read(p[0], &c, 1) == 1 && c == 'w');
    reap(pid);
    struct pollfd f = {.fd = p[0], .events = POLLIN, .revents = -1};
    OK(poll(&f, 1, 20) == 0 && f.revents == 0); /* its timeout ends it */
    OK(write(s[1], "d", 1) == 1);
    f.fd = s[0];
    OK(poll(&f, 1, -1) == 1 && f.revents == POLLIN); /* finds the byte */
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "xpipes-polls-%d", (int)getpid());
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    OK(l >= 0 && bind(l, (struct sockaddr *)&a, len) == 0 && listen(l, 1) == 0);
    struct pollfd lf = {.fd = l, .events = POLLIN, .revents = -1};
    OK(poll(&lf, 1, 20) == 0 && lf.revents == 0); /* a connection would end it: network */
    close(l);
    fd_set r;
    FD_ZERO(&r);
    FD_SET(p[0], &r);
    struct timeval tv = {0, 20000};
    OK(select(p[0] + 1, &r, NULL, NULL, &tv) == 0 && !FD_ISSET(p[0], &r));
    OK(tv.tv_sec == 0 && tv.tv_usec == 0); /* Linux's time left */
    FD_SET(p[0], &r);
    FD_SET(s[0], &r);
    tv.tv_usec = 20000;
    OK(select((p[0] > s[0] ? p[0] : s[0]) + 1, &r, NULL, NULL, &tv) == 1 && FD_ISSET(s[0], &r) &&
       !FD_ISSET(p[0], &r)); /* finds s's byte, still unread: network */
}

/* ---- a shell pipeline ---- */

/* The pid of the other process that has stdout's pipe open (the pipeline's reader). */
static int pipe_reader(void)
{
    char me[64], link[64], path[300];
    ssize_t n = readlink("/proc/self/fd/1", me, sizeof me - 1);
    if (n <= 0) return -1;
    me[n] = 0;
    for (;;) {
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d))) {
            int pid = atoi(e->d_name);
            if (pid <= 0 || pid == getpid()) continue;
            snprintf(path, sizeof path, "/proc/%d/fd/0", pid);
            ssize_t k = readlink(path, link, sizeof link - 1);
            if (k == n && !memcmp(link, me, (size_t)n)) {
                closedir(d);
                return pid;
            }
        }
        if (d) closedir(d);
        sched_yield();
    }
}

static void produce(int lines)
{
    int reader = pipe_reader();
    char line[32];
    for (int i = 0; i < lines; i++) {
        until_sleeping_in(reader, "pipe_read");
        int k = snprintf(line, sizeof line, "line %d\n", i);
        OK(write(1, line, (size_t)k) == k);
    }
}

static void consume(void)
{
    char buf[256];
    ssize_t r;
    int lines = 0;
    while ((r = read(0, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < r; i++)
            lines += buf[i] == '\n';
    printf("consumed %d lines\n", lines);
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *mode = argv[1];
    if (!strcmp(mode, "produce") && argc == 3) {
        produce(atoi(argv[2]));
        return ok ? 0 : 1;
    }
    if (!strcmp(mode, "consume")) {
        consume();
        return 0;
    }
    if (argc != 3 || !(pids = fopen(argv[2], "a"))) return 2;
    char c = 0;
    if (!strcmp(mode, "pipe")) {
        OK(pipe(p) == 0);
        pid_t pid = child("writer", write_pipe);
        OK(read(p[0], &c, 1) == 1 && c == 'p');
        reap(pid);
    } else if (!strcmp(mode, "fifo")) {
        mode_fifo(argv[2]);
    } else if (!strcmp(mode, "sockets")) {
        mode_sockets();
    } else if (!strcmp(mode, "unix")) {
        mode_unix();
    } else if (!strcmp(mode, "poll")) {
        mode_poll();
    } else if (!strcmp(mode, "pollthreads")) {
        mode_pollthreads();
    } else if (!strcmp(mode, "polls")) {
        mode_polls();
    } else if (!strcmp(mode, "threads")) {
        mode_threads();
    } else if (!strcmp(mode, "data")) {
        OK(pipe(p) == 0 && write(p[1], "d", 1) == 1 && read(p[0], &c, 1) == 1 && c == 'd');
        OK(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
        OK(read(p[0], &c, 1) == -1 && errno == EAGAIN);
        OK(pipe2(s, O_NONBLOCK) == 0 && read(s[0], &c, 1) == -1 && errno == EAGAIN);
    } else {
        return 2;
    }
    puts(ok ? "ok" : "failed");
    return ok ? 0 : 1;
}
