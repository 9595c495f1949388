/* thread.h: per-thread tracer state, goroutine (G) and proc (P) state words, the registry.
 *
 * Every traced thread is a goroutine with its own P, held from thread start to exit. A G's or
 * P's trace state lives in one atomic word {claim_gen:32 | state:4 | seq:28}:
 *  - state is the Go status (enum go_gstatus / go_pstatus; GT_G_NOTEXIST and GT_G_DEAD too);
 *  - seq is the last sequence number written for it in generation claim_gen;
 *  - claim_gen is the generation for which its status has been written. Whoever first changes
 *    or describes the word in generation N (the owner, a waker, or the flusher at the switch)
 *    moves claim_gen to N by CAS and writes the status that the word held before the change,
 *    with seq restarting at 0. So every G/P gets exactly one status per generation before any
 *    event of that generation concerns it, and exactly one writer wins every transition.
 * Only the owner thread changes its P word and its own G word, except Waiting -> Runnable,
 * which a waker may do. A section that finds claim_gen above its own generation restarts in
 * the newer generation.
 *
 * A created thread's record stays its own until its creator is done with it (creating): the
 * thread may run and exit before pthread_create returns, and its record must not be reused
 * by another thread while the creator still writes it.
 *
 * The registry is a list in registration order (the order the flusher writes threads, so a dead
 * thread's batches precede those of a later thread reusing its TID). Threads are added under a
 * spinlock; only the flusher removes them, after their last generation is written. */
#ifndef GOTRACE_THREAD_H
#define GOTRACE_THREAD_H
#include "buf.h"
#include "go_wire.h"
#include "regions.h"
#include "spinlock.h"
#include "stack.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

enum { GT_G_NOTEXIST = 0, GT_G_DEAD = 5 };

/* The calling thread's record, or NULL (not traced yet, or never). Set only by the tracer API
 * when it adopts or starts the thread (api/tracer.c), cleared in a forked child (lifecycle). */
extern __thread struct gt_thread *gt_self __attribute__((tls_model("initial-exec")));
/* Non-zero while the calling thread works for the tracer outside any record (set-up, the
 * flusher thread, a flush asked by the program, a fork in progress): it emits nothing, and
 * what it opens is the tracer's (fds.h). Balanced by whoever raises it, except on the flusher
 * thread and in a child that runs untraced, where it stays set. */
extern __thread int gt_internal __attribute__((tls_model("initial-exec")));

static inline uint64_t word_make(uint64_t gen, unsigned state, uint64_t seq)
{
    return (gen << 32) | ((uint64_t)state << 28) | (seq & 0x0fffffff);
}
static inline uint64_t word_gen(uint64_t w)
{
    return w >> 32;
}
static inline unsigned word_state(uint64_t w)
{
    return (unsigned)(w >> 28) & 0xf;
}
static inline uint64_t word_seq(uint64_t w)
{
    return w & 0x0fffffff;
}

/* One cache line each: the owner moves its P's word at every system call and wait, and Ps
 * sharing a line made threads' calls contend for it (false sharing). */
struct gt_p {
    _Atomic uint64_t word;
    uint64_t id;
    struct gt_p *next_free;
} __attribute__((aligned(64)));

/* A place a thread waits: key is the primitive's address, added the bucket's number of this
 * add when numbered (see waitq.h). */
struct gt_wait {
    void *key;
    struct gt_wait *prev, *next;
    unsigned added;
    unsigned numbered;
};

#define GT_PREFIX_MAX 160

struct gt_thread {
    /* The first cache line is what a waker touches: it reads the waiter's queue node and G
     * word, moves the word (CAS) and dequeues the node, and the waiter then reads its node and
     * enters a section; one line, so a cross-CPU wake-up moves one line each way, not two. */
    _Atomic uint32_t seq; /* seqlock: odd while the owner writes events */
    uint32_t depth;       /* owner only: >0 while inside the tracer (re-entrancy guard) */
    uint64_t g;           /* goroutine id */
    _Atomic uint64_t gword;
    _Atomic uint64_t block_stack; /* stack of the current wait: written by the owner before it
                                     is Waiting, read by the flusher's status claim, which may
                                     overlap the owner's next wait (read it once, relaxed) */
    struct gt_wait wait;          /* where this thread waits (waitq.c) */
    /* Then what the owner's wait or syscall touches, in as few lines as possible: a thread that
     * just woke up finds them cold. */
    _Atomic int64_t tid;        /* M: kernel TID, 0 until the thread runs */
    struct gt_p *_Atomic p;     /* owned P, NULL before start and after exit (owner writes) */
    uint64_t syscall_stack;     /* stack of the current syscall */
    uint64_t syscall_ts;        /* the time of its GoSyscallBegin */
    _Atomic int32_t read_fd;    /* 1 + the descriptor its current system call reads (a read,
                                   readv or recv hook, or its block around a pipe read that
                                   waits: tr_syscall_reads), 0 none: the hang check's pipe
                                   cycles (flush/hang.c) */
    _Atomic uint64_t read_since; /* with the hang check on, when such a block began */
    int *errp;                  /* owner only: its errno (no call to find it: tracer.c acquire) */
    uint64_t p_claimed;         /* owner only: a generation its P's status is claimed for
                                   (tracer.c p_touch: then the P's word need not be read) */
    struct gt_stream stream[2]; /* events, by generation parity (owner writes) */
    _Atomic int exited;         /* set after the thread's last event */
    _Atomic uint64_t name_str;  /* string id of the thread's name, 0 = unnamed (set by anyone) */
    uint64_t label_str;         /* owner only: name written by the last GoLabel, and its */
    uint64_t label_gen;         /* generation */
    struct {                    /* owner only: stacks and strings it marked in generation */
        uint64_t gen;           /* gen (tracer.c marked_lately), so that the tables' entries, */
        uint64_t key[4];        /* cold in a thread that just woke up, are not read again */
        unsigned next;
    } marked;
    struct stack_thread stk; /* its first stacks, its memo (owner only), which is private
                                memory that stays with the record (thread.c): stack.h */
    /* The rest. */
    struct { /* statuses the flusher wrote at a switch (flusher only) */
        uint8_t bytes[GT_PREFIX_MAX];
        uint32_t len;
        uint64_t ts;
    } prefix[2];
    uint64_t exit_gen;        /* generation of the last event */
    _Atomic pthread_t handle; /* pthread_self() of the thread: set by the thread when it starts
                                 and, for a created one, by its creator (same value) */
    atomic_int creating;      /* its creator may still write it (handle): never reaped */
    void *(*start)(void *);   /* start routine and argument, for the trampoline */
    void *arg;
    struct gt_thread *next; /* registry */
    /* Annotations (annotations.c, the annotations section of tracer.c). */
    struct gt_regions regions;    /* owner only: the open user regions this thread wrote */
    struct gt_prof *_Atomic prof; /* CPU sampling state (cpuprof.c), NULL when not sampled */
    /* The current sync wait, for the hang check (api/tracer.c tr_block_on writes it before the
     * thread is Waiting and clears it when it runs again; flush/hang.c reads it): its reason
     * string (0: none), the holder's TID (0: unknown; minus the goroutine id of a joined thread
     * not started yet), since when (gt_now), what it is (hang.h HANG_*: the object's kind, and
     * whether the call has no timeout). */
    _Atomic uint64_t wait_obj;
    _Atomic int64_t wait_holder;
    _Atomic uint64_t wait_since;
    _Atomic uint32_t wait_kind;
    uint64_t hang_seen; /* flusher only: wait_since of the wait last reported; UINT64_MAX once
                           the check noted the thread's exit */
    uint64_t hang_io_since, hang_io_next, hang_io_gap; /* flusher only: the read (its
                           syscall_ts) the pipe check last looked at, when it looks again, and
                           the gap that doubles after each look without a verdict */
} __attribute__((aligned(64)));

/* What an ended thread's record keeps until it is reaped (GOTRACE_FLUSH_MB counts it): the
 * record and, if its memo is in use, the memo's first page (a thread with a few stacks uses no
 * more). */
static inline size_t thread_held(const struct gt_thread *t)
{
    return sizeof *t + (t->stk.memo ? 4096 : 0);
}

/* Allocates a thread with a new goroutine id, every field zero but the arrays read only below a
 * count that is (the prefixes' bytes, the open regions: thread.c) and its memo (stk.own, the
 * record's; in use and empty if the record's last thread used it); NULL on memory exhaustion. */
struct gt_thread *thread_alloc(void);
/* The calling thread's stack state (gt_self's), or NULL: stack_set_self's. */
struct stack_thread *thread_self_stacks(void);
void thread_register(struct gt_thread *t);
/* Records the thread record's layout in the live file's head (common/gt_live.h). */
void thread_publish_layout(void);
/* Moves registered thread t to the end of the registry: its batches are then written after
 * those of every thread registered before now (another record of its M that wrote first). */
void thread_requeue(struct gt_thread *t);
/* Walks the registry; the callback must not register threads. Holds the registry lock. */
void thread_foreach(void (*fn)(struct gt_thread *t, void *ctx), void *ctx);
/* The registered, not exited thread whose pthread_t is th, or NULL. */
struct gt_thread *thread_find(pthread_t th);
/* t is the record of the thread th (its creator knows it first): thread_find(th) finds it
 * without walking the registry. */
void thread_hint(struct gt_thread *t, pthread_t th);
/* Flusher only: unlinks threads that exited in a generation <= gen, unless their creator is
 * still creating them, and frees them. */
void thread_reap(uint64_t gen);
/* In a forked child, single-threaded: it forgets every registered thread (they do not exist
 * there; their memory stays, unused), and the registry and proc locks are free (a parent thread
 * may have held them at the fork). */
void thread_fork_child(void);
/* Records thread_alloc gave since start (or this process's fork): 1 in a process that never had
 * a second traced thread. Takes no lock (a record being made at a fork is not counted yet in the
 * child, and that thread has not run). */
int thread_records_made(void);

struct gt_p *proc_get(void); /* a P from the free list or a new one (state Idle) */
void proc_put(struct gt_p *p);
#endif
