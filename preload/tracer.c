/* tracer.c: the semantic tracer API (Go's traceruntime). See tracer.h for the contract.
 *
 * Every event is written inside the calling thread's seqlock section: seq becomes odd, the
 * generation is read, events go to the buffer of that generation's parity, seq becomes even.
 * The flusher switches generations and waits for sections of the old one to end before taking
 * its buffers. Stacks are captured before a section opens, so sections stay short. Events
 * are timed by the state move they report (status.h: times increase along each G's moves,
 * across threads). A section
 * whose G word already belongs to a newer generation (a waker got there first) restarts.
 * One M, one live record: a thread gets its record (gt_self) with gt_internal set, so a signal
 * handler calling a hook meanwhile never adopts it a second time; a record a handler made
 * before the tracer started a created thread ends before that thread's first event, and the
 * thread moves behind it in the registry (batches of one M are written in event order). */
#include "tracer.h"

#include "clock.h"
#include "cpuprof.h"
#include "event.h"
#include "flusher.h"
#include "log.h"
#include "section.h"
#include "stack.h"
#include "status.h"
#include "strings.h"
#include "waitq.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#define TLS_IE __attribute__((tls_model("initial-exec")))
__thread struct gt_thread *gt_self TLS_IE;
__thread int gt_internal TLS_IE;
atomic_int gt_on;
_Atomic uint64_t gt_gen = 1;
atomic_int gt_live;

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
};
static uint64_t reason_ids[GT_R_COUNT];

void tr_reasons_init(void)
{
    for (int i = 0; i < GT_R_COUNT; i++)
        reason_ids[i] = str_intern_cstr(reason_names[i]);
}

/* ---- sections and event emission ---- */

struct sect {
    struct gt_thread *t;
    uint64_t gen;
    uint64_t ts; /* time of the events being written; 0: read it at the next one (a move) */
};

static void sect_begin(struct sect *s, struct gt_thread *t)
{
    sect_enter(&t->seq);
    s->t = t;
    s->gen = atomic_load_explicit(&gt_gen, memory_order_acquire); /* ordered: section.h */
    s->ts = 0;
}

static void sect_end(struct sect *s)
{
    sect_leave(&s->t->seq);
}

/* A new buffer for st (of generation gen), the full one pushed; 0 when memory is exhausted
 * (tracing stops). */
__attribute__((cold, noinline)) static int stream_refill(struct gt_stream *st, uint64_t gen,
                                                         uint64_t now)
{
    struct gt_buf *nb = buf_get();
    if (!nb) {
        flusher_fail("out of memory for trace buffers");
        return 0;
    }
    if (st->cur) {
        st->cur->len = st->len;
        stream_push_full(st, st->cur);
        flusher_note_full(gen, st->len);
    }
    st->cur = nb;
    st->len = 0;
    st->room = nb->cap - GT_EV_MAX + 1;
    nb->base_ts = st->last_ts = now;
    return 1;
}

/* Writes one event (inline: with a constant n the encoding unrolls). */
static inline __attribute__((always_inline)) void emit_inline(struct sect *s, uint8_t type, int n,
                                                              const uint64_t *args)
{
    if (!s->ts) s->ts = gt_now(); /* once per run of events after a move */
    uint64_t now = s->ts;
    struct gt_stream *st = &s->t->stream[s->gen & 1];
    if (__builtin_expect(st->len >= st->room, 0) && !stream_refill(st, s->gen, now)) return;
    uint64_t last = st->last_ts;
    uint64_t dt = now > last ? now - last : 0;
    st->last_ts = now > last ? now : last;
    uint8_t *data = st->cur->data;
    st->len = (uint32_t)(ev_encode(data + st->len, type, dt, n, args) - data);
}

/* The same as an emit callback (status.h), for the status events of moves. */
static void sect_emit(void *ctx, uint8_t type, int n, const uint64_t *args)
{
    emit_inline(ctx, type, n, args);
}

#define EMIT(s, type, ...)                                                                         \
    emit_inline((s), (type), (int)(sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)),          \
                (uint64_t[]){__VA_ARGS__})
#define EMIT0(s, type) emit_inline((s), (type), 0, NULL)

static const uint8_t INC0[8] = {0};
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

/* Whether key was marked in gen by this thread lately (then it need not be again); records it.
 * Keys: stack id << 1, string id << 1 | 1. */
static int marked_lately(struct gt_thread *t, uint64_t gen, uint64_t key)
{
    if (t->marked.gen != gen) {
        memset(&t->marked, 0, sizeof t->marked);
        t->marked.gen = gen;
    }
    for (int i = 0; i < 4; i++)
        if (t->marked.key[i] == key) return 1;
    t->marked.key[t->marked.next++ & 3] = key;
    return 0;
}

/* Marks stack stk used in the section's generation (for the flusher's stack table). */
static void mark(struct sect *s, uint64_t stk)
{
    if (stk && !marked_lately(s->t, s->gen, stk << 1)) stack_mark(stk, s->gen);
}

/* Marks string id used in the section's generation. */
static void mark_str(struct sect *s, uint64_t id)
{
    if (id && !marked_lately(s->t, s->gen, id << 1 | 1)) str_mark(id, s->gen);
}

/* Claims the generation for the owner's P without changing it. A P claimed for a generation
 * stays claimed for it (generations only grow), so the owner remembers it. */
static void p_touch(struct sect *s)
{
    struct gt_thread *t = s->t;
    if (t->p_claimed == s->gen) return;
    struct gt_p *p = atomic_load_explicit(&t->p, memory_order_relaxed);
    uint64_t seq0;
    if (!p) return;
    uint64_t w = atomic_load_explicit(&p->word, memory_order_acquire);
    if (word_gen(w) < s->gen && p_move(s->gen, p, SMASK(word_state(w)), word_state(w), 0, &seq0,
                                       sect_emit, s, &s->ts) != MOVE_OK)
        return;
    if (word_gen(w) <= s->gen) t->p_claimed = s->gen;
}

/* Claims the generation for the owner's G without changing it (it is Running). */
static void g_touch(struct sect *s)
{
    uint64_t seq0;
    unsigned from;
    g_move(s->gen, s->t, SMASK(GO_G_RUNNING), GO_G_RUNNING, INC0, &seq0, &from, sect_emit, s,
           &s->ts);
}

/* The thread's name as a GoLabel, if it changed or was not written yet in this generation
 * (the G must be Running and its status claimed). See docs/annotations.md. */
static void label_if_due(struct sect *s)
{
    struct gt_thread *t = s->t;
    uint64_t name = atomic_load_explicit(&t->name_str, memory_order_acquire);
    if (__builtin_expect(!name, 1) || (t->label_str == name && t->label_gen == s->gen)) return;
    mark_str(s, name);
    EMIT(s, GO_EV_GO_LABEL, name);
    t->label_str = name;
    t->label_gen = s->gen;
}

/* A status fix-up after the G is Running again: gives Go's profiles a stack-carrying
 * transition (docs/go-trace-format.md 6.5). The move back to Running (resume with
 * MOVE_RESTART) already restarted the G's sequence at 0 for it. */
static void running_fixup(struct sect *s, uint64_t stk)
{
    struct gt_thread *t = s->t;
    mark(s, stk);
    EMIT(s, GO_EV_GO_STATUS_STACK, t->g, tid_of(t), GO_G_RUNNING, stk);
    label_if_due(s);
}

/* Brings the owner back to Running from Waiting, Runnable or Syscall; 0 if it was Running.
 * restart: MOVE_RESTART when the caller writes running_fixup next (then on 1), else 0. */
static int resume(struct sect *s, uint64_t *seq0, unsigned *from, unsigned restart)
{
    struct gt_thread *t = s->t;
    if (g_state(t) == GO_G_SYSCALL) { /* only the owner moves it out of Syscall */
        struct gt_p *p = atomic_load_explicit(&t->p, memory_order_relaxed);
        uint64_t ps;
        p_move(s->gen, p, SMASK(GO_P_SYSCALL), GO_P_RUNNING, 0, &ps, sect_emit, s, &s->ts);
        g_move(s->gen, t, SMASK(GO_G_SYSCALL), GO_G_RUNNING | restart, INC0, seq0, from, sect_emit,
               s, &s->ts);
        EMIT0(s, GO_EV_GO_SYSCALL_END);
        return 1;
    }
    int r = g_move(s->gen, t, SMASK(GO_G_WAITING) | SMASK(GO_G_RUNNABLE), GO_G_RUNNING | restart,
                   INC_RESUME, seq0, from, sect_emit, s, &s->ts);
    if (r == MOVE_OK) {
        if (*from == GO_G_WAITING) {
            mark(s, t->block_stack);
            EMIT(s, GO_EV_GO_UNBLOCK, t->g, *seq0 + 1, t->block_stack);
            EMIT(s, GO_EV_GO_START, t->g, *seq0 + 2);
        } else {
            EMIT(s, GO_EV_GO_START, t->g, *seq0 + 1);
        }
        return 1;
    }
    return r == MOVE_SKEW ? -1 : 0;
}

/* ---- threads ---- */

/* ProcStart, then (for a thread that creates itself) GoCreate, then GoStart. */
static void first_events(struct sect *s, struct gt_thread *t, struct gt_p *p, int create,
                         uint64_t create_new, uint64_t create_stk)
{
    uint64_t ps, seq0;
    unsigned from;
    p_move(s->gen, p, SMASK(GO_P_IDLE), GO_P_RUNNING, 1, &ps, sect_emit, s, &s->ts);
    EMIT(s, GO_EV_PROC_START, p->id, ps + 1);
    atomic_store_explicit(&t->p, p, memory_order_release);
    if (create) {
        mark(s, create_new);
        mark(s, create_stk);
        EMIT(s, GO_EV_GO_CREATE, t->g, create_new, create_stk);
        atomic_store_explicit(&t->gword, word_make(s->gen, GO_G_RUNNABLE, 0), memory_order_release);
    }
    g_move(s->gen, t, SMASK(GO_G_RUNNABLE), GO_G_RUNNING, INC1, &seq0, &from, sect_emit, s, &s->ts);
    EMIT(s, GO_EV_GO_START, t->g, seq0 + 1);
}

/* A thread the tracer did not see being created: it creates itself (named by entry if given).
 * A signal handler that calls a hook while this runs must not adopt the thread a second time
 * (two Gs and Ps on one M): gt_internal stays set until gt_self is, and a handler that got
 * there first (between the caller's check of gt_self and here) has adopted it already. */
GOTRACE_API_FN static struct gt_thread *adopt(void *entry)
{
    gt_internal = 1; /* also: a signal handler must not adopt us while we hold a lock */
    atomic_signal_fence(memory_order_seq_cst);
    if (gt_self) {
        gt_internal = 0;
        return NULL; /* adopted by a handler meanwhile: this call goes untraced */
    }
    struct gt_p *p = proc_get();
    struct gt_thread *t = p ? thread_alloc() : NULL;
    if (!t) {
        if (p) proc_put(p);
        gt_internal = 0;
        flusher_fail("out of memory for thread state");
        return NULL;
    }
    atomic_store(&t->tid, (int64_t)gettid());
    t->handle = pthread_self();
    t->depth = 1;
    t->start = (void *(*)(void *))entry;
    atomic_signal_fence(memory_order_seq_cst);
    gt_self = t;
    atomic_signal_fence(memory_order_seq_cst);
    gt_internal = 0;
    thread_register(t);
    uint64_t stk = stack_capture(&t->memo);
    uintptr_t pc = (uintptr_t)entry + 1;
    uint64_t named = entry ? stack_from_pcs(&pc, 1) : stk;
    struct sect s;
    sect_begin(&s, t);
    first_events(&s, t, p, 1, named, stk);
    sect_end(&s);
    atomic_fetch_add(&gt_live, 1);
    cpuprof_thread_start(t);
    t->depth = 0;
    return t;
}

GOTRACE_API_FN struct gt_thread *tr_current_slow(void)
{
    if (gt_internal) return NULL;
    if (!atomic_load_explicit(&gt_on, memory_order_acquire)) {
        tracer_init();
        if (!atomic_load_explicit(&gt_on, memory_order_acquire)) return NULL;
    }
    if (gt_self) return NULL;                  /* inside the tracer, or after the thread's exit */
    if (!tracer_in_own_process()) return NULL; /* a vfork child: the parent's state */
    int saved = errno;
    struct gt_thread *t = adopt(NULL);
    errno = saved;
    return t;
}

GOTRACE_API_FN void tr_main_start(void *main_fn)
{
    if (gt_internal || gt_self || !atomic_load(&gt_on)) return;
    int saved = errno;
    adopt(main_fn);
    errno = saved;
}

GOTRACE_API_FN struct gt_thread *tr_create_prepare(struct gt_thread *self, void *(*start)(void *),
                                                   void *arg)
{
    if (g_state(self) != GO_G_RUNNING) return NULL;
    int saved = errno;
    self->depth++;
    struct gt_thread *child = thread_alloc();
    if (!child) {
        self->depth--;
        errno = saved;
        return NULL;
    }
    child->start = start;
    child->arg = arg;
    atomic_store(&child->creating, 1); /* until tr_create_done / tr_create_failed */
    uint64_t stk = stack_capture(&self->memo);
    uintptr_t pc = (uintptr_t)start + 1;
    uint64_t named = stack_from_pcs(&pc, 1);
    thread_register(child);
    struct sect s;
    sect_begin(&s, self);
    p_touch(&s);
    g_touch(&s);
    mark(&s, stk);
    mark(&s, named);
    EMIT(&s, GO_EV_GO_CREATE, child->g, named, stk);
    atomic_store_explicit(&child->gword, word_make(s.gen, GO_G_RUNNABLE, 0), memory_order_release);
    sect_end(&s);
    atomic_fetch_add(&gt_live, 1);
    self->depth--;
    errno = saved;
    return child;
}

void tr_create_done(struct gt_thread *child, pthread_t handle)
{
    pthread_t unset = 0; /* or the child stored it itself (the same value) */
    atomic_compare_exchange_strong(&child->handle, &unset, handle);
    atomic_store_explicit(&child->creating, 0, memory_order_release);
}

void tr_create_failed(struct gt_thread *child)
{
    atomic_store(&child->gword, word_make(atomic_load(&gt_gen), GT_G_DEAD, 0));
    child->exit_gen = atomic_load(&gt_gen);
    atomic_store_explicit(&child->exited, 1, memory_order_release);
    atomic_store_explicit(&child->creating, 0, memory_order_release);
    atomic_fetch_sub(&gt_live, 1);
}

GOTRACE_API_FN static void thread_end(struct gt_thread *t, int wake_joiners);

/* Starts created thread t on the calling thread. A signal can reach the thread before this
 * (glibc unblocks signals just before the trampoline runs), and a handler calling a hook then
 * adopts the thread (early): that record ends here, before t starts on the same M, without
 * waking t's joiners. */
GOTRACE_API_FN void tr_thread_start(struct gt_thread *t)
{
    int saved = errno;
    gt_internal = 1; /* no adoption by a handler from here on */
    atomic_signal_fence(memory_order_seq_cst);
    struct gt_thread *early = gt_self;
    t->depth = 1;
    atomic_signal_fence(memory_order_seq_cst);
    gt_self = t;
    atomic_signal_fence(memory_order_seq_cst);
    gt_internal = 0;
    atomic_store(&t->tid, (int64_t)gettid());
    t->handle = pthread_self();
    if (early && !atomic_load(&early->exited) && atomic_load(&early->p)) {
        early->depth = 1;
        thread_end(early, 0);
        thread_requeue(t); /* early, registered after t, wrote this M's first events */
    }
    struct gt_p *p = proc_get();
    if (!p) {
        flusher_fail("out of memory for proc state");
        errno = saved;
        return;
    }
    struct sect s;
    sect_begin(&s, t);
    first_events(&s, t, p, 0, 0, 0);
    sect_end(&s);
    cpuprof_thread_start(t);
    t->depth = 0;
    errno = saved;
}

/* t's last events (the caller set t->depth): back to Running if it was waiting, wakes its
 * joiners if asked, GoDestroy, ProcStop. */
GOTRACE_API_FN static void thread_end(struct gt_thread *t, int wake_joiners)
{
    cpuprof_thread_exit(t);
    if (t->wait.key) waitq_remove(t); /* cancelled or exiting inside a wait */
    uint64_t stk = wake_joiners ? stack_capture(&t->memo) : 0;
    if (wake_joiners && stack_enabled() && stack_depth(stk) == 0 && t->start) {
        /* returned from its start routine: name it */
        uintptr_t pc = (uintptr_t)t->start + 1;
        stk = stack_from_pcs(&pc, 1);
    }
    struct sect s;
    uint64_t seq0, ps;
    unsigned from;
    for (;;) {
        sect_begin(&s, t);
        int r = resume(&s, &seq0, &from, 0);
        sect_end(&s);
        if (r >= 0) break;
    }
    if (wake_joiners) waitq_wake((void *)(uintptr_t)t->handle, t, stk, INT_MAX);
    struct gt_p *p = atomic_load(&t->p);
    sect_begin(&s, t);
    p_touch(&s);
    if (atomic_load_explicit(&t->name_str, memory_order_relaxed)) {
        g_touch(&s);
        label_if_due(&s);
    }
    g_move(s.gen, t, SMASK(GO_G_RUNNING), GT_G_DEAD, INC0, &seq0, &from, sect_emit, &s, &s.ts);
    EMIT0(&s, GO_EV_GO_DESTROY);
    p_move(s.gen, p, SMASK(GO_P_RUNNING), GO_P_IDLE, 0, &ps, sect_emit, &s, &s.ts);
    EMIT0(&s, GO_EV_PROC_STOP);
    atomic_store_explicit(&t->p, NULL, memory_order_release);
    t->exit_gen = s.gen;
    size_t held = t->stream[s.gen & 1].len; /* its last buffer is as good as full now */
    sect_end(&s);
    flusher_note_full(s.gen, ((held + 4095) & ~(size_t)4095) + sizeof *t); /* and its record */
    proc_put(p);
    atomic_store_explicit(&t->exited, 1, memory_order_release);
    if (atomic_fetch_sub(&gt_live, 1) == 1) flusher_kick();
}

GOTRACE_API_FN void tr_thread_exit(struct gt_thread *t)
{
    if (t->depth || atomic_load(&t->exited) || !atomic_load(&t->p)) return;
    int saved = errno;
    t->depth = 1;
    thread_end(t, 1);
    errno = saved;
}

/* ---- waiting ---- */

GOTRACE_API_FN uint64_t tr_stack(void)
{
    int saved = errno;
    struct gt_thread *self = gt_self; /* the unwinder's own calls (read, mutexes) stay untraced */
    if (self) self->depth++;
    uint64_t stk = stack_capture(self ? &self->memo : NULL);
    if (self) self->depth--;
    errno = saved;
    return stk;
}

GOTRACE_API_FN int tr_block(struct gt_thread *self, enum gt_reason reason)
{
    if (g_state(self) != GO_G_RUNNING) return 0;
    int saved = errno;
    self->depth++;
    uint64_t stk = stack_capture(&self->memo);
    atomic_store_explicit(&self->block_stack, stk, memory_order_relaxed);
    struct sect s;
    uint64_t seq0;
    unsigned from;
    sect_begin(&s, self);
    p_touch(&s);
    int r = g_move(s.gen, self, SMASK(GO_G_RUNNING), GO_G_WAITING, INC0, &seq0, &from, sect_emit,
                   &s, &s.ts);
    if (r == MOVE_OK) {
        mark(&s, stk);
        mark_str(&s, reason_ids[reason]);
        EMIT(&s, GO_EV_GO_BLOCK, reason_ids[reason], stk);
    }
    sect_end(&s);
    self->depth--;
    errno = saved;
    return r == MOVE_OK;
}

GOTRACE_API_FN void tr_unblock(struct gt_thread *self)
{
    int saved = errno;
    self->depth++;
    struct sect s;
    uint64_t seq0;
    unsigned from;
    for (;;) {
        sect_begin(&s, self);
        p_touch(&s);
        int r = resume(&s, &seq0, &from, MOVE_RESTART);
        if (r > 0) running_fixup(&s, self->block_stack);
        sect_end(&s);
        if (r >= 0) break;
    }
    self->depth--;
    errno = saved;
}

int tr_wake(struct gt_thread *self, struct gt_thread *t, uint64_t stk)
{
    if (t == self || g_state(self) != GO_G_RUNNING || g_state(t) != GO_G_WAITING) return 0;
    int saved = errno;
    self->depth++;
    struct sect s;
    uint64_t seq0;
    unsigned from;
    int r;
    for (;;) {
        sect_begin(&s, self);
        r = g_move(s.gen, t, SMASK(GO_G_WAITING), GO_G_RUNNABLE, INC1, &seq0, &from, sect_emit, &s,
                   &s.ts);
        if (r == MOVE_OK) {
            mark(&s, stk);
            EMIT(&s, GO_EV_GO_UNBLOCK, t->g, seq0 + 1, stk);
        }
        sect_end(&s);
        if (r != MOVE_SKEW) break;
    }
    self->depth--;
    errno = saved;
    return r == MOVE_OK;
}

/* ---- system calls ---- */

GOTRACE_API_FN int tr_syscall_begin(struct gt_thread *self)
{
    if (g_state(self) != GO_G_RUNNING) return 0;
    int saved = errno;
    self->depth++;
    uint64_t stk = stack_capture(&self->memo);
    self->syscall_stack = stk;
    struct sect s;
    uint64_t seq0, ps;
    unsigned from;
    sect_begin(&s, self);
    struct gt_p *p = atomic_load_explicit(&self->p, memory_order_relaxed);
    p_move(s.gen, p, SMASK(GO_P_RUNNING), GO_P_SYSCALL, 1, &ps, sect_emit, &s, &s.ts);
    g_move(s.gen, self, SMASK(GO_G_RUNNING), GO_G_SYSCALL, INC0, &seq0, &from, sect_emit, &s,
           &s.ts);
    mark(&s, stk);
    EMIT(&s, GO_EV_GO_SYSCALL_BEGIN, ps + 1, stk);
    sect_end(&s);
    self->depth--;
    errno = saved;
    return 1;
}

GOTRACE_API_FN void tr_syscall_end(struct gt_thread *self)
{
    int saved = errno;
    self->depth++;
    struct sect s;
    uint64_t seq0;
    unsigned from;
    sect_begin(&s, self);
    if (resume(&s, &seq0, &from, MOVE_RESTART) > 0) running_fixup(&s, self->syscall_stack);
    sect_end(&s);
    self->depth--;
    errno = saved;
}

/* ---- annotations: user tasks, regions, logs, thread names (docs/annotations.md) ---- */

GOTRACE_API_FN int tr_user_event(struct gt_thread *self, uint8_t type, int n, const uint64_t *args,
                                 unsigned strs)
{
    if (g_state(self) != GO_G_RUNNING || n >= GT_EV_MAX_ARGS) return 0;
    int saved = errno;
    self->depth++;
    uint64_t a[GT_EV_MAX_ARGS];
    for (int i = 0; i < n; i++)
        a[i] = args[i];
    a[n] = stack_capture(&self->memo);
    struct sect s;
    sect_begin(&s, self);
    p_touch(&s);
    g_touch(&s);
    label_if_due(&s);
    for (int i = 0; i < n; i++)
        if (strs & (1u << i)) mark_str(&s, a[i]);
    mark(&s, a[n]);
    sect_emit(&s, type, n + 1, a);
    sect_end(&s);
    self->depth--;
    errno = saved;
    return 1;
}

GOTRACE_API_FN void tr_label(struct gt_thread *self)
{
    if (g_state(self) != GO_G_RUNNING) return;
    int saved = errno;
    self->depth++;
    struct sect s;
    sect_begin(&s, self);
    p_touch(&s);
    g_touch(&s);
    label_if_due(&s);
    sect_end(&s);
    self->depth--;
    errno = saved;
}
