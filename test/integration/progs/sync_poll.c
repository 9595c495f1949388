/* sync_poll: readiness waits on a socketpair. Thread `sender` sends one byte every 30 ms,
 * ROUNDS (10) times; main waits for each with poll() (argv[1] "poll", the default) or
 * epoll_wait() ("epoll") with no timeout, then recv()s it. So main waits about ROUNDS x 30 ms
 * in readiness waits. A last poll/epoll_wait with timeout 0 finds nothing (and must emit
 * nothing). Prints "ROUNDS ready". */
#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#define ROUNDS 10

static int sv[2];

static void *sender(void *arg)
{
    (void)arg;
    struct timespec gap = {0, 30 * 1000000L};
    for (int i = 0; i < ROUNDS; i++) {
        nanosleep(&gap, NULL);
        if (send(sv[1], "x", 1, 0) != 1) exit(99);
    }
    return NULL;
}

__attribute__((noinline)) static int wait_poll(int timeout)
{
    struct pollfd p = {sv[0], POLLIN, 0};
    return poll(&p, 1, timeout);
}

__attribute__((noinline)) static int wait_epoll(int ep, int timeout)
{
    struct epoll_event ev;
    return epoll_wait(ep, &ev, 1, timeout);
}

int main(int argc, char **argv)
{
    int use_epoll = argc > 1 && strcmp(argv[1], "epoll") == 0;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = sv[0]};
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev) != 0) return 99;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, sender, NULL));
    int ready = 0;
    char c;
    for (int i = 0; i < ROUNDS; i++) {
        if ((use_epoll ? wait_epoll(ep, -1) : wait_poll(-1)) != 1) return 1;
        if (recv(sv[0], &c, 1, 0) != 1) return 1;
        ready++;
    }
    if ((use_epoll ? wait_epoll(ep, 0) : wait_poll(0)) != 0) return 1;
    CHECK(pthread_join(t, NULL));
    printf("%d ready\n", ready);
    return 0;
}
