/* sync_pipe [raw]: thread `writer` writes one byte into a pipe every 20 ms, WRITES (15) times,
 * then closes it; main reads it byte by byte until end of file. So main waits in read() about
 * WRITES x 20 ms in all, and every read and write is a system call: the tracer shows main's
 * waits as blocks on the pipe, woken by the writer (docs/blocking.md "Pipes and sockets"); with
 * "raw" the pipe is made by a raw system call, which the tracer does not see, so the waits stay
 * system calls. Prints "reads N writes M" (the read count includes the final one that sees end
 * of file). */
#include <pthread.h>
#include <unistd.h>

#include "common.h"

#define WRITES 15

static int fds[2];

static void *writer(void *arg)
{
    (void)arg;
    struct timespec gap = {0, 20 * 1000000L};
    for (int i = 0; i < WRITES; i++) {
        nanosleep(&gap, NULL);
        if (write(fds[1], "x", 1) != 1) exit(99);
    }
    close(fds[1]);
    return NULL;
}

__attribute__((noinline)) static int read_all(void)
{
    char c;
    int n = 1;
    while (read(fds[0], &c, 1) == 1)
        n++;
    return n;
}

int main(int argc, char **argv)
{
    pthread_t t;
    int raw = argc > 1 && !strcmp(argv[1], "raw");
    if ((raw ? (int)syscall(SYS_pipe2, fds, 0) : pipe(fds)) != 0) return 99;
    CHECK(pthread_create(&t, NULL, writer, NULL));
    int reads = read_all();
    CHECK(pthread_join(t, NULL));
    printf("reads %d writes %d\n", reads, WRITES);
    return 0;
}
