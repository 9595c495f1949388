/* futex.h: futex calls made through syscall() (hooks/futex.c), for the syscall() hook. */
#ifndef GOTRACE_FUTEX_H
#define GOTRACE_FUTEX_H

/* syscall(nr, a[0..5]) when it is a futex call the tracer follows: 1 with the real call's
 * result in *r (errno as it left it), 0 for the caller to forward. */
int futex_call(long nr, const long a[6], long *r);
#endif
