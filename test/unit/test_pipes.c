/* test_pipes.c: the descriptor table and the shared wait page (util/pipes.h): pipes, FIFOs and
 * socketpairs are told apart and keyed as the kernel names them (/proc/self/fd), copies and
 * closes follow, a stale number is forgotten, a socketpair's ends know each other, and the
 * page counts waiters per key (a writer sees them until the last one leaves). */
#include "pipes.h"
#include "real.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void start(void)
{
    real_init();
    pipes_enable(1); /* GOTRACE_PIPES=1 */
}

/* The inode in fd's /proc link ("pipe:[123]" -> 123). */
static uint64_t link_ino(int fd)
{
    char path[40], link[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    cr_assert_gt(n, 0);
    link[n] = 0;
    return strtoull(strchr(link, '[') + 1, NULL, 10);
}

Test(pipes, pipe_ends_copies_and_closes, .init = start)
{
    int p[2];
    cr_assert_eq(syscall(SYS_pipe2, p, 0), 0);
    pipes_note(p[0], PK_READ);
    pipes_note(p[1], PK_WRITE);
    cr_assert_eq(pipes_kind(p[0]), PK_READ);
    cr_assert_eq(pipes_kind(p[1]), PK_WRITE);
    pipes_nonblock(p[0], 1);
    cr_assert_eq(pipes_kind(p[0]), PK_READ | PK_NONBLOCK);
    cr_assert_eq(pipes_key(p[0]), link_ino(p[0]), "the flag leaves the key alone");
    pipes_nonblock(p[0], 0);
    cr_assert_eq(pipes_key(p[0]), link_ino(p[0]), "a pipe's key is its inode");
    cr_assert_eq(pipes_key(p[1]), pipes_key(p[0]));
    char text[PIPES_TEXT_MAX], want[64];
    pipes_text(p[0], 0, text, sizeof text);
    snprintf(want, sizeof want, "pipe:[%llu]", (unsigned long long)link_ino(p[0]));
    cr_assert_str_eq(text, want);
    int d = dup(p[0]);
    pipes_dup(p[0], d);
    cr_assert_eq(pipes_kind(d), PK_READ);
    cr_assert_eq(pipes_key(d), pipes_key(p[0]));
    cr_assert(pipes_still(d));
    /* d closed behind the table's back, its number reused by a file: forgotten when looked at */
    close(d);
    int f = open("/dev/null", O_RDONLY);
    cr_assert_eq(f, d);
    cr_assert_eq(pipes_kind(f), PK_READ, "stale until looked at");
    cr_assert(!pipes_still(f));
    cr_assert_eq(pipes_kind(f), 0);
    pipes_forget(p[1]);
    cr_assert_eq(pipes_kind(p[1]), 0);
    pipes_forget_range(0, PIPES_FD_MAX);
    cr_assert_eq(pipes_kind(p[0]), 0);
    close(f);
    close(p[0]);
    close(p[1]);
}

Test(pipes, socketpair_ends_are_peers, .init = start)
{
    int s[2];
    cr_assert_eq(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, s), 0);
    pipes_note_pair(s[0], s[1], 0);
    cr_assert_eq(pipes_kind(s[0]), PK_SOCK | PK_READ | PK_WRITE);
    cr_assert_eq(pipes_key(s[0]), link_ino(s[0]) | PIPES_SOCK_TAG, "kept apart from pipes");
    cr_assert_eq(pipes_peer(s[0]), link_ino(s[1]));
    cr_assert_eq(pipes_peer(s[1]), link_ino(s[0]));
    char text[PIPES_TEXT_MAX], want[64];
    pipes_text(s[0], link_ino(s[1]), text, sizeof text);
    snprintf(want, sizeof want, "socket:[%llu] unix", (unsigned long long)link_ino(s[1]));
    cr_assert_str_eq(text, want, "a socket named by the inode given");
    pipes_forget(s[0]);
    pipes_forget(s[1]);
    close(s[0]);
    close(s[1]);
}

Test(pipes, fifo_by_open_and_a_file_not, .init = start)
{
    char dir[] = "/tmp/gt_pipes_XXXXXX", path[64];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    int fd = open(path, O_RDWR);
    pipes_opened(fd, O_RDWR);
    cr_assert_eq(pipes_kind(fd), PK_FIFO | PK_READ | PK_WRITE);
    char text[PIPES_TEXT_MAX];
    pipes_text(fd, 0, text, sizeof text);
    cr_assert(!strncmp(text, "fifo:", 5) && strstr(text, path), "got %s", text);
    cr_assert(pipes_still(fd));
    pipes_forget(fd);
    close(fd);
    unlink(path);
    int f = open("/dev/null", O_RDONLY);
    pipes_opened(f, O_RDONLY);
    cr_assert_eq(pipes_kind(f), 0, "a device is not a FIFO");
    pipes_note(f, PK_READ); /* (not a pipe: not noted) */
    cr_assert_eq(pipes_kind(f), 0);
    close(f);
    rmdir(dir);
}

Test(pipes, shared_page_counts_waiters_per_key, .init = start)
{
    char path[] = "/tmp/gt_waits_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0 && ftruncate(fd, 4096) == 0);
    close(fd);
    uint64_t ino = 0, k1 = 12345, k2 = 12345 | PIPES_SOCK_TAG;
    cr_assert_eq(pipes_wait_begin(k1, 0), 0, "no page: nothing counted");
    pipes_share(path);
    cr_assert_eq(pipes_waited(k1, &ino), 0);
    cr_assert_eq(pipes_wait_begin(k1, 0), 1);
    cr_assert_eq(pipes_wait_begin(k1, 0), 1);
    cr_assert_eq(pipes_wait_begin(k2, 777), 1);
    cr_assert_eq(pipes_waited(k1, &ino), 1);
    cr_assert_eq(pipes_waited(k2, &ino), 1);
    cr_assert_eq(ino, 777, "a socket reader's own inode, for the writer's log");
    pipes_wait_end(k1);
    cr_assert_eq(pipes_waited(k1, &ino), 1, "one reader still waits");
    pipes_wait_end(k1);
    cr_assert_eq(pipes_waited(k1, &ino), 0);
    pipes_wait_end(k1); /* never below zero */
    cr_assert_eq(pipes_waited(k1, &ino), 0);
    cr_assert_eq(pipes_waited(k2, &ino), 1);
    pipes_wait_end(k2);
    cr_assert_eq(pipes_waited(k2, &ino), 0);
    unlink(path);
}
