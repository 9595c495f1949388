/* stdio.c: the stdio calls that may read or write their stream's descriptor, traced as the read
 * or write they make (SYSCALL_FD: GoSyscallBegin with the caller's stack ... GoSyscallEnd, the
 * pipe or socket named when it waited; a read of a pipe or Unix socket that waits is a block a
 * writer ends, and a write wakes such a reader, as read's and write's: hooks.h PIPE_READ). glibc's
 * stdio reads and writes through its internal
 * __read/__write, which no hook sees, so without these a program that reads a pipe with
 * getc, fgets, fread or getline (sort, uniq, sed, most filters of a shell pipeline) or fills
 * one with fwrite or putc would look running while it waits for the other end.
 * A call is traced only when the stream's buffer cannot serve it (a read finds fewer bytes than
 * it needs, a write would overflow the buffer or end a line of a line-buffered stream, a flush has
 * bytes to write): the buffer's pointers are read without the stream's lock, a guess that errs
 * on the side of tracing (a traced call that then did not touch the descriptor is a short
 * syscall). A call the buffer serves costs one test and the real call.
 * Not hooked: the printf and scanf families (a printf that fills a pipe's buffer and waits
 * shows as running), wide-character calls, and glibc's own flushes at exit.
 * Invariants: each hook returns what the real function returns, with its errno (hooks.h); a
 * stream with no descriptor (fmemopen, fopencookie: fileno -1) is never traced; the stream's
 * fields are only read. The flag values are glibc's (libio.h, unchanged since glibc 2.1). */
#include "hooks.h"
#include "real.h"

#include <stdio.h>
#include <string.h>

/* Macros in glibc's optimized headers (bits/stdio.h): the hooks define the functions. */
#undef fread_unlocked
#undef fwrite_unlocked

#define IO_UNBUFFERED 0x0002
#define IO_LINE_BUF 0x0200

/* Bytes f's read buffer holds. */
static inline size_t buffered(FILE *f)
{
    return f->_IO_read_ptr && f->_IO_read_end > f->_IO_read_ptr
               ? (size_t)(f->_IO_read_end - f->_IO_read_ptr)
               : 0;
}

/* Whether reading want bytes from f may read its descriptor. */
static inline int reads_fd(FILE *f, size_t want)
{
    return f->_fileno >= 0 && want > buffered(f);
}

/* Whether reading up to and including delim, at most max bytes, may read f's descriptor. */
static inline int reads_to(FILE *f, int delim, size_t max)
{
    size_t have = buffered(f);
    if (have > max) have = max;
    return f->_fileno >= 0 && have < max && !(have && memchr(f->_IO_read_ptr, delim, have));
}

/* Whether writing the n bytes at data to f may write its descriptor: an unbuffered stream, more
 * than the buffer holds (one not set up yet will hold at least 4 KiB: the descriptor's block
 * size; a terminal's line buffering is only known once it is set up), or a line ended on a
 * line-buffered stream (data NULL: the bytes end a line). */
static inline int writes_fd(FILE *f, const void *data, size_t n)
{
    if (f->_fileno < 0) return 0;
    if (f->_flags & IO_UNBUFFERED) return 1;
    if (!f->_IO_buf_base) return n > 4096;
    char *at = f->_IO_write_ptr > f->_IO_buf_base ? f->_IO_write_ptr : f->_IO_buf_base;
    if (n > (size_t)(f->_IO_buf_end - at)) return 1;
    return (f->_flags & IO_LINE_BUF) && (!data || memchr(data, '\n', n));
}

/* Whether f holds written bytes a flush writes. */
static inline int pending(FILE *f)
{
    return f->_fileno >= 0 && f->_IO_write_ptr > f->_IO_write_base;
}

/* call, which reads f's descriptor when read (its buffer cannot serve it): on a pipe's read end
 * or a Unix socket the descriptor table knows (util/pipes.h), a zero-timeout poll tells whether
 * it waits (a stdio call cannot be tried without waiting, as PIPE_READ's are): then it is the
 * block "pipe: read OBJECT" a writer ends (hooks.h PIPE_READ); else, and on any other
 * descriptor, the read as a system call. */
#define STDIO_READ(read, f, call)                                                                  \
    __extension__({                                                                                \
        int fd_ = (f)->_fileno, rd_ = (read);                                                      \
        struct gt_thread *ps_ =                                                                    \
            rd_ && (pipes_kind(fd_) & PK_READ) && pipe_would_wait(fd_, 1) ? tr_current() : NULL;   \
        __typeof__(call) r_;                                                                       \
        if (ps_) {                                                                                 \
            struct pipe_wait pw_;                                                                  \
            int traced_ = pipe_block(ps_, fd_, "read", &pw_);                                      \
            r_ = (call);                                                                           \
            if (traced_) pipe_unblock(ps_, fd_, 0, &pw_);                                          \
        } else {                                                                                   \
            r_ = SYSCALL_READ_FD_IF(rd_, fd_, call);                                               \
        }                                                                                          \
        r_;                                                                                        \
    })
/* call, which writes f's descriptor when write: a reader waiting on that pipe or socket is
 * woken or told of (pipe_before_write, as PIPE_WRITE's), and the write is a system call. */
#define STDIO_WRITE(write, f, call)                                                                \
    __extension__({                                                                                \
        int fd_ = (f)->_fileno, wr_ = (write);                                                     \
        if (wr_ && __builtin_expect(pipes_kind(fd_) & PK_WRITE, 0)) pipe_before_write(fd_);        \
        SYSCALL_FD_IF(wr_, fd_, call);                                                             \
    })

#define READ_N(f, n, call) STDIO_READ(reads_fd((f), (n)), f, call)
#define READ_TO(f, delim, max, call) STDIO_READ(reads_to((f), (delim), (max)), f, call)
#define WRITE_N(f, data, n, call) STDIO_WRITE(writes_fd((f), (data), (n)), f, call)
#define WRITE_C(f, c, call)                                                                        \
    __extension__({                                                                                \
        char c_ = (char)(c);                                                                       \
        WRITE_N(f, &c_, 1, call);                                                                  \
    })

/* ---- reads ---- */

EXPORT int __uflow(FILE *f)
{
    return READ_N(f, 1, REAL(__uflow)(f));
}

EXPORT int __underflow(FILE *f)
{
    return READ_N(f, 1, REAL(__underflow)(f));
}

EXPORT int fgetc(FILE *f)
{
    return READ_N(f, 1, REAL(fgetc)(f));
}

EXPORT int getc(FILE *f)
{
    return READ_N(f, 1, REAL(getc)(f));
}

EXPORT int _IO_getc(FILE *f)
{
    return READ_N(f, 1, REAL(_IO_getc)(f));
}

EXPORT int fgetc_unlocked(FILE *f)
{
    return READ_N(f, 1, REAL(fgetc_unlocked)(f));
}

EXPORT int getc_unlocked(FILE *f)
{
    return READ_N(f, 1, REAL(getc_unlocked)(f));
}

EXPORT int getchar(void)
{
    return READ_N(stdin, 1, REAL(getchar)());
}

EXPORT int getchar_unlocked(void)
{
    return READ_N(stdin, 1, REAL(getchar_unlocked)());
}

EXPORT size_t fread(void *p, size_t size, size_t n, FILE *f)
{
    return READ_N(f, size * n, REAL(fread)(p, size, n, f));
}

EXPORT size_t fread_unlocked(void *p, size_t size, size_t n, FILE *f)
{
    return READ_N(f, size * n, REAL(fread_unlocked)(p, size, n, f));
}

EXPORT size_t __fread_chk(void *p, size_t cap, size_t size, size_t n, FILE *f)
{
    return READ_N(f, size * n, REAL(__fread_chk)(p, cap, size, n, f));
}

EXPORT size_t __fread_unlocked_chk(void *p, size_t cap, size_t size, size_t n, FILE *f)
{
    return READ_N(f, size * n, REAL(__fread_unlocked_chk)(p, cap, size, n, f));
}

/* fgets reads at most n - 1 bytes, up to a newline. */
#define FGETS_MAX(n) ((n) > 1 ? (size_t)(n)-1 : 0)

EXPORT char *fgets(char *s, int n, FILE *f)
{
    return READ_TO(f, '\n', FGETS_MAX(n), REAL(fgets)(s, n, f));
}

EXPORT char *fgets_unlocked(char *s, int n, FILE *f)
{
    return READ_TO(f, '\n', FGETS_MAX(n), REAL(fgets_unlocked)(s, n, f));
}

EXPORT char *__fgets_chk(char *s, size_t cap, int n, FILE *f)
{
    return READ_TO(f, '\n', FGETS_MAX(n), REAL(__fgets_chk)(s, cap, n, f));
}

EXPORT char *__fgets_unlocked_chk(char *s, size_t cap, int n, FILE *f)
{
    return READ_TO(f, '\n', FGETS_MAX(n), REAL(__fgets_unlocked_chk)(s, cap, n, f));
}

EXPORT ssize_t getdelim(char **line, size_t *cap, int delim, FILE *f)
{
    return READ_TO(f, delim, SIZE_MAX, REAL(getdelim)(line, cap, delim, f));
}

EXPORT ssize_t __getdelim(char **line, size_t *cap, int delim, FILE *f)
{
    return READ_TO(f, delim, SIZE_MAX, REAL(__getdelim)(line, cap, delim, f));
}

EXPORT ssize_t getline(char **line, size_t *cap, FILE *f)
{
    return READ_TO(f, '\n', SIZE_MAX, REAL(getline)(line, cap, f));
}

/* ---- writes ---- */

EXPORT int __overflow(FILE *f, int c)
{
    return WRITE_C(f, c, REAL(__overflow)(f, c));
}

EXPORT int fputc(int c, FILE *f)
{
    return WRITE_C(f, c, REAL(fputc)(c, f));
}

EXPORT int putc(int c, FILE *f)
{
    return WRITE_C(f, c, REAL(putc)(c, f));
}

EXPORT int _IO_putc(int c, FILE *f)
{
    return WRITE_C(f, c, REAL(_IO_putc)(c, f));
}

EXPORT int fputc_unlocked(int c, FILE *f)
{
    return WRITE_C(f, c, REAL(fputc_unlocked)(c, f));
}

EXPORT int putc_unlocked(int c, FILE *f)
{
    return WRITE_C(f, c, REAL(putc_unlocked)(c, f));
}

EXPORT int putchar(int c)
{
    return WRITE_C(stdout, c, REAL(putchar)(c));
}

EXPORT int putchar_unlocked(int c)
{
    return WRITE_C(stdout, c, REAL(putchar_unlocked)(c));
}

EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    return WRITE_N(f, p, size * n, REAL(fwrite)(p, size, n, f));
}

EXPORT size_t fwrite_unlocked(const void *p, size_t size, size_t n, FILE *f)
{
    return WRITE_N(f, p, size * n, REAL(fwrite_unlocked)(p, size, n, f));
}

EXPORT int fputs(const char *s, FILE *f)
{
    return WRITE_N(f, s, strlen(s), REAL(fputs)(s, f));
}

EXPORT int fputs_unlocked(const char *s, FILE *f)
{
    return WRITE_N(f, s, strlen(s), REAL(fputs_unlocked)(s, f));
}

/* puts writes s and a newline. */
EXPORT int puts(const char *s)
{
    return WRITE_N(stdout, NULL, strlen(s) + 1, REAL(puts)(s));
}

/* fflush(NULL) flushes every stream: traced whenever stdout has bytes to write. */
EXPORT int fflush(FILE *f)
{
    return f ? STDIO_WRITE(pending(f), f, REAL(fflush)(f))
             : SYSCALL_IF(pending(stdout), REAL(fflush)(f));
}

EXPORT int fflush_unlocked(FILE *f)
{
    return f ? STDIO_WRITE(pending(f), f, REAL(fflush_unlocked)(f))
             : SYSCALL_IF(pending(stdout), REAL(fflush_unlocked)(f));
}

/* The descriptor is closed by then: the flush's pipe is not named. */
EXPORT int fclose(FILE *f)
{
    int w = pending(f);
    if (w && __builtin_expect(pipes_kind(f->_fileno) & PK_WRITE, 0)) pipe_before_write(f->_fileno);
    return SYSCALL_IF(w, REAL(fclose)(f));
}
