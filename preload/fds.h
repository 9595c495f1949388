/* fds.h: the tracer's own file descriptors, kept out of the program's way.
 * Invariants: a descriptor the tracer keeps open for long (the trace file, libunwind's
 * memory-validation pipe, the symbolizer's ELF files) is moved to a high number (the lowest
 * free one >= fds_base(), below RLIMIT_NOFILE) so that the program's own descriptors get the
 * numbers they get untraced; the ones whose lifetime the tracer controls are also kept (listed
 * here): to the program a kept descriptor is not open (close says EBADF, close_range and
 * closefrom skip it, dup2/dup3 onto it first move it away or forget it). The list is small
 * (GT_FDS_MAX) and read without a lock: entries are single atomic ints. */
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
int fds_kept(int fd);
/* Kept with a move callback: its owner closes it itself (the trace file), never through close(). */
int fds_owned(int fd);
/* A close-on-exec duplicate of fd at a high number, or -1. */
int fds_high_dup(int fd);
/* The program is about to make fd refer to something else (dup2/dup3 onto it): a kept fd is
 * moved away or forgotten first. */
void fds_yield(int fd);
/* close_range(lo, hi, flags) through close_fn, leaving kept descriptors open. */
int fds_close_range(unsigned lo, unsigned hi, int flags, int (*close_fn)(unsigned, unsigned, int));
#endif
