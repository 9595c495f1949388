/* tracer.c: the semantic tracer API (Go's traceruntime). See tracer.h for the contract; the
 * events are written by writer.h, inside seqlock sections.
 * Every API function that writes runs between one acquire and one release (Go's
 * traceAcquire/traceRelease): the caller's errno is saved and restored, and the thread is
 * inside the tracer meanwhile (depth). Stacks are captured before a section opens.
 * One M, one live record: a thread gets its record (gt_self) with gt_internal set, so a signal
 * handler calling a hook meanwhile never adopts it a second time; a record a handler made
 * before the tracer started a created thread ends before that thread's first event, and the
 * thread moves behind it in the registry (batches of one M are written in event order). */
#include "tracer.h"

#include "cpuprof.h"
#include "invariant.h"
#include "hang.h"
#include "locktrack.h"
#include "log.h"
#include "plainlock.h"
#include "regions.h"
#include "syncobj.h"
#include "syncobj_encode.h"
#include "writer.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *const reason_names[GT_R_COUNT] = {
    [GT_R_JOIN] = "sync: join",
    [GT_R_MUTEX] = "sync: mutex",
    [GT_R_RWLOCK_READ] = "sync: rwlock read",
    [GT_R_RWLOCK_WRITE] = "sync: rwlock write",
    [GT_R_CONDVAR] = "sync: condvar",
    [GT_R_SEMAPHORE] = "sync: semaphore",
    [GT_R_BARRIER] = "sync: barrier",
    [GT_R_SLEEP] = "sleep",
    [GT_R_NETWORK] = "network",
    [GT_R_FUTEX] = "sync: futex",
    [GT_R_OMP_BARRIER] = "sync: omp barrier",
    [GT_R_OMP_CRITICAL] = "sync: omp critical",
    [GT_R_OMP_LOCK] = "sync: omp lock",
    [GT_R_CHILD] = "wait: child",
    [GT_R_SIGNAL] = "signal wait",
    [GT_R_PIPE] = "pipe: read",
    [GT_R_SOCKET] = "socket: recv",
};
static uint64_t reason_ids[GT_R_COUNT];

uint64_t tr_reason_id(enum gt_reason r)
{
    return reason_ids[r];
}
/* What a wait on an object is to the hang check (hang.h HANG_*). */
static const uint8_t hang_kinds[GT_R_COUNT] = {
    [GT_R_JOIN] = HANG_JOIN,          [GT_R_MUTEX] = HANG_MUTEX,
    [GT_R_RWLOCK_READ] = HANG_RWLOCK, [GT_R_RWLOCK_WRITE] = HANG_RWLOCK,
    [GT_R_CONDVAR] = HANG_OWNERLESS,  [GT_R_SEMAPHORE] = HANG_OWNERLESS,
    [GT_R_BARRIER] = HANG_OWNERLESS,
};

void tr_reasons_init(void)
{
    for (int i = 0; i < GT_R_COUNT; i++)
        reason_ids[i] = str_intern_cstr(reason_names[i]);
}

/* ---- acquire and release ---- */

/* own_time: the moves of a G out of Running or Syscall (and of its P) are the owner's alone
 * (wr_g_move_own: nobody else moves a G that runs) and only ever follow its own moves, so their
 * events are timed with gt_now_early: no other thread's move must come before them in time, and
 * the owner's own earlier events are earlier in its stream, whose times never go back
 * (writer.h). */

struct call {
    struct gt_thread *t; /* NULL: a caller without a record (tr_stack) */
    int *errp;
    int saved_errno;
};

static inline __attribute__((always_inline)) struct call acquire(struct gt_thread *t)
{
    int *errp = t ? t->errp : &errno;
    struct call c = {t, errp, *errp};
    if (t) t->depth++;
    return c;
}

static inline __attribute__((always_inline)) void release(struct call c)
{
    if (c.t) {
        GT_ASSERT(c.t->depth > 0);
        c.t->depth--;
    }
    *c.errp = c.saved_errno;
}

static const uint8_t INC1[8] = {1, 1, 1, 1, 1, 1, 1, 1};
/* Back to Running: from Waiting GoUnblock + GoStart (2), from Runnable GoStart (1). */
static const uint8_t INC_RESUME[8] = {[GO_G_WAITING] = 2, [GO_G_RUNNABLE] = 1};

static unsigned g_state(struct gt_thread *t)
{
    return word_state(atomic_load_explicit(&t->gword, memory_order_acquire));
}

static uint64_t tid_of(struct gt_thread *t)
{
    return (uint64_t)atomic_load(&t->tid);
}

/* A status fix-up after the G is Running again: gives Go's profiles a stack-carrying
 * transition (docs/go-trace-format.md 6.5). The move back to Running (resume with
 * MOVE_RESTART) already restarted the G's sequence at 0 for it. */
static inline __attribute__((always_inline)) void running_fixup(struct gt_writer *w, uint64_t stk)
{
    struct gt_thread *t = w->t;
    wr_mark_stack(w, stk);
    WR_EMIT(w, GO_EV_GO_STATUS_STACK, t->g, tid_of(t), GO_G_RUNNING, stk);
    wr_label_if_due(w);
}

/* Brings the owner back to Running from Waiting, Runnable or Syscall; 0 if it was Running,
 * -1 if the section must restart in a newer generation.
 * restart: MOVE_RESTART when the caller writes running_fixup next (then on 1), else 0. */
static inline __attribute__((always_inline)) int resume(struct gt_writer *w, unsigned restart)
{
    struct gt_thread *t = w->t;
    uint64_t seq0;
    unsigned from;
    if (g_state(t) == GO_G_SYSCALL) { /* only the owner moves it out of Syscall */
        struct gt_p *p = atomic_load_explicit(&t->p, memory_order_relaxed);
        uint64_t ps;
        wr_p_move_own(w, p, SMASK(GO_P_SYSCALL), GO_P_RUNNING, 0, &ps);
        wr_g_move_own(w, SMASK(GO_G_SYSCALL), GO_G_RUNNING | restart, &seq0, &from);
        w->ts = gt_now_early(); /* only the owner's moves came before: own_time */
        WR_EMIT0(w, GO_EV_GO_SYSCALL_END);
        return 1;
    }
    int r = wr_g_move_owner(w, SMASK(GO_G_WAITING) | SMASK(GO_G_RUNNABLE), GO_G_RUNNING | restart,
                            INC_RESUME, &seq0, &from);
    if (r == MOVE_OK) {
        if (from == GO_G_WAITING) {
            wr_mark_stack(w, t->block_stack);
            WR_EMIT(w, GO_EV_GO_UNBLOCK, t->g, seq0 + 1, t->block_stack);
            WR_EMIT(w, GO_EV_GO_START, t->g, seq0 + 2);
        } else {
            WR_EMIT(w, GO_EV_GO_START, t->g, seq0 + 1);
        }
        return 1;
    }
    return r == MOVE_SKEW ? -1 : 0;
}

/* resume in a section of its own, restarted in the newer generation when a waker got there
 * first. fixup (the end of a wait): the P's status is claimed first, and running_fixup(stk)
 * follows the resume. */
static void resume_section(struct gt_thread *t, int fixup, uint64_t stk)
{
    struct gt_writer w;
    for (;;) {
        wr_begin(&w, t);
        if (fixup) wr_p_touch(&w);
        int r = resume(&w, fixup ? MOVE_RESTART : 0);
        if (r > 0 && fixup) running_fixup(&w, stk);
        wr_end(&w);
        if (r >= 0) return;
    }
}

/* ---- threads ---- */

/* ProcStart, then (for a thread that creates itself) GoCreate, then GoStart. */
static void first_events(struct gt_writer *w, struct gt_thread *t, struct gt_p *p, int create,
                         uint64_t create_new, uint64_t create_stk)
{
    uint64_t ps, seq0;
    unsigned from;
    wr_p_move(w, p, SMASK(GO_P_IDLE), GO_P_RUNNING, 1, &ps);
    WR_EMIT(w, GO_EV_PROC_START, p->id, ps + 1);
    atomic_store_explicit(&t->p, p, memory_order_release);
    if (create) {
        wr_mark_stack(w, create_new);
        wr_mark_stack(w, create_stk);
        WR_EMIT(w, GO_EV_GO_CREATE, t->g, create_new, create_stk);
        atomic_store_explicit(&t->gword, word_make(w->gen, GO_G_RUNNABLE, 0), memory_order_release);
    }
    wr_g_move(w, t, SMASK(GO_G_RUNNABLE), GO_G_RUNNING, INC1, &seq0, &from);
    WR_EMIT(w, GO_EV_GO_START, t->g, seq0 + 1);
}

/* The calling thread's record becomes t, inside the tracer (depth 1). A signal handler that
 * calls a hook meanwhile must not adopt the thread: gt_internal stays set until gt_self is. */
static void become(struct gt_thread *t)
{
    t->depth = 1;
    t->errp = &errno;
    atomic_signal_fence(memory_order_seq_cst);
    gt_self = t;
    atomic_signal_fence(memory_order_seq_cst);
    gt_internal = 0;
}

/* A thread the tracer did not see being created: it creates itself (named by entry if given).
 * A handler that got there first (between the caller's check of gt_self and here) has adopted
 * it already: then this call goes untraced. */
GOTRACE_API_FN struct gt_thread *tr_adopt(void *entry)
{
    int saved = errno;
    gt_internal = 1; /* also: a signal handler must not adopt us while we hold a lock */
    atomic_signal_fence(memory_order_seq_cst);
    struct gt_p *p = gt_self ? NULL : proc_get();
    struct gt_thread *t = p ? thread_alloc() : NULL;
    if (!t) {
        if (p) proc_put(p);
        if (!gt_self) state_fail("out of memory for thread state");
        gt_internal = 0;
        errno = saved;
        return NULL;
    }
    atomic_store(&t->tid, (int64_t)gettid());
    t->handle = pthread_self();
    t->start = (void *(*)(void *))entry;
    (void)plainlock_self(); /* a thread other than the lone one (made inside glibc) ends its mode */
    become(t);
    struct call c = {t, t->errp, saved};
    thread_register(t);
    uint64_t stk = stack_capture(t->stk.memo);
    /* The process's main thread is "main" even when a library's constructor made it appear
     * first, or the program is stripped (stack.h STACK_PC_MAIN); no code of the program created
     * it, so its creation has no stack (not the hook that happened to adopt it). Another thread
     * is named by its start routine, found in stk, its first stack (stack_named), and created
     * where it was first seen. */
    int is_main = gettid() == getpid();
    uint64_t named = is_main ? stack_named_main()
                     : entry ? stack_routine(entry)
                     : stk   ? stack_named(&t->stk, NULL)
                             : 0;
    struct gt_writer w;
    wr_begin(&w, t);
    first_events(&w, t, p, 1, named, is_main ? 0 : stk);
    wr_end(&w);
    state_thread_started();
    cpuprof_thread_start(t);
    release(c);
    return t;
}

GOTRACE_API_FN void tr_main_start(void *main_fn)
{
    if (gt_internal || gt_self || !state_tracing_acquire()) return;
    tr_adopt(main_fn);
}

GOTRACE_API_FN struct gt_thread *tr_create_prepare(struct gt_thread *self, void *(*start)(void *),
                                                   void *arg)
{
    if (g_state(self) != GO_G_RUNNING) return NULL;
    struct call c = acquire(self);
    struct gt_thread *child = thread_alloc();
    if (!child) {
        release(c);
        return NULL;
    }
    child->start = start;
    child->arg = arg;
    atomic_store(&child->creating, 1); /* until tr_create_done / tr_create_failed */
    uint64_t stk = stack_capture(self->stk.memo);
    uint64_t named = stack_named(&child->stk, (void *)start); /* start, or the program's code */
    thread_register(child);
    struct gt_writer w;
    wr_begin(&w, self);
    wr_p_touch(&w);
    wr_g_touch(&w);
    wr_mark_stack(&w, stk);
    wr_mark_stack(&w, named);
    WR_EMIT(&w, GO_EV_GO_CREATE, child->g, named, stk);
    atomic_store_explicit(&child->gword, word_make(w.gen, GO_G_RUNNABLE, 0), memory_order_release);
    wr_end(&w);
    state_thread_started();
    release(c);
    return child;
}

void tr_create_done(struct gt_thread *child, pthread_t handle)
{
    pthread_t unset = 0; /* or the child stored it itself (the same value) */
    atomic_compare_exchange_strong(&child->handle, &unset, handle);
    thread_hint(child, handle);
    atomic_store_explicit(&child->creating, 0, memory_order_release);
}

void tr_create_failed(struct gt_thread *child)
{
    uint64_t gen = state_gen();
    atomic_store(&child->gword, word_make(gen, GT_G_DEAD, 0));
    child->exit_gen = gen;
    atomic_store_explicit(&child->exited, 1, memory_order_release);
    atomic_store_explicit(&child->creating, 0, memory_order_release);
    (void)state_thread_ended();
}

/* The last events of t (inside the tracer for good): GoDestroy, ProcStop; it has exited. */
static void exit_events(struct gt_thread *t)
{
    struct gt_p *p = atomic_load(&t->p);
    uint64_t seq0, ps;
    unsigned from;
    struct gt_writer w;
    wr_begin(&w, t);
    wr_p_touch(&w);
    if (atomic_load_explicit(&t->name_str, memory_order_relaxed)) {
        wr_g_touch(&w);
        wr_label_if_due(&w);
    }
    wr_g_move(&w, t, SMASK(GO_G_RUNNING), GT_G_DEAD, WR_INC0, &seq0, &from);
    WR_EMIT0(&w, GO_EV_GO_DESTROY);
    wr_p_move(&w, p, SMASK(GO_P_RUNNING), GO_P_IDLE, 0, &ps);
    WR_EMIT0(&w, GO_EV_PROC_STOP);
    atomic_store_explicit(&t->p, NULL, memory_order_release);
    t->exit_gen = w.gen;
    size_t held = t->stream[w.gen & 1].len; /* its last buffer is as good as full now */
    wr_end(&w);
    state_note_full(w.gen, ((held + 4095) & ~(size_t)4095) + thread_held(t)); /* and its record */
    proc_put(p);
    atomic_store_explicit(&t->exited, 1, memory_order_release);
    if (state_thread_ended()) state_kick(); /* the last one: the flusher may be done */
}

/* Starts created thread t on the calling thread. A signal can reach the thread before this
 * (glibc unblocks signals just before the trampoline runs), and a handler calling a hook then
 * adopts the thread (early): that record ends here, before t starts on the same M, without
 * waking t's joiners. */
GOTRACE_API_FN void *(*tr_thread_start(struct gt_thread *t, void **arg))(void *)
{
    void *(*start)(void *) = t->start;
    *arg = t->arg;
    int saved = errno;
    gt_internal = 1; /* no adoption by a handler from here on */
    atomic_signal_fence(memory_order_seq_cst);
    struct gt_thread *early = gt_self;
    become(t);
    struct call c = {t, t->errp, saved};
    atomic_store(&t->tid, (int64_t)gettid());
    t->handle = pthread_self();
    if (early && !atomic_load(&early->exited) && atomic_load(&early->p)) {
        early->depth = 1;
        cpuprof_thread_exit(early);
        resume_section(early, 0, 0);
        exit_events(early);
        thread_requeue(t); /* early, registered after t, wrote this M's first events */
    }
    struct gt_p *p = proc_get();
    if (!p) {
        state_fail("out of memory for proc state");
        errno = saved;
        return start; /* t stays inside the tracer: untraced */
    }
    struct gt_writer w;
    wr_begin(&w, t);
    first_events(&w, t, p, 0, 0, 0);
    wr_end(&w);
    cpuprof_thread_start(t);
    release(c);
    return start;
}

GOTRACE_API_FN int tr_exit_begin(struct gt_thread *t, int returned, uint64_t *stk,
                                 pthread_t *handle)
{
    if (t->depth || atomic_load(&t->exited) || !atomic_load(&t->p)) return 0;
    struct call c = acquire(t); /* never released: the thread is done */
    cpuprof_thread_exit(t);
    if (lo__on) tr_lock_exit(t); /* the locks it still holds (locktrack.h) */
    *stk = returned ? 0 : stack_capture(t->stk.memo);
    if (stack_enabled() && stack_depth(*stk) == 0 && t->start) /* returned from its routine */
        *stk = stack_routine((void *)t->start);
    resume_section(t, 0, 0);
    *handle = t->handle;
    errno = c.saved_errno;
    return 1;
}

GOTRACE_API_FN void tr_exit_end(struct gt_thread *t)
{
    int saved = errno;
    GT_ASSERT(t->depth == 1);
    exit_events(t);
    errno = saved;
}

/* ---- waiting ---- */

GOTRACE_API_FN uint64_t tr_stack(void)
{
    struct gt_thread *self = gt_self; /* the unwinder's own calls (read, mutexes) stay untraced */
    struct call c = acquire(self);
    uint64_t stk = stack_capture(self ? self->stk.memo : NULL);
    release(c);
    return stk;
}

/* The waits recorded even with no holder known at block time: those on objects whose releases
 * the hooks record (tr_released), so that the decoder can match them to the wait: locks, futex
 * words (a wake is the release of a futex lock), OpenMP's critical sections and locks. */
static const unsigned recorded = 1u << GT_R_MUTEX | 1u << GT_R_RWLOCK_READ |
                                 1u << GT_R_RWLOCK_WRITE | 1u << GT_R_FUTEX |
                                 1u << GT_R_OMP_CRITICAL | 1u << GT_R_OMP_LOCK;

/* GoBlock(reason, the caller's stack); with key, the wait on object key (its own reason string
 * for a lock, condvar, semaphore or barrier: syncobj.h) held by thread holder (a TID, 0
 * unknown), recorded for the decoder and the hang check (how: the reason, | GT_R_UNTIMED,
 * | GT_R_UNNAMED: the plain reason, key only for the records). */
static inline __attribute__((always_inline)) int block(struct gt_thread *self, enum gt_reason how,
                                                       void *key, int64_t holder, const char *text)
{
    if (g_state(self) != GO_G_RUNNING) return 0;
    enum gt_reason reason = how & ~(GT_R_UNTIMED | GT_R_UNNAMED);
    struct call c = acquire(self);
    uint64_t stk = stack_capture(self->stk.memo);
    atomic_store_explicit(&self->block_stack, stk, memory_order_relaxed);
    uint64_t rid = text ? str_intern_cstr(text) : 0;
    if (!rid) rid = reason_ids[reason];
    if (key && reason != GT_R_JOIN && !(how & GT_R_UNNAMED)) rid = so_reason(rid, key, stk);
    int watched = key && hang_on(); /* the hang check's view of the wait (hang.h) */
    if (watched) {
        unsigned kind = hang_kinds[reason] | (how & GT_R_UNTIMED ? HANG_UNTIMED : 0);
        atomic_store_explicit(&self->wait_holder, holder, memory_order_relaxed);
        atomic_store_explicit(&self->wait_since, gt_now(), memory_order_relaxed);
        atomic_store_explicit(&self->wait_kind, kind, memory_order_relaxed);
        atomic_store_explicit(&self->wait_obj, rid, memory_order_release);
    }
    uint64_t seq0;
    unsigned from;
    struct gt_writer w;
    wr_begin(&w, self);
    wr_p_touch(&w);
    int r = wr_g_move_own(&w, SMASK(GO_G_RUNNING), GO_G_WAITING, &seq0, &from);
    if (r == MOVE_OK) {
        w.ts = gt_now_early(); /* own_time */
        wr_mark_stack(&w, stk);
        wr_mark_str(&w, rid);
        WR_EMIT(&w, GO_EV_GO_BLOCK, rid, stk);
        if (key && (holder || (recorded >> reason & 1))) /* the others have no release */
            so_record_wait(&w, rid, key, holder);
    }
    wr_end(&w);
    if (watched && r != MOVE_OK) atomic_store_explicit(&self->wait_obj, 0, memory_order_relaxed);
    release(c);
    return r == MOVE_OK;
}

GOTRACE_API_FN int tr_block(struct gt_thread *self, enum gt_reason reason)
{
    return block(self, reason, NULL, 0, NULL);
}

GOTRACE_API_FN int tr_block_text(struct gt_thread *self, enum gt_reason reason, const char *text)
{
    return block(self, reason, NULL, 0, text);
}

GOTRACE_API_FN int tr_block_on(struct gt_thread *self, enum gt_reason reason, void *key,
                               int64_t holder)
{
    return block(self, reason, key, holder, NULL);
}

GOTRACE_API_FN void tr_released(struct gt_thread *self, void *key, uint64_t stk)
{
    tr_released_at(self, key, stk, 0);
}

GOTRACE_API_FN void tr_released_at(struct gt_thread *self, void *key, uint64_t stk, uint64_t ts)
{
    if (g_state(self) != GO_G_RUNNING) return;
    struct call c = acquire(self);
    struct gt_writer w;
    wr_begin(&w, self);
    w.ts = ts; /* the record's time, 0: now (no event: the stream's times are not touched) */
    so_record_release(&w, key, stk);
    wr_end(&w);
    release(c);
}

void tr_note_init(const void *obj, uintptr_t pc)
{
    so_note_init(obj, pc);
}

int64_t tr_thread_tid(pthread_t th)
{
    struct gt_thread *self = gt_self;
    struct call c = acquire(self); /* the registry lock is the tracer's */
    struct gt_thread *t = thread_find(th);
    int64_t tid = t ? atomic_load(&t->tid) : 0;
    if (t && !tid) tid = -(int64_t)t->g; /* not started yet: named by its goroutine */
    release(c);
    return tid;
}

GOTRACE_API_FN void tr_unblock(struct gt_thread *self)
{
    struct call c = acquire(self);
    if (hang_on()) atomic_store_explicit(&self->wait_obj, 0, memory_order_relaxed);
    resume_section(self, 1, self->block_stack);
    release(c);
}

int tr_wake(struct gt_thread *self, struct gt_thread *t, uint64_t stk)
{
    if (t == self || g_state(self) != GO_G_RUNNING || g_state(t) != GO_G_WAITING) return 0;
    struct call c = acquire(self);
    uint64_t seq0;
    unsigned from;
    int r;
    struct gt_writer w;
    do {
        wr_begin(&w, self);
        r = wr_g_move(&w, t, SMASK(GO_G_WAITING), GO_G_RUNNABLE, INC1, &seq0, &from);
        if (r == MOVE_OK) {
            wr_mark_stack(&w, stk);
            WR_EMIT(&w, GO_EV_GO_UNBLOCK, t->g, seq0 + 1, stk);
        }
        wr_end(&w);
    } while (r == MOVE_SKEW);
    release(c);
    return r == MOVE_OK;
}

/* ---- system calls ---- */

GOTRACE_API_FN int tr_syscall_begin(struct gt_thread *self)
{
    if (g_state(self) != GO_G_RUNNING) return 0;
    struct call c = acquire(self);
    uint64_t stk = stack_capture(self->stk.memo);
    self->syscall_stack = stk;
    uint64_t seq0, ps;
    unsigned from;
    struct gt_writer w;
    wr_begin(&w, self);
    struct gt_p *p = atomic_load_explicit(&self->p, memory_order_relaxed);
    wr_p_move_own(&w, p, SMASK(GO_P_RUNNING), GO_P_SYSCALL, 1, &ps);
    wr_g_move_own(&w, SMASK(GO_G_RUNNING), GO_G_SYSCALL, &seq0, &from);
    w.ts = gt_now_early(); /* own_time */
    self->syscall_ts = w.ts;
    wr_mark_stack(&w, stk);
    WR_EMIT(&w, GO_EV_GO_SYSCALL_BEGIN, ps + 1, stk);
    wr_end(&w);
    release(c);
    return 1;
}

GOTRACE_API_FN uint64_t tr_syscall_end(struct gt_thread *self)
{
    struct call c = acquire(self);
    struct gt_writer w;
    uint64_t took = 0;
    atomic_store_explicit(&self->read_fd, 0, memory_order_relaxed);
    wr_begin(&w, self);
    if (resume(&w, MOVE_RESTART) > 0) {
        took = w.ts > self->syscall_ts ? w.ts - self->syscall_ts : 0;
        running_fixup(&w, self->syscall_stack);
    }
    wr_end(&w);
    release(c);
    return took;
}

GOTRACE_API_FN void tr_syscall_reads(struct gt_thread *self, int fd)
{
    if (fd >= 0 && hang_on() && g_state(self) == GO_G_WAITING)
        atomic_store_explicit(&self->read_since, gt_now(), memory_order_relaxed);
    atomic_store_explicit(&self->read_fd, fd + 1, memory_order_release);
}

/* What fd is, if another process may be at its other end: "pipe:[INO]", "fifo:PATH [MAJ:MIN
 * INO]", "socket:[INO] unix, peer pid N" (the pid that made the other end, SO_PEERCRED); "" for
 * anything else. A readlink, and an fstat or two getsockopt calls. */
static void fd_identity(int fd, char *text, size_t cap)
{
    char path[40], link[112];
    text[0] = 0;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0) return;
    link[n] = 0;
    struct stat st;
    if (!strncmp(link, "pipe:", 5)) {
        snprintf(text, cap, "%s", link);
    } else if (!strncmp(link, "socket:", 7)) {
        int dom = 0;
        struct ucred cred = {0};
        socklen_t dl = sizeof dom, cl = sizeof cred;
        if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) != 0 || dom != AF_UNIX) return;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0 && cred.pid > 0 &&
            cred.pid != getpid()) /* (a socketpair's: its maker's own) */
            snprintf(text, cap, "%s unix, peer pid %d", link, (int)cred.pid);
        else
            snprintf(text, cap, "%s unix", link);
    } else if (link[0] == '/' && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
        snprintf(text, cap, "fifo:%s [%02x:%02x %llu]", link, major(st.st_dev), minor(st.st_dev),
                 (unsigned long long)st.st_ino);
    }
}

GOTRACE_API_FN void tr_fd_waited(struct gt_thread *self, int fd)
{
    if (g_state(self) != GO_G_RUNNING) return;
    int saved = errno; /* (readlink, fstat and getsockopt are not hooked) */
    char text[192];
    fd_identity(fd, text, sizeof text);
    if (text[0]) tr_log(self, "gotrace.fd", text);
    errno = saved;
}

/* ---- annotations: user tasks, regions, logs, thread names (docs/annotations.md) ---- */

/* tr_user_event at time ts (gt_now's; 0: now). An earlier ts than the thread's last event is
 * written as that one's (the writer never lets a thread's time go down). */
static int user_event_at(struct gt_thread *self, uint8_t type, int n, const uint64_t *args,
                         unsigned strs, uint64_t ts)
{
    if (g_state(self) != GO_G_RUNNING || n >= GT_EV_MAX_ARGS) return 0;
    struct call c = acquire(self);
    uint64_t a[GT_EV_MAX_ARGS];
    for (int i = 0; i < n; i++)
        a[i] = args[i];
    a[n] = stack_capture(self->stk.memo);
    struct gt_writer w;
    wr_begin(&w, self);
    wr_p_touch(&w);
    wr_g_touch(&w);
    w.ts = ts; /* after the touches, whose moves re-time what follows (status.h) */
    wr_label_if_due(&w);
    for (int i = 0; i < n; i++)
        if (strs & (1u << i)) wr_mark_str(&w, a[i]);
    wr_mark_stack(&w, a[n]);
    wr_emit(&w, type, n + 1, a);
    wr_end(&w);
    release(c);
    return 1;
}

GOTRACE_API_FN int tr_user_event(struct gt_thread *self, uint8_t type, int n, const uint64_t *args,
                                 unsigned strs)
{
    return user_event_at(self, type, n, args, strs, 0);
}

GOTRACE_API_FN int tr_log_at(struct gt_thread *self, const char *key, const char *text, uint64_t ts)
{
    if (g_state(self) != GO_G_RUNNING) return 0;
    uint64_t args[3] = {0, tr_string(self, key, 64), tr_string(self, text, 256)};
    return user_event_at(self, GO_EV_USER_LOG, 3, args, 1u << 1 | 1u << 2, ts);
}

GOTRACE_API_FN int tr_log(struct gt_thread *self, const char *key, const char *text)
{
    return tr_log_at(self, key, text, 0);
}

GOTRACE_API_FN uint64_t tr_clock(void)
{
    return gt_now();
}

GOTRACE_API_FN void tr_post_shared(struct gt_thread *self, const char *kind, const void *obj,
                                   uint64_t ts)
{
    if (g_state(self) != GO_G_RUNNING) return;
    int saved = errno;
    char name[200], text[256];
    if (so_shared_name_now((uintptr_t)obj, name, sizeof name) > 0) {
        snprintf(text, sizeof text, "%s %s", kind, name);
        tr_log_at(self, "gotrace.post", text, ts);
    }
    errno = saved;
}

GOTRACE_API_FN void tr_region_begin(struct gt_thread *self, uint64_t task, uint64_t name)
{
    if (!regions_begin(&self->regions)) {
        gt_warn_once(warned_deep,
                     "more than %d nested regions on one thread: the deeper ones are "
                     "left out of the trace",
                     GT_REGION_MAX);
        return;
    }
    uint64_t args[] = {task, name};
    if (tr_user_event(self, GO_EV_USER_REGION_BEGIN, 2, args, 1u << 1))
        regions_push(&self->regions, task, name);
}

GOTRACE_API_FN void tr_region_end(struct gt_thread *self, uint64_t task, uint64_t name,
                                  const char *text)
{
    uint64_t args[] = {task, name};
    switch (regions_end(&self->regions, task, name)) {
    case REGION_END_MATCH:
        if (tr_user_event(self, GO_EV_USER_REGION_END, 2, args, 1u << 1))
            regions_pop(&self->regions);
        break;
    case REGION_END_MISMATCH:
        gt_warn_once(warned_mismatch,
                     "gotrace_region_end(%llu, \"%.64s\") does not end the thread's innermost "
                     "open region: left out of the trace (so are later mismatched ends)",
                     (unsigned long long)task, text ? text : "");
        break;
    case REGION_END_LOST:
        break;
    }
}

/* The tracer's own goroutine, on the calling thread (the flusher), for one log: it is created,
 * starts, logs, and ends at once (docs/go-trace-format.md 6.2: a thread first seen). */
void tr_tracer_log(const char *key, const char *text)
{
    if (gt_self || !state_tracing()) return;
    struct gt_p *p = proc_get();
    struct gt_thread *t = p ? thread_alloc() : NULL;
    if (!t) {
        if (p) proc_put(p);
        return;
    }
    atomic_store(&t->tid, (int64_t)gettid());
    t->handle = pthread_self();
    t->start = (void *(*)(void *))(void *)tr_tracer_log;
    t->depth = 1;
    t->errp = &errno;
    gt_self = t; /* gt_internal stays set: this thread's calls stay untraced */
    thread_register(t);
    uint64_t named = stack_routine((void *)tr_tracer_log);
    uint64_t a[4] = {0, str_intern_cstr(key), str_intern_cstr(text), named};
    struct gt_writer w;
    wr_begin(&w, t);
    first_events(&w, t, p, 1, named, named);
    wr_mark_str(&w, a[1]);
    wr_mark_str(&w, a[2]);
    wr_emit(&w, GO_EV_USER_LOG, 4, a);
    wr_end(&w);
    state_thread_started();
    exit_events(t);
    gt_self = NULL;
}

uint64_t tr_string(struct gt_thread *self, const char *s, size_t max)
{
    if (!s || !*s) return 0;
    struct call c = acquire(self); /* a capture in a signal handler leaves this thread alone */
    uint64_t id = str_intern(s, strnlen(s, max));
    release(c);
    return id;
}

/* Writes self's name label now, if due (self Running). */
static void label_now(struct gt_thread *self)
{
    if (g_state(self) != GO_G_RUNNING) return;
    struct gt_writer w;
    wr_begin(&w, self);
    wr_p_touch(&w);
    wr_g_touch(&w);
    wr_label_if_due(&w);
    wr_end(&w);
}

void tr_set_name(struct gt_thread *self, pthread_t th, const char *name, size_t max)
{
    struct call c = acquire(self); /* the registry lock is the tracer's */
    struct gt_thread *t = pthread_equal(th, pthread_self()) ? self : thread_find(th);
    if (t) { /* else not traced (yet) */
        uint64_t id = name && *name ? str_intern(name, strnlen(name, max)) : 0;
        atomic_store_explicit(&t->name_str, id, memory_order_release);
        if (t == self) label_now(self);
    }
    release(c);
}
