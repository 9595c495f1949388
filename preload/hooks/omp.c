/* omp.c: OpenMP's waits, through the entry points GCC's libgomp exports (issue 19): libgomp
 * waits with futex system calls of its own (inline `syscall` instructions), which no other hook
 * sees. Interposed: GOMP_barrier, GOMP_loop_end and GOMP_sections_end (the team barrier:
 * "sync: omp barrier"), GOMP_critical_start/end, GOMP_critical_name_start/end,
 * GOMP_atomic_start/end ("sync: omp critical"), omp_set_lock/omp_unset_lock,
 * omp_set_nest_lock/omp_unset_nest_lock ("sync: omp lock"). Only programs that call them run
 * them: the real functions are looked up (dlsym RTLD_NEXT) at a hook's first call, when libgomp
 * (or LLVM's libomp, which exports the same names) is loaded. What stays invisible: workers idle
 * between parallel regions and the implicit barrier at a region's end (inside libgomp, no
 * exported call), GOMP_taskwait (the waiting thread runs other tasks meanwhile). LLVM's libomp
 * (clang -fopenmp): __kmpc_barrier, __kmpc_critical/__kmpc_end_critical too. docs/blocking.md.
 * Invariants: each hook calls its real function exactly once, with the same arguments and
 * result; a lock is tried first and only a try that fails is a wait; an untraced thread or one
 * inside the tracer only forwards. Barriers: the thread that finds all the others of its team
 * queued is the last to arrive: it wakes them with its stack and does not block. Teams are told
 * apart by nesting level only (omp_get_level), so concurrent teams at one level of nested
 * parallelism can mix their counts (waiters then unblock themselves, unattributed). Critical
 * sections have no try: a section is a wait when the hooks' own count says it is held (taken
 * after the real start returns, given back before the real end), so a wait that begins while
 * the holder is between the real call and the count is missed. A section's or lock's release
 * while threads wait on it (queued on its key) writes a release record (tr_released) before the
 * real release: the decoder blames their waits on the releaser (their holder); the releases of
 * a section no thread waits on cost one lock-free look. */
#include "hooks.h"

#include "log.h"
#include "real.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* The next definition of name (libgomp's, libomp's), looked up once: in the global scope
 * after this library, else in an OpenMP runtime loaded with RTLD_LOCAL (a Python extension's
 * libgomp), which RTLD_NEXT does not search. */
static void *next_fn(void *_Atomic *slot, const char *name)
{
    static const char *const runtimes[] = {"libgomp.so.1", "libomp.so.5", "libomp.so",
                                           "libiomp5.so"};
    void *f = atomic_load_explicit(slot, memory_order_acquire);
    for (size_t i = 0; !f && i <= sizeof runtimes / sizeof *runtimes; i++) {
        void *h = i ? dlopen(runtimes[i - 1], RTLD_LAZY | RTLD_NOLOAD) : NULL;
        f = i ? (h ? dlsym(h, name) : NULL) : dlsym(RTLD_NEXT, name);
        if (h) REAL(dlclose)(h); /* NOLOAD took a reference: its user keeps it loaded */
    }
    if (!f) {
        gt_log("cannot find the OpenMP runtime's %s", name);
        abort(); /* what the program's own call would have done: it could not link */
    }
    atomic_store_explicit(slot, f, memory_order_release);
    return f;
}
#define NEXT(name, type)                                                                           \
    __extension__({                                                                                \
        static void *_Atomic slot_;                                                                \
        (type) next_fn(&slot_, #name);                                                             \
    })
typedef void (*void_fn)(void);
typedef void (*ptr_fn)(void *);
typedef int (*int_ptr_fn)(void *);
typedef int (*int_fn)(void);

/* Keeps the hook's frame around the call: no tail call. */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

/* call as a wait queued on key, whose reason names no object (the key is the tracer's own: it
 * only matches the releases recorded at it). */
#define WAIT_UNNAMED(self, key, reason, call)                                                      \
    WAIT_WITH(self, tr_block_on((self), (reason) | GT_R_UNNAMED, (key), 0),                        \
              waitq_add_unnumbered((key), (self)), waitq_remove(self), call)

/* ---- barriers ---- */

static char team_key[64]; /* one wait-queue key per nesting level */

/* The team barrier hook of name, whose real call is call(real_) (real_: its next definition, of
 * type type). */
#define TEAM_BARRIER_CALL(name, type, call)                                                        \
    do {                                                                                           \
        type real_ = NEXT(name, type);                                                             \
        struct gt_thread *self_ = tr_current();                                                    \
        int others_ = self_ ? NEXT(omp_get_num_threads, int_fn)() - 1 : 0;                         \
        if (others_ < 1) {                                                                         \
            call;                                                                                  \
            KEEP_FRAME();                                                                          \
            return;                                                                                \
        }                                                                                          \
        void *key_ = &team_key[NEXT(omp_get_level, int_fn)() & 63];                                \
        (void)WAIT_WITH(self_, waitq_barrier(self_, key_, others_, GT_R_OMP_BARRIER, 0), (void)0,  \
                        waitq_remove(self_), (call, 0));                                           \
        KEEP_FRAME();                                                                              \
    } while (0)
#define TEAM_BARRIER(name) TEAM_BARRIER_CALL(name, void_fn, real_())

EXPORT void GOMP_barrier(void)
{
    TEAM_BARRIER(GOMP_barrier);
}

EXPORT void GOMP_loop_end(void)
{
    TEAM_BARRIER(GOMP_loop_end);
}

EXPORT void GOMP_sections_end(void)
{
    TEAM_BARRIER(GOMP_sections_end);
}

/* LLVM's libomp (clang -fopenmp): the same barrier, with its source location and thread id. */
typedef void (*kmpc_fn)(void *, int);
EXPORT void __kmpc_barrier(void *loc, int gtid)
{
    TEAM_BARRIER_CALL(__kmpc_barrier, kmpc_fn, real_(loc, gtid));
}

/* ---- critical sections and locks ---- */

/* Holders per key hash (a count: keys that share a slot only make a free section look held,
 * i.e. its entry a short wait). */
static atomic_int held[256];

static atomic_int *held_of(void *key)
{
    return &held[((uintptr_t)key >> 3) * 0x9e3779b97f4a7c15ull >> 56];
}

/* How a section's waits are told (SECTION_ENTER): named after key (the program's symbol), as
 * the plain reason with key recorded for the releases (libgomp's unnamed section: its key is
 * the tracer's own), or the plain reason alone (libgomp's atomic section, which shares the
 * unnamed section's reason: its releases must not count as that section's). */
enum { SEC_NAMED, SEC_UNNAMED, SEC_PLAIN };

/* Enter with real(arg) (a section without a try): a wait when the hooks' count says held. */
#define SECTION_ENTER(key, reason, how, call)                                                      \
    do {                                                                                           \
        struct gt_thread *self_ =                                                                  \
            atomic_load_explicit(held_of(key), memory_order_relaxed) ? tr_current() : NULL;        \
        if (!self_)                                                                                \
            call;                                                                                  \
        else if ((how) == SEC_NAMED)                                                               \
            (void)WAIT_AS(self_, (key), (reason), (call, 0));                                      \
        else if ((how) == SEC_UNNAMED)                                                             \
            (void)WAIT_UNNAMED(self_, (key), (reason), (call, 0));                                 \
        else                                                                                       \
            (void)WAIT_WITH(self_, tr_block(self_, (reason)), waitq_add_unnumbered((key), self_),  \
                            waitq_remove(self_), (call, 0));                                       \
        atomic_fetch_add_explicit(held_of(key), 1, memory_order_relaxed);                          \
        KEEP_FRAME();                                                                              \
    } while (0)

/* call, a release of key: with threads queued on key, a release record (if recorded: the
 * decoder's blame of their waits on this thread) and the sole waiter woken by this thread, just
 * before it (the runtimes' waiters spin before they sleep: woken after it, one would often get
 * there first). */
#define RELEASE_AS(key, recorded, call)                                                            \
    do {                                                                                           \
        struct gt_thread *self_ = waitq_queued(key) ? tr_current() : NULL;                         \
        if (self_) {                                                                               \
            uint64_t stk_ = tr_stack();                                                            \
            if (recorded) tr_released(self_, (key), stk_);                                         \
            waitq_wake_if((key), self_, stk_, 1);                                                  \
        }                                                                                          \
        call;                                                                                      \
        KEEP_FRAME();                                                                              \
    } while (0)
#define WAKING_RELEASE(key, call) RELEASE_AS(key, 1, call)

#define SECTION_LEAVE(key, how, call)                                                              \
    do {                                                                                           \
        atomic_fetch_sub_explicit(held_of(key), 1, memory_order_relaxed);                          \
        RELEASE_AS(key, (how) != SEC_PLAIN, call);                                                 \
    } while (0)

static char unnamed_critical, atomic_section; /* the keys of libgomp's two global locks */

EXPORT void GOMP_critical_start(void)
{
    SECTION_ENTER(&unnamed_critical, GT_R_OMP_CRITICAL, SEC_UNNAMED,
                  NEXT(GOMP_critical_start, void_fn)());
}

EXPORT void GOMP_critical_end(void)
{
    SECTION_LEAVE(&unnamed_critical, SEC_UNNAMED, NEXT(GOMP_critical_end, void_fn)());
}

/* `critical(name)`: pptr is the program's .gomp_critical_user_<name> (named by that symbol). */
EXPORT void GOMP_critical_name_start(void **pptr)
{
    SECTION_ENTER(pptr, GT_R_OMP_CRITICAL, SEC_NAMED, NEXT(GOMP_critical_name_start, ptr_fn)(pptr));
}

EXPORT void GOMP_critical_name_end(void **pptr)
{
    SECTION_LEAVE(pptr, SEC_NAMED, NEXT(GOMP_critical_name_end, ptr_fn)(pptr));
}

/* libomp's critical sections: crit is the program's .gomp_critical_user_<name>.var. */
typedef void (*kmpc_crit_fn)(void *, int, void *);
EXPORT void __kmpc_critical(void *loc, int gtid, void *crit)
{
    SECTION_ENTER(crit, GT_R_OMP_CRITICAL, SEC_NAMED,
                  NEXT(__kmpc_critical, kmpc_crit_fn)(loc, gtid, crit));
}

EXPORT void __kmpc_end_critical(void *loc, int gtid, void *crit)
{
    SECTION_LEAVE(crit, SEC_NAMED, NEXT(__kmpc_end_critical, kmpc_crit_fn)(loc, gtid, crit));
}

EXPORT void GOMP_atomic_start(void)
{
    SECTION_ENTER(&atomic_section, GT_R_OMP_CRITICAL, SEC_PLAIN,
                  NEXT(GOMP_atomic_start, void_fn)());
}

EXPORT void GOMP_atomic_end(void)
{
    SECTION_LEAVE(&atomic_section, SEC_PLAIN, NEXT(GOMP_atomic_end, void_fn)());
}

/* omp_lock_t and omp_nest_lock_t: tried first (omp_test_lock, omp_test_nest_lock). */
#define LOCK_HOOK(lock, test, set)                                                                 \
    do {                                                                                           \
        struct gt_thread *self_ = tr_current();                                                    \
        if (self_ && NEXT(test, int_ptr_fn)(lock)) return;                                         \
        if (!self_)                                                                                \
            NEXT(set, ptr_fn)(lock);                                                               \
        else                                                                                       \
            (void)WAIT_AS(self_, (lock), GT_R_OMP_LOCK, (NEXT(set, ptr_fn)(lock), 0));             \
        KEEP_FRAME();                                                                              \
    } while (0)

EXPORT void omp_set_lock(void *lock)
{
    LOCK_HOOK(lock, omp_test_lock, omp_set_lock);
}

EXPORT void omp_set_nest_lock(void *lock)
{
    LOCK_HOOK(lock, omp_test_nest_lock, omp_set_nest_lock);
}

EXPORT void omp_unset_lock(void *lock)
{
    WAKING_RELEASE(lock, NEXT(omp_unset_lock, ptr_fn)(lock));
}

EXPORT void omp_unset_nest_lock(void *lock)
{
    WAKING_RELEASE(lock, NEXT(omp_unset_nest_lock, ptr_fn)(lock));
}
