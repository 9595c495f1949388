/* sink.c: output files written whole or not at all (see sink.h). */
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

/* 1 when the output (path, or stdout) is the same file as the input (path, or stdin). */
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

/* A temporary file next to s->dest, with the mode a new file gets. */
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

/* The file descriptor the output goes to, or -1 with errno set. */
static int open_dest(struct gd_sink *s, const char *path)
{
    struct stat st;
    char real[PATH_MAX];
    /* Write through a symbolic link to its target, not over the link. */
    s->dest = strdup(realpath(path, real) ? real : path);
    if (!s->dest) return -1;
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
    return failed ? failed : rc;
}
