/* fork_term: three threads (main among them) fork in a tight loop, 400 children in all, then
 * wait; each child waits in a raw pause system call (a wait no hook sees: it records nothing;
 * pause() itself is a traced signal wait) until a signal
 * ends it, or for 5 s (alarm). Prints "forking" on stdout once 40 children were forked. Run as
 * a process group leader and ended by SIGTERM sent to its group (fork_term.sh). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHILDREN 400
#define READY 40

static atomic_int forks;

static void child(void)
{
    alarm(5);
    for (;;)
        syscall(SYS_pause);
}

static void *forker(void *arg)
{
    int n;
    while ((n = atomic_fetch_add(&forks, 1)) < CHILDREN) {
        pid_t pid = fork();
        if (pid == 0) child();
        if (pid < 0) {
            perror("fork");
            exit(1);
        }
        if (n == READY && write(1, "forking\n", 8) != 8) exit(1);
    }
    for (;;)
        pause();
    return arg;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, forker, NULL) != 0) return 1;
    forker(NULL);
    return 0;
}
