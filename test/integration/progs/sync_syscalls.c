/* sync_syscalls: one call of each hooked system call that may block, and of variants that
 * cannot (which must pass untraced), in main, in a fixed order, all on a private temp dir,
 * a socketpair and forked children. Each traced call is one syscall in the trace (waits for
 * children are blocks, or nothing when the child is done already); the case checks the list. Prints
 * "ok" when every call returned what was expected. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define OK(cond)                                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("%s:%d: %s failed (errno %d)\n", __FILE__, __LINE__, #cond, errno);             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(void)
{
    char dir[] = "/tmp/gt-syscalls-XXXXXX", path[64], buf[8];
    OK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/f", dir);
    /* files: open, write, pwrite, writev, fsync, fdatasync, pread, readv, read, openat, close */
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    OK(fd >= 0);
    OK(write(fd, "abcd", 4) == 4);
    OK(pwrite(fd, "ef", 2, 4) == 2);
    struct iovec iov = {"gh", 2};
    OK(writev(fd, &iov, 1) == 2);
    OK(fsync(fd) == 0);
    OK(fdatasync(fd) == 0);
    OK(pread(fd, buf, 2, 0) == 2 && buf[0] == 'a');
    OK(lseek(fd, 0, SEEK_SET) == 0);
    struct iovec rio = {buf, 2};
    OK(readv(fd, &rio, 1) == 2 && buf[0] == 'a');
    OK(read(fd, buf, 8) == 4);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    OK(dfd >= 0);
    int fd2 = openat(dfd, "f", O_RDONLY);
    OK(fd2 >= 0);
    OK(close(fd2) == 0);
    /* locks: flock (waits), flock LOCK_NB (cannot), fcntl F_SETLKW (waits), F_GETFL (cannot) */
    OK(flock(fd, LOCK_EX) == 0);
    OK(flock(fd, LOCK_UN | LOCK_NB) == 0);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    OK(fcntl(fd, F_SETLKW, &fl) == 0);
    OK(fcntl(fd, F_GETFL) >= 0);
    /* sockets: send, recv, sendto, recvfrom, sendmsg, recvmsg, recv MSG_DONTWAIT (cannot) */
    int sv[2];
    OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    OK(send(sv[0], "x", 1, 0) == 1);
    OK(recv(sv[1], buf, 1, 0) == 1);
    OK(sendto(sv[0], "y", 1, 0, NULL, 0) == 1);
    OK(recvfrom(sv[1], buf, 1, 0, NULL, NULL) == 1);
    struct iovec mio = {"z", 1};
    struct msghdr mh = {.msg_iov = &mio, .msg_iovlen = 1};
    OK(sendmsg(sv[0], &mh, 0) == 1);
    mio.iov_base = buf;
    OK(recvmsg(sv[1], &mh, 0) == 1 && buf[0] == 'z');
    errno = 0;
    OK(recv(sv[1], buf, 1, MSG_DONTWAIT) == -1 && errno == EAGAIN);
    /* accept and connect on a listening unix socket */
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s/s", dir);
    int ls = socket(AF_UNIX, SOCK_STREAM, 0), cs = socket(AF_UNIX, SOCK_STREAM, 0);
    OK(ls >= 0 && cs >= 0 && bind(ls, (struct sockaddr *)&sa, sizeof sa) == 0 &&
       listen(ls, 2) == 0);
    OK(connect(cs, (struct sockaddr *)&sa, sizeof sa) == 0);
    int as = accept(ls, NULL, NULL);
    OK(as >= 0);
    /* children: waitpid WNOHANG (cannot), waitpid and wait (blocks: each child ends once its
     * parent sleeps in the wait), wait4, wait3 */
    pid_t me = getpid(), kid = fork();
    if (kid == 0) {
        until_sleeping_in(me, "do_wait");
        _exit(7);
    }
    int st;
    OK(waitpid(kid, &st, 0) == kid && WEXITSTATUS(st) == 7);
    kid = fork();
    if (kid == 0) {
        until_sleeping_in(me, "do_wait");
        _exit(8);
    }
    OK(wait(&st) == kid && WEXITSTATUS(st) == 8);
    /* wait4 and wait3, of children a signal ends before any hook runs in them */
    kid = fork();
    if (kid == 0) raise(SIGKILL);
    OK(wait4(kid, &st, 0, NULL) == kid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    kid = fork();
    if (kid == 0) raise(SIGKILL);
    OK(wait3(&st, 0, NULL) == kid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    OK(waitpid(-1, &st, WNOHANG) == -1 && errno == ECHILD);
    /* futex wait through syscall() (times out), and a syscall() that is not a futex wait */
    static uint32_t word;
    struct timespec ms5 = {0, 5000000L};
    errno = 0;
    OK(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ms5, NULL, 0) == -1 && errno == ETIMEDOUT);
    OK(syscall(SYS_getpid) == getpid());
    unlink(sa.sun_path);
    unlink(path);
    rmdir(dir);
    puts("ok");
    return 0;
}
