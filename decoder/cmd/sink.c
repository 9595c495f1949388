/* sink.c: output files written whole or not at all (see sink.h for the contract).
 * The commands stream: export writes its JSON while it reads the trace, so damage found in the
 * last generation, a full disk or a kill comes after most of the output was produced. Writing
 * to a temporary file in the destination's directory (same file system, so rename(2) is
 * atomic and needs no copy) and renaming it over the destination only when everything was
 * written means a reader of the destination sees the old file or the new one, never a prefix.
 * Invariants: the temporary file exists only between gd_sink_open and gd_sink_close and is
 * removed on every failure the command sees (a kill leaves it, under its own name, never a
 * part under the destination's); the input is compared by device and inode (stat follows
 * links), so the same file reached through another path, a symbolic link or a hard link is
 * recognized; stdout is never closed here (the process's, for the messages that follow). */
#include "sink.h"
#include "exitcode.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_stdout(const char *path)
{
    return !path || !strcmp(path, "-");
}

/* 1 when the output (path, or stdout) is the same file as the input (path, or stdin).
 * Only a regular file counts: `gotrace export - -o -` run from a terminal can have stdin and
 * stdout on one tty, which is not reading and writing the same data. An output
 * that does not exist yet cannot be the input (stat fails). */
static int same_file(const char *path, const char *input)
{
    struct stat o, i;
    int ro = is_stdout(path) ? fstat(STDOUT_FILENO, &o) : stat(path, &o);
    int ri = !input || !strcmp(input, "-") ? fstat(STDIN_FILENO, &i) : stat(input, &i);
    return !ro && !ri && S_ISREG(o.st_mode) && o.st_dev == i.st_dev && o.st_ino == i.st_ino;
}

static int io_fail(const char *name, const char *what, int e)
{
    fprintf(stderr, "gotrace: %s: cannot %s: %s\n", name, what, strerror(e));
    return GD_EXIT_IO;
}

/* A temporary file next to s->dest ("DEST.XXXXXX"), with the mode a new file gets: mkstemp
 * creates it 0600, and the output should be as readable as a file the shell's `>` makes (0666
 * less the umask), e.g. a report published from a web directory. The umask has no getter, so it
 * is read by setting it and put back at once (no other thread runs). Being a new file, the
 * output does not keep the replaced file's mode or owner, and a hard link to the old file keeps
 * the old content. The descriptor, or -1 with errno set (s->tmp, if allocated, is freed by the
 * caller). */
static int open_tmp(struct gd_sink *s)
{
    size_t n = strlen(s->dest) + 8;
    s->tmp = malloc(n);
    if (!s->tmp) return -1;
    snprintf(s->tmp, n, "%s.XXXXXX", s->dest);
    int fd = mkstemp(s->tmp);
    if (fd < 0) return -1;
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) == 0) return fd;
    int e = errno;
    close(fd);
    unlink(s->tmp);
    errno = e;
    return -1;
}

/* The path a file written at path lands at, malloc'd: path itself, or for a symbolic link,
 * its target, followed link by link (a relative target from the link's directory) as open(2)
 * does, so a link to a file not made yet is written through, as a shell's `>` does; NULL with
 * errno set (ELOOP after 40 links, as the kernel; ENAMETOOLONG). */
static char *link_target(const char *path)
{
    char cur[PATH_MAX], t[PATH_MAX];
    if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur) goto too_long;
    for (int hop = 0; hop < 40; hop++) {
        ssize_t n = readlink(cur, t, sizeof t - 1);
        if (n < 0) return strdup(cur); /* not a link (or nothing there): the path itself */
        t[n] = 0;
        char *slash = strrchr(cur, '/');
        size_t dir = t[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
        if (dir + (size_t)n >= sizeof cur) goto too_long;
        memcpy(cur + dir, t, (size_t)n + 1);
    }
    errno = ELOOP;
    return NULL;
too_long:
    errno = ENAMETOOLONG;
    return NULL;
}

/* The file descriptor the output goes to, or -1 with errno set. */
static int open_dest(struct gd_sink *s, const char *path)
{
    struct stat st;
    char real[PATH_MAX];
    /* Write through a symbolic link to its target, not over the link: rename(2) onto the
     * link's path would replace the link itself with a regular file. realpath also puts the
     * temporary file in the target's directory, on the target's file system. A path that does
     * not resolve (a new file, or a link to a file not made yet) is its link target. */
    s->dest = realpath(path, real) ? strdup(real) : link_target(path);
    if (!s->dest) return -1;
    /* A device or a FIFO (-o /dev/stdout, a named pipe a viewer reads) is written directly:
     * it has no old content to protect, and renaming a file over its name would replace the
     * device node or pipe (or fail without the right to write its directory) instead of
     * writing to it. It is opened by the name given, without O_CREAT or O_TRUNC; a directory
     * fails here with EISDIR, reported as "cannot create". */
    if (stat(s->dest, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(s->dest);
        s->dest = NULL;
        return open(path, O_WRONLY | O_CLOEXEC);
    }
    return open_tmp(s);
}

int gd_sink_open(struct gd_sink *s, const char *path, const char *input)
{
    memset(s, 0, sizeof(*s));
    s->name = is_stdout(path) ? "standard output" : path;
    /* Checked before anything is created: writing over the trace would destroy it for a
     * mistyped -o, and with `-o -` redirected into the trace it would corrupt what is still
     * being read. */
    if (same_file(path, input)) {
        fprintf(stderr, "gotrace: %s: is the input trace; not overwriting it\n", s->name);
        return GD_EXIT_USAGE;
    }
    int fd = is_stdout(path) ? STDOUT_FILENO : open_dest(s, path);
    if (fd < 0) {
        int rc = io_fail(path, "create", errno);
        free(s->dest);
        free(s->tmp);
        return rc;
    }
    if (gd_out_init(&s->out, fd) == 0) return 0;
    gd_sink_close(s, 0);
    return io_fail(s->name, "write", ENOMEM);
}

/* On failure, what is buffered for a temporary file is dropped with it, but a direct output
 * (stdout, a device) gets it: it already has the earlier part, and ending it at the failure
 * (export's JSON, then left unclosed so that no parser takes it for whole) is what
 * docs/decoder.md promises for `-o -`. close(2) is checked as a write: a network file system
 * or a quota may report a failed write only there.
 * A failure here is reported only when the command succeeded: otherwise the command's own
 * status (a bad trace) is the one that explains what happened. */
int gd_sink_close(struct gd_sink *s, int ok)
{
    int e = 0;
    if (s->out.buf && (ok || !s->tmp) && gd_out_flush(&s->out)) e = s->out.err;
    gd_out_free(&s->out);
    if (s->out.fd != STDOUT_FILENO && close(s->out.fd) && !e) e = errno;
    if (ok && !e && s->tmp && rename(s->tmp, s->dest)) e = errno;
    if (s->tmp && (!ok || e)) unlink(s->tmp);
    free(s->tmp);
    free(s->dest);
    s->tmp = s->dest = NULL;
    return ok && e ? io_fail(s->name, "write", e) : 0;
}

int gd_sink_write(const char *path, const char *input, int (*fill)(struct gd_out *o, void *ctx),
                  void *ctx)
{
    struct gd_sink sink;
    int rc = gd_sink_open(&sink, path, input);
    if (rc) return rc;
    int failed = fill(&sink.out, ctx);
    rc = gd_sink_close(&sink, !failed);
    return failed ? failed : rc; /* the fill's failure explains more than an output error */
}
