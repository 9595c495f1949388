/* hangs_procs: waits across processes on a pipe, for the hang check's pipe cycles
 * (hangs_procs.sh; docs/locks.md section 6, "Across processes"). Usage: hangs_procs MODE
 * PIDFILE; appends "KIND PID" lines to PIDFILE naming the processes it makes ("parent", then
 * "reader", "writer"). In every mode main makes a pipe and forks child "reader", which reads it.
 * - parent: the reader closes its write end and reads until EOF; main keeps the write end and
 *   waits for the reader (waitpid): neither can ever move. Never ends: killed by the test.
 * - self: the reader keeps the write end and reads until EOF; main closes both ends and waits
 *   for it: the reader holds the only write end itself. Never ends.
 * - sibling: as parent, but child "writer" also holds the write end: once main and the reader
 *   both wait, it sleeps 1 s (a timed wait: it can move) and writes one byte, which the reader
 *   reads and exits; main then reaps both. Prints "ok".
 * - wnohang: as parent, but main polls the reader with WNOHANG and 10 ms sleeps, and writes
 *   one byte after 100 polls (a second or more). Prints "ok".
 * - timed: as parent, but main waits for SIGCHLD with sigtimedwait (100 ms), and writes one
 *   byte after the tenth timeout. Prints "ok".
 * - socket: as parent, on a Unix stream socketpair read with recv. Never ends. */
#include "children.h"
#include "common.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads fd (with recv: sock) until EOF (all), or one byte: exits 0 when it got what it
 * expected. */
static void reader(int fd, int all, int sock)
{
    char c;
    ssize_t n;
    while ((n = sock ? recv(fd, &c, 1, 0) : read(fd, &c, 1)) > 0 && all)
        ;
    _exit(all ? n != 0 : n != 1);
}

static pid_t child(const char *kind)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) exit(97);
    if (pid > 0) {
        fprintf(pids, "%s %d\n", kind, (int)pid);
        fflush(pids);
    }
    return pid;
}

static void one_byte(int fd)
{
    OK(write(fd, "x", 1) == 1);
}

int main(int argc, char **argv)
{
    int p[2];
    if (argc != 3) return 2;
    const char *mode = argv[1];
    int sock = !strcmp(mode, "socket");
    if (sock ? socketpair(AF_UNIX, SOCK_STREAM, 0, p) : pipe(p)) return 2;
    if (!(pids = fopen(argv[2], "a"))) return 2;
    fprintf(pids, "parent %d\n", (int)getpid());
    fflush(pids);
    int self = !strcmp(mode, "self"), forever = self || sock || !strcmp(mode, "parent");
    pid_t parent = getpid(), kid = child("reader");
    if (!kid) {
        if (!self) close(p[1]);
        reader(p[0], forever, sock);
    }
    close(p[0]);
    if (self) close(p[1]);
    if (forever) {
        waitpid(kid, NULL, 0);
        return 1; /* never: killed */
    }
    if (!strcmp(mode, "sibling")) {
        pid_t w = child("writer");
        if (!w) {
            until_sleeping_in(parent, "do_wait");
            until_sleeping_in(kid, "pipe_read");
            struct timespec s = {1, 0};
            nanosleep(&s, NULL);
            one_byte(p[1]);
            _exit(0);
        }
        reap(kid);
        reap(w);
    } else if (!strcmp(mode, "wnohang")) {
        int st, polls = 0;
        pid_t r;
        struct timespec s = {0, 10000000};
        while ((r = waitpid(kid, &st, WNOHANG)) == 0) {
            if (++polls == 100) one_byte(p[1]);
            nanosleep(&s, NULL);
        }
        OK(r == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    } else if (!strcmp(mode, "timed")) {
        sigset_t chld;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        sigprocmask(SIG_BLOCK, &chld, NULL);
        struct timespec t = {0, 100000000};
        int timeouts = 0;
        while (sigtimedwait(&chld, NULL, &t) < 0)
            if (errno == EAGAIN && ++timeouts == 10) one_byte(p[1]);
        reap(kid);
    } else {
        return 2;
    }
    printf("%s\n", ok ? "ok" : "failed");
    return !ok;
}
