/* pipe.c: N one-byte messages through a pipe from a writer thread to a reader thread (each
 * message is a write and a read system call). Invariant: the reader gets exactly N bytes, in
 * order. */
#include "common.h"

#include <pthread.h>
#include <unistd.h>

static int fds[2];
static long msgs;

static void *writer(void *arg)
{
    (void)arg;
    for (long i = 0; i < msgs; i++) {
        char b = (char)i;
        if (write(fds[1], &b, 1) != 1) die("write");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    msgs = arg_count(argc, argv, 300000);
    if (pipe(fds) != 0) die("pipe");
    pthread_t w;
    if (pthread_create(&w, NULL, writer, NULL) != 0) die("pthread_create");
    for (long i = 0; i < msgs; i++) {
        char b;
        if (read(fds[0], &b, 1) != 1) die("read");
        if (b != (char)i) return 1;
    }
    pthread_join(w, NULL);
    return 0;
}
