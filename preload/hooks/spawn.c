/* spawn.c: the calls that make a child inside glibc, where the fork and posix_spawn hooks cannot
 * see it (docs/blocking.md "Across processes"): system, popen and pclose, vfork. Each names the
 * child it made with the parent's gotrace.spawn or gotrace.fork log "pid PID" (the creating
 * call's stack), and system's and pclose's waits for that child are blocks "wait: child PID"
 * ended by a gotrace.ended log, as waitpid's are.
 * - system is made here as glibc 2.29+ makes it (stdlib/system.c: SIGINT and SIGQUIT ignored
 *   while any system runs, counted; SIGCHLD blocked; posix_spawn of /bin/sh -c with the
 *   caller's mask and those two signals reset in the child; its waitpid; a cancelled caller
 *   kills and reaps its child): only so is the child's pid known.
 * - popen's child pid is read from glibc's stream (struct _IO_proc_file: the FILE, its jump
 *   table, then the pid; libio/iopopen.c, unchanged since glibc 2.1) and kept only if it is a
 *   child of this process (waitid with WNOWAIT: no side effect); pclose reads it the same way
 *   before the real pclose.
 * - vfork (x86_64) is glibc's own shape in assembly (the return address in a register across
 *   the system call, nothing of the hook's on the shared stack while the child runs), with a
 *   C call before the system call (the time) and one in the parent after it (the log).
 * Invariants: the program sees what glibc's calls give (results, errno, status, dispositions and
 * masks as they were); the hooks never run code of theirs in a vfork'd child; without a traced
 * thread they are glibc's calls. */
#include "hooks.h"
#include "real.h"
#include "spinlock.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- system ---- */

/* While any system() runs, SIGINT and SIGQUIT are ignored; the first to start saves their
 * dispositions, the last to end restores them (glibc's DO_LOCK/ADD_REF). */
static gt_spinlock sys_lock;
static int sys_refs;
static struct sigaction sys_intr, sys_quit;

static void sys_ignore(void)
{
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigemptyset(&ign.sa_mask);
    spin_lock(&sys_lock);
    if (sys_refs++ == 0) {
        REAL(sigaction)(SIGINT, &ign, &sys_intr);
        REAL(sigaction)(SIGQUIT, &ign, &sys_quit);
    }
    spin_unlock(&sys_lock);
}

static void sys_restore(void)
{
    spin_lock(&sys_lock);
    if (--sys_refs == 0) {
        REAL(sigaction)(SIGINT, &sys_intr, NULL);
        REAL(sigaction)(SIGQUIT, &sys_quit, NULL);
    }
    spin_unlock(&sys_lock);
}

/* A cancelled system() (a cancellation point: its waitpid) kills and reaps its child and
 * ends its ignoring of SIGINT and SIGQUIT, as glibc's cancel_handler. */
static void sys_cancelled(void *arg)
{
    pid_t pid = *(pid_t *)arg;
    REAL(kill)(pid, SIGKILL);
    while (REAL(waitpid)(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    sys_restore();
}

/* glibc from 2.38 passes "--" before the command (a command may start with '-'). */
static int sys_dashes(void)
{
    static int v = -1;
    if (v < 0) {
        int major = 0, minor = 0;
        sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor);
        v = major > 2 || (major == 2 && minor >= 38);
    }
    return v;
}

/* The shell's run of line, waited for (the waitpid hook: a traced caller's wait is a block
 * "wait: child PID"): its status, or glibc's 127 << 8 with errno when the spawn failed; for a
 * NULL line, whether a shell runs "exit 0". One function, so that system is the stacks' leaf. */
EXPORT int system(const char *cmd)
{
    if (!tr_current()) return REAL(system)(cmd); /* nothing to name: glibc's own */
    const char *line = cmd ? cmd : "exit 0";
    int status = -1;
    pid_t pid;
    sigset_t chld, omask, reset;
    sys_ignore();
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &omask);
    sigemptyset(&reset);
    if (sys_intr.sa_handler != SIG_IGN) sigaddset(&reset, SIGINT);
    if (sys_quit.sa_handler != SIG_IGN) sigaddset(&reset, SIGQUIT);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigmask(&at, &omask);
    posix_spawnattr_setsigdefault(&at, &reset);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    char *dashed[] = {"sh", "-c", "--", (char *)line, NULL},
         *plain[] = {"sh", "-c", (char *)line, NULL};
    int ret = REAL(posix_spawn)(&pid, "/bin/sh", NULL, &at, sys_dashes() ? dashed : plain, environ);
    posix_spawnattr_destroy(&at);
    if (ret == 0) {
        made_child("gotrace.spawn", pid);
        pthread_cleanup_push(sys_cancelled, &pid);
        pid_t r;
        while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR) /* the hook: a block */
            ;
        if (r != pid) status = -1;
        pthread_cleanup_pop(0);
    } else {
        status = 127 << 8; /* as if the shell exited with 127 */
    }
    sys_restore();
    sigprocmask(SIG_SETMASK, &omask, NULL);
    if (ret != 0) errno = ret;
    return cmd ? status : status == 0;
}

/* ---- popen, pclose ---- */

/* What popen stream fp's child (glibc's struct _IO_proc_file) is: 0 none known (not a child of
 * this process: not such a stream), 1 running, 2 ended (a zombie: pclose will not wait); its
 * pid in *pid. */
static int popen_child(FILE *fp, pid_t *pid)
{
    memcpy(pid, (const char *)fp + sizeof(FILE) + sizeof(void *), sizeof *pid);
    if (*pid <= 0) return 0;
    int saved = errno;
    siginfo_t si = {0};
    int r = REAL(waitid)(P_PID, (id_t)*pid, &si, WEXITED | WNOHANG | WNOWAIT);
    errno = saved;
    return r != 0 ? 0 : si.si_pid == *pid ? 2 : 1;
}

EXPORT FILE *popen(const char *cmd, const char *mode)
{
    FILE *fp = REAL(popen)(cmd, mode);
    pid_t pid;
    if (fp && tr_current() && popen_child(fp, &pid)) made_child("gotrace.spawn", pid);
    return fp;
}

/* pclose closes the stream (the child may be waiting for its end) and waits for the child:
 * a block "wait: child PID" unless the child has ended already. */
EXPORT int pclose(FILE *fp)
{
    struct gt_thread *self = tr_current();
    pid_t pid;
    if (!self || popen_child(fp, &pid) != 1) return REAL(pclose)(fp);
    char why[48];
    snprintf(why, sizeof why, "wait: child %d", (int)pid);
    int traced = tr_block_text(self, GT_R_CHILD, why);
    int r = REAL(pclose)(fp);
    if (traced) {
        tr_unblock(self);
        if (r != -1) child_ended(self, pid, r);
    }
    return r;
}

/* ---- vfork ---- */

#if defined(__x86_64__)
/* glibc's vfork, run instead when the hook would not log (gt_vfork_begin). */
__attribute__((visibility("hidden"))) void *gt_vfork_real;

/* Before the vfork hook's system call, in the parent-to-be: the time its log will carry (the
 * child's exec'd image may start before the parent resumes), or 0 to run glibc's vfork instead
 * (gt_vfork_real): an untraced thread, or a shadow stack (its return addresses are shared
 * with the child, whose calls would overwrite them: glibc's vfork handles that). */
__attribute__((visibility("hidden"), used)) uint64_t gt_vfork_begin(void)
{
    int saved = errno;
    unsigned long features = 0;
    struct gt_thread *self = tr_current();
    int shstk = REAL(syscall)(SYS_arch_prctl, 0x5005 /* ARCH_SHSTK_STATUS */, &features) == 0 &&
                (features & 1);
    uint64_t ts = self && !shstk ? tr_clock() | 1 : 0;
    if (!ts) gt_vfork_real = (void *)REAL(vfork);
    errno = saved;
    return ts;
}

/* After the system call, in the parent only (the child is gone: exec'd or exited): r is the
 * call's result (the child's pid, or -errno); the value vfork returns, errno set on failure;
 * the child named by a gotrace.fork log timed at ts. */
__attribute__((visibility("hidden"), used)) pid_t gt_vfork_parent(long r, uint64_t ts)
{
    if (r < 0) {
        errno = (int)-r;
        return -1;
    }
    int saved = errno;
    struct gt_thread *self = tr_current();
    char text[32];
    snprintf(text, sizeof text, "pid %ld", r);
    if (self) tr_log_at(self, "gotrace.fork", text, ts);
    errno = saved;
    return (pid_t)r;
}

/* vfork as glibc's sysdeps/unix/sysv/linux/x86_64/vfork.S makes it: the return address popped
 * into %rdi (the kernel keeps the parent's registers; the child gets a copy), the system call,
 * the address pushed back. The child returns at once; only the parent, resumed once the child
 * exec'd or exited, calls C (gt_vfork_parent, the time kept in %rsi meanwhile). Both C calls
 * are made with the stack 16-byte aligned; the CFI lets the tracer's unwinder walk through. */
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        "vfork:\n"
        ".cfi_startproc\n"
        "    subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    call gt_vfork_begin\n"
        "    addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "    testq %rax, %rax\n"
        "    jz 2f\n"
        "    movq %rax, %rsi\n"
        "    popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_register %rip, %rdi\n"
        "    movl $58, %eax\n" /* SYS_vfork */
        "    syscall\n"
        "    pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset %rip, 0\n"
        "    testq %rax, %rax\n"
        "    jz 1f\n"
        "    movq %rax, %rdi\n"
        "    subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    call gt_vfork_parent\n"
        "    addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "1:  ret\n"
        "2:  jmp *gt_vfork_real(%rip)\n"
        ".cfi_endproc\n"
        ".size vfork, .-vfork\n");
#endif
