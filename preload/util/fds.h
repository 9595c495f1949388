/* fds.h: the tracer's own file descriptors, kept out of the program's way.
 * Invariants: a descriptor the tracer keeps open for long (the trace file, libunwind's
 * memory-validation pipe, the symbolizer's ELF files) is moved to a high number (the lowest
 * free one >= fds_base(), below RLIMIT_NOFILE) so that the program's own descriptors get the
 * numbers they get untraced; the ones whose lifetime the tracer controls are also kept (listed
 * here): to the program a kept descriptor is not open (close says EBADF, close_range and
 * closefrom skip it, dup2/dup3 onto it first move it away or forget it). The list is small
 * (GT_FDS_MAX) and read without a lock. The same rules hold for close, close_range, dup2 and
 * dup3 made through syscall(). A system call the hooks cannot see (inline assembly, libc's
 * internal calls) may still close or replace a kept number: the next time the program acts on
 * that number, the tracer sees (device and inode) that it is not its file any more, forgets it
 * and lets the program act; the trace file's owner checks it before every write (flusher.h). */
#ifndef GOTRACE_FDS_H
#define GOTRACE_FDS_H

#define GT_FDS_MAX 8

/* Moves fd to a high number (close-on-exec) and returns the new number; fd itself if no high
 * number is free. Never fails: the descriptor stays open either way. */
int fds_high(int fd);
/* fds_high, then keeps the result. move, if not NULL, is how a dup2 onto it gets the
 * descriptor moved: it must duplicate the descriptor (fds_high_dup) and switch its user to
 * the copy before it returns the copy's number (or -1: then the descriptor is forgotten). */
int fds_keep(int fd, int (*move)(int fd));
void fds_forget(int fd);
/* Whether fd is still kept: not forgotten (by the tracer, or by a program's close or dup2 of the
 * number that found it no longer the tracer's file). Acquires what the forgetting released. */
int fds_is_kept(int fd);
/* A close-on-exec duplicate of fd at a high number, or -1. */
int fds_high_dup(int fd);
/* close(fd), by the tracer (by_tracer) or the program: 0 if the caller must fail with EBADF
 * instead (a kept descriptor the program closes, or one with a move callback, whose owner
 * closes it itself: the trace file); else 1, a kept descriptor the tracer closes being
 * forgotten first. */
int fds_close_allowed(int fd, int by_tracer);
/* dup2/dup3(from, to) by the program: 0 if the caller must fail with EBADF instead (from is
 * kept); else 1, after a kept `to` was moved away (its move callback) or forgotten. */
int fds_dup_allowed(int from, int to);
/* close_range(lo, hi, flags) through close_fn, leaving kept descriptors open. */
int fds_close_range(unsigned lo, unsigned hi, int flags, int (*close_fn)(unsigned, unsigned, int));
#endif
