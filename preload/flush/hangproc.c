/* hangproc.c: other processes as the hang check sees them, through /proc (hangproc.h). Files
 * are read whole into small buffers; every number is parsed from text the kernel wrote. A
 * process's threads are judged by /proc/PID/task/TID/stat (asleep) and .../syscall (the call
 * and its arguments); where Yama or the like refuses .../syscall (it needs the right to
 * ptrace), .../wchan ("do_wait") stands for it and the wait must be for any child. */
#include "hangproc.h"

#include "fds.h"
#include "gt_live.h"
#include "pipes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PATH_ROOM 384 /* a /proc path: "/proc/PID/task/TID/" and a file or descriptor name */

/* Reads file path into buf (cap bytes, NUL-terminated): its length, or -1 with errno. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, cap - 1);
    int e = errno;
    close(fd);
    if (n < 0) {
        errno = e;
        return -1;
    }
    buf[n] = 0;
    return n;
}

/* fd as a connected Unix stream or seqpacket socket without a receive timeout (p's fields), 0;
 * -1 when it is not one. */
static int unix_socket_of(int fd, ino_t ino, const char *link, struct hp_pipe *p)
{
    int dom = 0, type = 0;
    struct timeval tmo = {0, 0};
    socklen_t dl = sizeof dom, tl = sizeof type, ml = sizeof tmo;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) || dom != AF_UNIX ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) ||
        (type != SOCK_STREAM && type != SOCK_SEQPACKET) ||
        getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, &ml) || tmo.tv_sec || tmo.tv_usec)
        return -1;
    uint64_t peer = pipes_diag_peer((uint64_t)ino);
    if (!peer) return -1;
    snprintf(p->match, sizeof p->match, "socket:[%llu]", (unsigned long long)peer);
    snprintf(p->text, sizeof p->text, "%s unix, peer %s", link, p->match);
    return 0;
}

int hp_pipe_of(int fd, struct hp_pipe *p)
{
    char path[40], link[100];
    struct stat st;
    if (fstat(fd, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return -1;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0) return -1;
    link[n] = 0;
    p->dev = st.st_dev;
    p->ino = st.st_ino;
    p->fifo = S_ISFIFO(st.st_mode) && strncmp(link, "pipe:", 5) != 0;
    if (S_ISSOCK(st.st_mode)) return unix_socket_of(fd, st.st_ino, link, p);
    snprintf(p->match, sizeof p->match, "%s", link);
    snprintf(p->text, sizeof p->text, "%s%s", p->fifo ? "fifo:" : "", link);
    return 0;
}

/* The system call task path's syscall file names (nr, args[0..5]): 0, or -1 when it is not in
 * one (running) or the file cannot be read (errno). */
static int syscall_of(const char *path, long *nr, unsigned long a[6])
{
    char buf[256];
    if (slurp(path, buf, sizeof buf) <= 0) return -1;
    if (!strncmp(buf, "running", 7) || buf[0] == '-') return errno = 0, -1;
    char *s = buf;
    *nr = strtol(s, &s, 10);
    for (int i = 0; i < 6; i++)
        a[i] = strtoul(s, &s, 16);
    return 0;
}

int hp_reads_now(int64_t tid, int fd)
{
    char path[64];
    long nr;
    unsigned long a[6];
    snprintf(path, sizeof path, "/proc/self/task/%lld/syscall", (long long)tid);
    if (syscall_of(path, &nr, a)) return 0;
    int reads = nr == SYS_read || nr == SYS_readv || nr == SYS_recvfrom || nr == SYS_recvmsg;
    return reads && (int)a[0] == fd;
}

/* Whether descriptor fd of process dir (a /proc/PID/ path) is opened for writing. */
static int writes(const char *dir, const char *fd)
{
    char path[PATH_ROOM], buf[256];
    snprintf(path, sizeof path, "%sfdinfo/%s", dir, fd);
    if (slurp(path, buf, sizeof buf) <= 0) return 1; /* (it just closed: a doubt, a holder) */
    const char *f = strstr(buf, "flags:");
    return !f || (strtoul(f + 6, NULL, 8) & O_ACCMODE) != O_RDONLY;
}

/* Whether descriptor fd of process dir is p. */
static int is_pipe(const struct hp_pipe *p, const char *dir, const char *fd)
{
    char path[PATH_ROOM], link[100];
    snprintf(path, sizeof path, "%sfd/%s", dir, fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0) return 0;
    link[n] = 0;
    if (!p->fifo) return !strcmp(link, p->match);
    struct stat st; /* a FIFO may be opened by another path: its inode decides */
    return link[0] == '/' && !stat(path, &st) && st.st_dev == p->dev && st.st_ino == p->ino;
}

/* Field k (1 the pid) of process pid's stat file, as a number; -1 when unknown. */
static long stat_field(const char *dir, int k)
{
    char path[PATH_ROOM], buf[512];
    snprintf(path, sizeof path, "%sstat", dir);
    if (slurp(path, buf, sizeof buf) <= 0) return -1;
    char *s = strrchr(buf, ')'); /* the fields after the command's name: state is field 3 */
    if (!s || k < 3) return -1;
    s += 2;
    for (int i = 3; i < k && s; i++)
        s = strchr(s, ' ') ? strchr(s, ' ') + 1 : NULL;
    return s ? strtol(s, NULL, 10) : -1;
}

/* Whether the process at dir holds p for writing: 1, 0, or -1 when its descriptors cannot be
 * read (and it is of this session: another session's is taken not to hold it). */
static int holds(const struct hp_pipe *p, const char *dir, long session)
{
    char path[PATH_ROOM];
    snprintf(path, sizeof path, "%sfd", dir);
    DIR *d = opendir(path);
    if (!d) return errno == ENOENT || errno == ESRCH ? 0 : stat_field(dir, 6) == session ? -1 : 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));)
        if (e->d_name[0] != '.' && is_pipe(p, dir, e->d_name)) found = writes(dir, e->d_name);
    closedir(d);
    return found;
}

int hp_self_holds(const struct hp_pipe *p)
{
    return holds(p, "/proc/self/", -1) != 0;
}

int hp_holders(const struct hp_pipe *p, int *self_holds, int *out, int cap)
{
    long session = getsid(0), me = getpid();
    DIR *d = opendir("/proc");
    if (!d) return -1;
    int n = 0;
    *self_holds = 0;
    for (struct dirent *e; n >= 0 && (e = readdir(d));) {
        long pid = atol(e->d_name);
        if (pid <= 0) continue;
        char dir[40];
        snprintf(dir, sizeof dir, "/proc/%ld/", pid);
        int h = holds(p, dir, session);
        if (h < 0 || (h && pid != me && n == cap))
            n = -1;
        else if (h && pid == me)
            *self_holds = 1;
        else if (h)
            out[n++] = (int)pid;
    }
    closedir(d);
    return n;
}

/* The state of the process or task at dir ('R', 'S', ...), 0 when unknown. */
static char state_of(const char *dir)
{
    char path[PATH_ROOM], buf[512];
    snprintf(path, sizeof path, "%sstat", dir);
    if (slurp(path, buf, sizeof buf) <= 0) return 0;
    const char *s = strrchr(buf, ')');
    return s && s[1] == ' ' ? s[2] : 0;
}

/* Whether process q's only child is pid (zombies counted: a zombie child ends a wait at once). */
static int only_child(int q, int pid)
{
    DIR *d = opendir("/proc");
    if (!d) return 0;
    int n = 0, it = 0;
    for (struct dirent *e; (e = readdir(d));) {
        long k = atol(e->d_name);
        char dir[40];
        if (k <= 0) continue;
        snprintf(dir, sizeof dir, "/proc/%ld/", k);
        if (stat_field(dir, 4) != q) continue;
        n++;
        it |= k == pid;
    }
    closedir(d);
    return n == 1 && it;
}

/* The signals a traced process's tracer catches itself (fatal.c, cpuprof.h), those its own
 * code raises, and glibc's own two (cancellation, setxid: the first two real-time signals): a
 * handler for any other is the program's, and may run when a signal comes. */
static uint64_t tracer_signals(void)
{
    static const int sigs[] = {SIGTERM, SIGINT,    SIGHUP,  SIGQUIT, SIGPIPE,   SIGALRM,
                               SIGUSR1, SIGUSR2,   SIGXCPU, SIGXFSZ, SIGVTALRM, SIGIO,
                               SIGPWR,  SIGSTKFLT, SIGSEGV, SIGBUS,  SIGILL,    SIGFPE,
                               SIGABRT, SIGPROF,   SIGTRAP, SIGSYS,  32,        33};
    uint64_t m = 0;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        m |= 1ull << (sigs[i] - 1);
    return m;
}

/* Whether process q (dir) catches a signal beyond the tracer's: 1, 0; 1 when unknown. */
static int catches(const char *dir)
{
    char path[PATH_ROOM], buf[2048];
    snprintf(path, sizeof path, "%sstatus", dir);
    if (slurp(path, buf, sizeof buf) <= 0) return 1;
    const char *c = strstr(buf, "SigCgt:");
    return !c || (strtoull(c + 7, NULL, 16) & ~tracer_signals()) != 0;
}

/* Thread tid of q (dir)'s wait: 1 when it waits for pid (text into w), 0 not, -1 a wait whose
 * selection is not known (any child, or the call not readable: then pid must be the only one). */
static int thread_waits(const char *dir, long tid, int pid, char *w, size_t cap)
{
    char path[PATH_ROOM], buf[64];
    long nr;
    unsigned long a[6];
    char tdir[96];
    snprintf(tdir, sizeof tdir, "%stask/%ld/", dir, tid);
    if (state_of(tdir) != 'S') return 0;
    snprintf(path, sizeof path, "%stask/%ld/syscall", dir, tid);
    if (syscall_of(path, &nr, a)) {
        if (errno != EACCES && errno != EPERM) return 0;
        snprintf(path, sizeof path, "%stask/%ld/wchan", dir, tid);
        if (slurp(path, buf, sizeof buf) <= 0 || strcmp(buf, "do_wait")) return 0;
        snprintf(w, cap, "a wait for a child, the only child");
        return -1;
    }
    if (nr == SYS_wait4 && !((int)a[2] & WNOHANG)) {
        int sel = (int)a[0];
        snprintf(w, cap, "wait4(%d)%s", sel, sel == pid ? "" : ", the only child");
        return sel == pid ? 1 : sel <= 0 ? -1 : 0; /* any child (of a group), or another one */
    }
    if (nr == SYS_waitid && !((int)a[3] & WNOHANG)) {
        int type = (int)a[0], id = (int)a[1];
        snprintf(w, cap, "waitid(%s, %d)%s",
                 type == P_PID    ? "P_PID"
                 : type == P_ALL  ? "P_ALL"
                 : type == P_PGID ? "P_PGID"
                                  : "P_PIDFD",
                 id, type == P_PID && id == pid ? "" : ", the only child");
        return type == P_PID ? id == pid : -1;
    }
    return 0;
}

/* The TID of process pid's tracer thread (its live file's head, if it is traced and has one:
 * gotrace.PID.live or gotrace.PID-K.live, the head naming pid and running), 0 if none. */
static int64_t tracer_tid(int pid)
{
    struct gt_live_head h;
    for (int k = 0; k < 8; k++) {
        char path[96];
        if (k)
            snprintf(path, sizeof path, "%s/%s%d-%d%s", GT_LIVE_DIR, GT_LIVE_PREFIX, pid, k,
                     GT_LIVE_SUFFIX);
        else
            snprintf(path, sizeof path, "%s/%s%d%s", GT_LIVE_DIR, GT_LIVE_PREFIX, pid,
                     GT_LIVE_SUFFIX);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n = pread(fd, &h, sizeof h, 0);
        close(fd);
        if (n == (ssize_t)sizeof h && !memcmp(h.magic, GT_LIVE_MAGIC, 8) && h.pid == pid &&
            h.state == GT_LIVE_RUNNING)
            return h.flusher_tid;
    }
    return 0;
}

int hp_comm(int pid, char *buf, size_t cap)
{
    char path[48];
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    if (slurp(path, buf, cap) <= 0) return -1;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

int hp_waits_for(struct hp_holder *h, int pid)
{
    char dir[40], path[64];
    snprintf(dir, sizeof dir, "/proc/%d/", h->pid);
    if (hp_comm(h->pid, h->name, sizeof h->name)) return 0;
    if (catches(dir)) return 0;
    snprintf(path, sizeof path, "%stask", dir);
    DIR *d = opendir(path);
    if (!d) return 0;
    int ok = 1, any = 0;
    int64_t tracer = tracer_tid(h->pid);
    h->ntids = 0;
    for (struct dirent *e; ok && (e = readdir(d));) {
        long tid = atol(e->d_name);
        if (tid <= 0 || tid == tracer) continue;
        int i = h->ntids;
        int r = i < HP_TIDS ? thread_waits(dir, tid, pid, h->waits[i], sizeof h->waits[i]) : 0;
        ok = r != 0;
        any |= r < 0;
        if (ok) h->tids[h->ntids++] = tid;
    }
    closedir(d);
    return ok && h->ntids > 0 && (!any || only_child(h->pid, pid));
}
