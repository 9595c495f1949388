/* xproc: waits that another process of the tree ends, for a merged trace to link
 * (xproc.sh; docs/processes.md "Waits across processes"). Usage: xproc MODE PIDFILE; appends
 * "KIND PID" lines to PIDFILE naming the processes it made; prints "ok" when every call
 * returned what was expected. Each child acts only once its parent sleeps in the expected
 * kernel function (until_sleeping_in, common.h), so each wait really blocks.
 * - child: main waits in waitpid for a child that computes (in a thread it joins) and exits.
 * - signal: main waits in sigsuspend for the SIGUSR1 a child sends with kill.
 * - two: main waits for child "first", then for child "second", each computing.
 * - sem: main waits on a process-shared semaphore in shared anonymous memory that child
 *   "poster" posts.
 * - cond, condshm: main waits on a process-shared condvar, in shared anonymous memory (cond) or
 *   in a POSIX shared memory file (condshm, /dev/shm/gotrace-xproc.PID, unlinked once mapped),
 *   that child "signaller" signals under the mutex; then main signals it with nobody waiting.
 * - futex: main waits (FUTEX_WAIT, not private) on a word in shared anonymous memory that child
 *   "waker" sets and wakes (woke 1); then main wakes it with nobody waiting (woke 0).
 * - semopen: main waits on a named semaphore (sem_open, /dev/shm/sem.gotrace-xproc.PID) that
 *   child "poster" opens anew (mapped by that path, main by glibc's temporary file) and posts; then
 * main posts it with nobody waiting, and unlinks it (it stays mapped until the exit:
 * docs/processes.md).
 * - rwlock: main waits to write-lock a process-shared rwlock that child "writer" holds for
 *   writing (main starts once the child says so, through shared memory) and unlocks once main
 *   sleeps; then main unlocks it with nobody waiting.
 * - rdlock: the same with child "reader" holding it for reading.
 * - signal1: as signal, the child's kill its first traced call.
 * - group: main's killpg to the group of child "waiter" (its own), asleep in sigsuspend.
 * - group0: child "leader" makes its own group and there child "waiter", asleep in sigsuspend,
 *   then signals its whole group (kill(0, ...)), ignoring the signal itself.
 * - system, popen: main runs `exec xproc spawned PIDFILE` through system(), or through
 *   popen(..., "w") then pclose() (the child reads its stdin to the end first); that child,
 *   "spawned" (its shell exec'd it: the same process), computes once main sleeps in waitpid.
 * - vfork: main vfork()s a child that exec's `xproc spawned PIDFILE -`, and waits for it.
 * - spawned: (the child of system, popen and vfork) notes itself, reads stdin to its end if told,
 *   computes. */
#include "children.h"
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void *work(void *arg)
{
    (void)arg;
    spin_cpu_ms(40);
    return NULL;
}

/* About 40 ms of CPU work in a thread the child starts and joins (a forked child writes a
 * trace from its first traced event on: docs/robustness.md, fork). */
static void compute(pid_t parent)
{
    until_sleeping_in(parent, "do_wait");
    pthread_t t;
    CHECK(pthread_create(&t, NULL, work, NULL));
    CHECK(pthread_join(t, NULL));
}

static int started; /* start_trace's thread ran */
static void *note_start(void *arg)
{
    __atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
    return arg;
}

/* A forked child's tracer takes up its thread at its first traced call, timed then: a
 * sender's or waker's trace starts before its wake (a detached thread started, and seen
 * running), else the wake's log would be its first event, after the wake-up
 * (docs/processes.md, "Waits across processes"). Not joined: the child waits on nothing that
 * leaves a sync record (the merged trace of cond, condshm and semopen holds none). */
static void start_trace(void)
{
    pthread_t t;
    pthread_attr_t a;
    CHECK(pthread_attr_init(&a));
    CHECK(pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED));
    CHECK(pthread_create(&t, &a, note_start, NULL));
    while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST))
        sched_yield();
}

static void send_usr1(pid_t parent)
{
    start_trace();
    until_sleeping_in(parent, "sigsuspend");
    OK(kill(parent, SIGUSR1) == 0);
}

/* The sender's first traced call is its kill: its log must still come before the wake-up. */
static void send_usr1_first(pid_t parent)
{
    until_sleeping_in(parent, "sigsuspend");
    OK(kill(parent, SIGUSR1) == 0);
}

static sem_t *sem; /* in shared anonymous memory, process-shared */

/* Posts the semaphore main waits on, once main sleeps on it (its trace started before). */
static void post_sem(pid_t parent)
{
    start_trace();
    until_sleeping_in(parent, "futex");
    OK(sem_post(sem) == 0);
}

/* What the shared modes share, in one shared mapping. */
static struct shared {
    pthread_mutex_t m;
    pthread_cond_t c;
    pthread_rwlock_t l;
    int flag;      /* cond: the condition; rwlock: the writer holds the lock */
    uint32_t word; /* futex */
} * sh;
static char name[64]; /* semopen: the semaphore's name */
static sem_t *named;  /* semopen: main's */

static void signal_cond(pid_t parent)
{
    start_trace();
    until_sleeping_in(parent, "futex");
    OK(pthread_mutex_lock(&sh->m) == 0);
    sh->flag = 1;
    OK(pthread_cond_signal(&sh->c) == 0);
    OK(pthread_mutex_unlock(&sh->m) == 0);
}

static long futex(uint32_t *w, int op, uint32_t v)
{
    return syscall(SYS_futex, w, op, v, NULL, NULL, 0);
}

static void wake_futex(pid_t parent)
{
    start_trace();
    until_sleeping_in(parent, "futex");
    __atomic_store_n(&sh->word, 1, __ATOMIC_SEQ_CST);
    OK(futex(&sh->word, FUTEX_WAKE, 1) == 1);
}

/* Opens main's named semaphore as an unrelated process would: the one inherited closed first
 * (else glibc returns it), so that this process maps /dev/shm/sem.NAME, where main maps the
 * temporary file glibc made it from. */
static void post_named(pid_t parent)
{
    start_trace();
    OK(sem_close(named) == 0);
    sem_t *s = sem_open(name, 0);
    OK(s != SEM_FAILED);
    until_sleeping_in(parent, "futex");
    OK(sem_post(s) == 0 && sem_close(s) == 0);
}

static int reading; /* rdlock: the child holds the rwlock for reading */

static void hold_rwlock(pid_t parent)
{
    start_trace();
    OK((reading ? pthread_rwlock_rdlock(&sh->l) : pthread_rwlock_wrlock(&sh->l)) == 0);
    __atomic_store_n(&sh->flag, 1, __ATOMIC_SEQ_CST);
    until_sleeping_in(parent, "futex");
    OK(pthread_rwlock_unlock(&sh->l) == 0);
}

/* A child running fn then returning from main's exit path (exit, not _exit: its trace is
 * written), noted in the pid file as kind. */
static pid_t child(const char *kind, void (*fn)(pid_t parent))
{
    return fork_child(kind, fn, NULL, 1);
}

/* sh in a new shared mapping: anonymous, or (shm) a POSIX shared memory file unlinked once
 * mapped; its mutex, condvar and rwlock process-shared. */
static void map_shared(int shm)
{
    int fd = -1;
    if (shm) {
        snprintf(name, sizeof name, "/gotrace-xproc.%d", (int)getpid());
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        OK(fd >= 0 && ftruncate(fd, 4096) == 0);
    }
    sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | (shm ? 0 : MAP_ANONYMOUS), fd, 0);
    if (shm) OK(shm_unlink(name) == 0 && close(fd) == 0);
    if (sh == MAP_FAILED) exit(2);
    pthread_mutexattr_t ma;
    pthread_condattr_t ca;
    pthread_rwlockattr_t la;
    OK(pthread_mutexattr_init(&ma) == 0 && pthread_condattr_init(&ca) == 0 &&
       pthread_rwlockattr_init(&la) == 0);
    OK(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED) == 0 &&
       pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED) == 0 &&
       pthread_rwlockattr_setpshared(&la, PTHREAD_PROCESS_SHARED) == 0);
    OK(pthread_mutex_init(&sh->m, &ma) == 0 && pthread_cond_init(&sh->c, &ca) == 0 &&
       pthread_rwlock_init(&sh->l, &la) == 0);
}

static void mode_cond(int shm)
{
    map_shared(shm);
    pid_t pid = child("signaller", signal_cond);
    OK(pthread_mutex_lock(&sh->m) == 0);
    while (!sh->flag)
        OK(pthread_cond_wait(&sh->c, &sh->m) == 0);
    OK(pthread_mutex_unlock(&sh->m) == 0);
    OK(pthread_cond_signal(&sh->c) == 0); /* nobody waits */
    reap(pid);
}

static void mode_futex(void)
{
    map_shared(0);
    pid_t pid = child("waker", wake_futex);
    while (!__atomic_load_n(&sh->word, __ATOMIC_SEQ_CST))
        futex(&sh->word, FUTEX_WAIT, 0);
    OK(futex(&sh->word, FUTEX_WAKE, 1) == 0); /* nobody waits */
    reap(pid);
}

static void mode_semopen(void)
{
    snprintf(name, sizeof name, "/gotrace-xproc.%d", (int)getpid());
    sem_t *s = named = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
    OK(s != SEM_FAILED);
    pid_t pid = child("poster", post_named);
    OK(sem_wait(s) == 0);
    OK(sem_post(s) == 0 && sem_trywait(s) == 0); /* nobody waits */
    OK(sem_unlink(name) == 0); /* kept mapped: the tracer names it at the generation's end */
    reap(pid);
}

static void mode_rwlock(int read)
{
    map_shared(0);
    reading = read;
    pid_t pid = child(read ? "reader" : "writer", hold_rwlock);
    while (!__atomic_load_n(&sh->flag, __ATOMIC_SEQ_CST))
        sched_yield();
    OK(pthread_rwlock_wrlock(&sh->l) == 0);
    OK(pthread_rwlock_unlock(&sh->l) == 0); /* nobody waits */
    reap(pid);
}

static volatile sig_atomic_t got;
static void on_usr1(int sig)
{
    got = sig;
}

/* SIGUSR1 blocked and caught (on_usr1), so that only sigsuspend takes it. */
static void catch_usr1(void)
{
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    OK(sigprocmask(SIG_BLOCK, &usr1, NULL) == 0);
    signal(SIGUSR1, on_usr1);
}

static void wait_usr1(void)
{
    sigset_t none;
    sigemptyset(&none);
    errno = 0;
    OK(sigsuspend(&none) == -1 && errno == EINTR && got == SIGUSR1);
}

static void mode_signal(void (*send)(pid_t parent))
{
    catch_usr1();
    pid_t pid = child("sender", send);
    wait_usr1();
    reap(pid);
}

/* A waiter in a group of its own (the first thing it does, before its parent can see it in
 * sigsuspend), woken by a signal to that group. */
static void group_waiter(pid_t parent)
{
    (void)parent;
    OK(setpgid(0, 0) == 0);
    catch_usr1();
    wait_usr1();
}

static void mode_group(void)
{
    pid_t pid = child("waiter", group_waiter);
    until_sleeping_in(pid, "sigsuspend");
    OK(killpg(pid, SIGUSR1) == 0);
    reap(pid);
}

/* The leader of a group of its own, with a waiter in it: kill(0) reaches both; the leader
 * ignores the signal. */
static void waiter(pid_t parent)
{
    (void)parent;
    wait_usr1();
}

static void group_leader(pid_t parent)
{
    (void)parent;
    OK(setpgid(0, 0) == 0);
    catch_usr1();
    pid_t pid = child("waiter", waiter); /* it catches SIGUSR1 */
    signal(SIGUSR1, SIG_IGN);
    until_sleeping_in(pid, "sigsuspend");
    OK(kill(0, SIGUSR1) == 0);
    reap(pid);
}

/* The command system() and popen() run: this program as "spawned" (exec: the shell's own
 * process). */
static char *spawn_line(const char *self, const char *pidfile, const char *how)
{
    static char line[4096];
    snprintf(line, sizeof line, "exec '%s' spawned '%s' %s", self, pidfile, how);
    return line;
}

static void mode_system(const char *self, const char *pidfile)
{
    fflush(pids);
    OK(system(spawn_line(self, pidfile, "-")) == 0);
}

static void mode_popen(const char *self, const char *pidfile)
{
    fflush(pids);
    FILE *f = popen(spawn_line(self, pidfile, "stdin"), "w");
    OK(f != NULL);
    if (!f) return;
    OK(fputs("a line for the child\n", f) >= 0);
    OK(pclose(f) == 0);
}

static void mode_vfork(const char *self, const char *pidfile)
{
    fflush(pids);
    pid_t pid = vfork();
    if (pid == 0) {
        execl(self, self, "spawned", pidfile, "-", (char *)NULL);
        _exit(127);
    }
    OK(pid > 0);
    if (pid > 0) reap(pid);
}

/* The child system(), popen() or vfork() made: it notes itself, reads its stdin to the end if told
 * (popen's pipe: its end is pclose's), then computes once its parent waits for it. */
static void mode_spawned(const char *how)
{
    fprintf(pids, "spawned %d\n", (int)getpid());
    fflush(pids);
    char buf[256];
    if (!strcmp(how, "stdin"))
        while (fread(buf, 1, sizeof buf, stdin) > 0)
            ;
    compute(getppid());
}

int main(int argc, char **argv)
{
    if (argc < 3 || !(pids = fopen(argv[2], "a"))) return 2;
    const char *mode = argv[1];
    if (!strcmp(mode, "spawned") && argc == 4) {
        mode_spawned(argv[3]);
        return ok ? 0 : 1; /* prints nothing: its stdout is its parent's */
    }
    if (!strcmp(mode, "child")) {
        reap(child("computer", compute));
    } else if (!strcmp(mode, "signal")) {
        mode_signal(send_usr1);
    } else if (!strcmp(mode, "signal1")) {
        mode_signal(send_usr1_first);
    } else if (!strcmp(mode, "group")) {
        mode_group();
    } else if (!strcmp(mode, "group0")) {
        reap(child("leader", group_leader));
    } else if (!strcmp(mode, "system")) {
        mode_system(argv[0], argv[2]);
    } else if (!strcmp(mode, "vfork")) {
        mode_vfork(argv[0], argv[2]);
    } else if (!strcmp(mode, "popen")) {
        mode_popen(argv[0], argv[2]);
    } else if (!strcmp(mode, "two")) {
        reap(child("first", compute));
        reap(child("second", compute));
    } else if (!strcmp(mode, "sem")) {
        sem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        OK(sem != MAP_FAILED && sem_init(sem, 1, 0) == 0);
        pid_t pid = child("poster", post_sem);
        OK(sem_wait(sem) == 0);
        reap(pid);
    } else if (!strcmp(mode, "cond") || !strcmp(mode, "condshm")) {
        mode_cond(!strcmp(mode, "condshm"));
    } else if (!strcmp(mode, "futex")) {
        mode_futex();
    } else if (!strcmp(mode, "semopen")) {
        mode_semopen();
    } else if (!strcmp(mode, "rwlock") || !strcmp(mode, "rdlock")) {
        mode_rwlock(!strcmp(mode, "rdlock"));
    } else {
        return 2;
    }
    puts(ok ? "ok" : "failed");
    return ok ? 0 : 1;
}
