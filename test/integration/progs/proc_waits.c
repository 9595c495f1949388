/* proc_waits: waits that another process ends (proc_waits.sh). Usage: proc_waits MODE PIDFILE;
 * appends "KIND PID" lines to PIDFILE naming the processes it made; prints "ok" when every call
 * returned what was expected. Every child ends its part only once its parent sleeps in the
 * expected kernel function (until_sleeping_in, common.h), so each wait really blocks.
 * - child: main forks a child that then spins (CPU work), and waits for it in waitpid; the
 *   child exits with status 3.
 * - signals: main waits for SIGUSR1 in sigsuspend, sigwait, sigwaitinfo, sigtimedwait (10 s
 *   bound) and a read of a signalfd, each sent by a child of its own with kill (sigqueue for
 *   sigwaitinfo).
 * - shared: a process-shared mutex and semaphore in a POSIX shared memory object (/dev/shm) and
 *   a process-shared mutex in shared anonymous memory; main holds each mutex while the child
 *   waits for it, then the child holds it while main waits; main posts the semaphore the child
 *   waits on.
 * - pipes: main reads from a pipe and receives from a socketpair that a child writes to. */
#include "children.h"
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child running fn, noted in the pid file as kind (it ends with _exit). */
static pid_t child(const char *kind, void (*fn)(pid_t parent))
{
    return fork_child(kind, fn, NULL, 0);
}

/* ---- child: waitpid on a child doing CPU work ---- */

static void spin_then_exit(pid_t parent)
{
    until_sleeping_in(parent, "do_wait");
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < 50000000UL; i++)
        x += i;
    _exit(3);
}

static void mode_child(void)
{
    pid_t pid = child("spinner", spin_then_exit);
    int st;
    OK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 3);
}

/* ---- signals ---- */

static volatile sig_atomic_t got;
static void on_usr1(int sig)
{
    got = sig;
}

static void kill_in_sigsuspend(pid_t parent)
{
    until_sleeping_in(parent, "sigsuspend");
    kill(parent, SIGUSR1);
}

static void kill_in_sigtimedwait(pid_t parent)
{
    until_sleeping_in(parent, "sigtimedwait");
    kill(parent, SIGUSR1);
}

static void queue_in_sigtimedwait(pid_t parent)
{
    until_sleeping_in(parent, "sigtimedwait");
    sigqueue(parent, SIGUSR1, (union sigval){.sival_int = 45});
}

static void kill_in_signalfd(pid_t parent)
{
    until_sleeping_in(parent, "signalfd");
    kill(parent, SIGUSR1);
}

/* A read of a signalfd of SIGUSR1 that waits for child pid's kill. */
static void read_signalfd(const sigset_t *usr1)
{
    int fd = signalfd(-1, usr1, SFD_CLOEXEC);
    OK(fd >= 0);
    pid_t pid = child("signalfd", kill_in_signalfd);
    struct signalfd_siginfo ss;
    OK(read(fd, &ss, sizeof ss) == sizeof ss && ss.ssi_signo == SIGUSR1 &&
       ss.ssi_pid == (uint32_t)pid);
    OK(close(fd) == 0);
    reap(pid);
}

static void mode_signals(void)
{
    sigset_t usr1, none;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigemptyset(&none);
    OK(sigprocmask(SIG_BLOCK, &usr1, NULL) == 0);
    signal(SIGUSR1, on_usr1);
    pid_t pid = child("sigsuspend", kill_in_sigsuspend);
    errno = 0;
    OK(sigsuspend(&none) == -1 && errno == EINTR && got == SIGUSR1);
    reap(pid);
    signal(SIGUSR1, SIG_DFL); /* (blocked) the sigwait family takes it */
    int sig = 0;
    pid = child("sigwait", kill_in_sigtimedwait);
    OK(sigwait(&usr1, &sig) == 0 && sig == SIGUSR1);
    reap(pid);
    siginfo_t si;
    pid = child("sigwaitinfo", queue_in_sigtimedwait);
    OK(sigwaitinfo(&usr1, &si) == SIGUSR1 && si.si_pid == pid && si.si_code == SI_QUEUE &&
       si.si_value.sival_int == 45);
    reap(pid);
    pid = child("sigtimedwait", kill_in_sigtimedwait);
    struct timespec ten = {10, 0};
    OK(sigtimedwait(&usr1, &si, &ten) == SIGUSR1 && si.si_pid == pid && si.si_code == SI_USER);
    reap(pid);
    read_signalfd(&usr1);
}

/* ---- shared: process-shared objects ---- */

struct shared {
    pthread_mutex_t m;
    char pad[64 - sizeof(pthread_mutex_t) % 64];
    sem_t sem;              /* at offset 64 */
    atomic_int child_holds; /* the child holds m */
};

static struct shared *in_shm, *in_anon;

/* The lock word of a glibc mutex: 2 once a waiter sleeps on it. */
static int has_sleeper(pthread_mutex_t *m)
{
    return __atomic_load_n((int *)m, __ATOMIC_ACQUIRE) == 2;
}

static void init_shared(struct shared *s)
{
    pthread_mutexattr_t a;
    CHECK(pthread_mutexattr_init(&a));
    CHECK(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED));
    CHECK(pthread_mutex_init(&s->m, &a));
    OK(sem_init(&s->sem, 1, 0) == 0);
}

/* The child's part on s: waits for m (main holds it), then holds it until main waits for it,
 * then waits on the semaphore main posts. */
static void share_child(struct shared *s, pid_t parent)
{
    CHECK(pthread_mutex_lock(&s->m));
    atomic_store(&s->child_holds, 1);
    until_sleeping_in(parent, "futex"); /* (the lock word is 2 already: glibc's waiter took it) */
    CHECK(pthread_mutex_unlock(&s->m));
    OK(sem_wait(&s->sem) == 0);
}

static void share_child_shm(pid_t parent)
{
    share_child(in_shm, parent);
    if (!ok) _exit(1);
}

static void share_child_anon(pid_t parent)
{
    share_child(in_anon, parent);
    if (!ok) _exit(1);
}

static void share_main(struct shared *s, const char *kind, void (*fn)(pid_t))
{
    CHECK(pthread_mutex_lock(&s->m));
    pid_t pid = child(kind, fn);
    while (!has_sleeper(&s->m)) /* the child waits for m */
        sched_yield();
    CHECK(pthread_mutex_unlock(&s->m));
    while (!atomic_load(&s->child_holds))
        sched_yield();
    CHECK(pthread_mutex_lock(&s->m)); /* held by the child until this waits */
    CHECK(pthread_mutex_unlock(&s->m));
    until_sleeping_in(pid, "futex"); /* the child waits on the semaphore */
    OK(sem_post(&s->sem) == 0);
    reap(pid);
}

static void mode_shared(void)
{
    char name[64];
    snprintf(name, sizeof name, "/gotrace_proc_waits.%d", (int)getpid());
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    OK(fd >= 0 && ftruncate(fd, 4096) == 0);
    in_shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    in_anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    OK(in_shm != MAP_FAILED && in_anon != MAP_FAILED);
    if (!ok) return;
    init_shared(in_shm);
    init_shared(in_anon);
    share_main(in_shm, "shm", share_child_shm);
    share_main(in_anon, "anon", share_child_anon);
    shm_unlink(name);
    close(fd);
}

/* ---- pipes: reads that wait for another process's write ---- */

static int pipe_fds[2], sock_fds[2];

/* Each write comes once the parent sleeps in its read. */
static void write_when_read(pid_t parent)
{
    until_sleeping_in(parent, "pipe_read");
    OK(write(pipe_fds[1], "p", 1) == 1);
    until_sleeping_in(parent, "unix_stream_read");
    OK(send(sock_fds[1], "s", 1, 0) == 1);
    if (!ok) _exit(1);
}

static void mode_pipes(void)
{
    char c = 0;
    OK(pipe(pipe_fds) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sock_fds) == 0);
    pid_t pid = child("writer", write_when_read);
    OK(read(pipe_fds[0], &c, 1) == 1 && c == 'p');
    OK(recv(sock_fds[0], &c, 1, 0) == 1 && c == 's');
    reap(pid);
}

int main(int argc, char **argv)
{
    if (argc != 3 || !(pids = fopen(argv[2], "a"))) return 2;
    if (!strcmp(argv[1], "child"))
        mode_child();
    else if (!strcmp(argv[1], "signals"))
        mode_signals();
    else if (!strcmp(argv[1], "shared"))
        mode_shared();
    else if (!strcmp(argv[1], "pipes"))
        mode_pipes();
    else
        return 2;
    fclose(pids);
    puts(ok ? "ok" : "failed");
    return ok ? 0 : 1;
}
