/* lifecycle.h: the tracer's start and end, and the calling thread's record (tr_current).
 * Set-up on first use, a flush before exec, around dlclose and on request, the final
 * generation at exit, a fresh start in a forked child.
 * Invariants: tr_init runs its body once (from the constructor, or from the first hook if
 * another library's constructor calls one earlier); any failure leaves the program running
 * untraced after one "gotrace: " message; nothing here runs on the event path but tr_current's
 * inline test. Exec, exit and flush requests act only in the process the tracer belongs to: a
 * vfork child, or a child made without fork handlers (_Fork, clone), shares or copies the
 * parent's state and must not write it. */
#ifndef GOTRACE_LIFECYCLE_H
#define GOTRACE_LIFECYCLE_H
#include "state.h"
#include "thread.h"

#include <stddef.h>
#include <sys/types.h>

__attribute__((cold)) struct gt_thread *tr_current_slow(void);
/* The calling thread's record if it may emit now, registering a thread first seen (and setting
 * the tracer up on first use); else NULL. */
static inline __attribute__((always_inline)) struct gt_thread *tr_current(void)
{
    struct gt_thread *t = gt_self;
    if (__builtin_expect(t && !t->depth && state_tracing() &&
                             !atomic_load_explicit(&t->exited, memory_order_relaxed),
                         1))
        return t;
    return tr_current_slow();
}

void tr_init(void);
void tr_flush_now(void); /* write the complete generations now */
/* The write before the process dies (abort, assert): never on the calling thread (it may hold
 * malloc's lock: flusher.h); the last one when there is no flusher thread. */
void tr_flush_dying(void);
/* The program is about to start a thread: the flusher thread starts first if it has not. */
void tr_threads_begin(void);
/* The process is about to change its effective user to euid (setuid and kin; -1: unchanged),
 * after which it may neither create its trace file nor remove its live file from the sticky
 * /dev/shm: a forked child's file not opened yet is opened now (with the privileges it has),
 * and the live file is given to euid (util/arena.h arena_give_to). errno is kept. */
void tr_before_user_change(uid_t euid);
/* Around the unloading of a library (dlclose): before, the generation in progress is written
 * while its code is still mapped, so its stacks are symbolized from it; after, the unwind rules,
 * stack memos and symbols kept by address are dropped (other code may be mapped there). */
void tr_before_unload(void);
void tr_after_unload(void);
/* Before exec: writes the complete generations and formats the environment entry that tells
 * the new image it continues this process (GT_EXEC_ENV=<pid>.<image>); 0 if not tracing. */
#define GT_EXEC_ENV "GOTRACE_EXEC_OF"
int tr_before_exec(char *marker, size_t size);
/* After tr_before_exec, when the exec will most likely replace the image (its file exists and
 * may be executed): the image's live file is removed now, as its clean end would (arena.h
 * arena_unlink), since nothing may be left to remove it if the new image is not traced. */
void tr_exec_leaves(void);
void tr_shutdown(void);
/* gotrace_flight_dump(): the flight recorder's window written now; -1 when not tracing in
 * flight mode. */
int tr_flight_dump(void);
/* The calling process reaped child pid, which a signal ended: the live file it left goes if it
 * traced nothing (util/arena.h arena_forget_child). errno is kept. */
void tr_child_reaped(pid_t pid);
/* fork() made child pid. When the process is dying of a fatal signal meanwhile (another thread
 * handles it: fatal.h), the child is killed (SIGKILL) and the caller waits for the end: untraced,
 * the signal would have ended the process before the fork, and a child forked after it was sent
 * to the process group would have outlived it. */
void tr_forked(pid_t pid);
/* 0 in a child made without fork handlers (vfork, _Fork, clone): it must not touch the
 * tracer's state, which is its parent's. */
int tr_in_own_process(void);
#endif
