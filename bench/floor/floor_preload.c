/* floor_preload.c: the least a tracer must do around a condvar wait, and around a system call
 * that may block, as an interposer (build/bench/libfloor.so), to measure that floor inside the
 * ping-pong and pipe workloads where bench_floor.c measures its parts alone. Per wait, what
 * docs/cost.md ("What an event pays") lists and nothing else: the waiter marks its G word
 * Waiting, reads the clock (RDTSC), writes its GoBlock and queues itself on its bucket with one
 * CAS; the waker locks the bucket (one CAS), takes the waiter, moves its G word to Runnable (one
 * CAS), reads the clock (RDTSCP) and writes a GoUnblock; the woken waiter reads the clock
 * (RDTSCP), marks itself Running and writes its GoStart and a status event. Per read or write
 * (the pipe's calls): the caller marks its G word Syscall, reads the clock (RDTSC) and writes a
 * GoSyscallBegin; after the call it reads the clock again, marks itself Running and writes a
 * GoSyscallEnd and a status event (docs/go-trace-format.md 6.5). Events are varint-encoded into
 * a per-thread ring that is never written out. No stacks, no generations, no seqlock, no output.
 * Invariants: a benchmark, not a tracer: correct for waits ended by a signal or a broadcast and
 * for spurious wake-ups (a waiter not taken leaves the queue itself), nothing more; a read or
 * write keeps its result and errno; x86-64. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define BUCKETS 64
#define RING (64u << 10)
#define LOCKED ((uintptr_t)1)

enum { G_RUNNING, G_WAITING, G_RUNNABLE, G_SYSCALL };

struct rec { /* a thread's first line: its queue link and G word, as in buffers/thread.h */
    _Alignas(64) _Atomic uint64_t gword; /* seq << 2 | state */
    struct rec *next;
    _Atomic int queued;
    uint64_t g, last_ts;
    uint32_t len;
    uint8_t ring[RING];
};

struct bucket {
    _Alignas(64) _Atomic uintptr_t word; /* the head (struct rec *) | LOCKED */
};

static struct bucket buckets[BUCKETS];
static _Atomic uint64_t next_g = 1;
static __thread struct rec *self;
static int (*real_wait)(pthread_cond_t *, pthread_mutex_t *);
static int (*real_signal)(pthread_cond_t *);
static int (*real_broadcast)(pthread_cond_t *);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);

__attribute__((constructor)) static void resolve(void)
{
    real_wait = (int (*)(pthread_cond_t *, pthread_mutex_t *))dlvsym(RTLD_NEXT, "pthread_cond_wait",
                                                                     "GLIBC_2.3.2");
    real_signal =
        (int (*)(pthread_cond_t *))dlvsym(RTLD_NEXT, "pthread_cond_signal", "GLIBC_2.3.2");
    real_broadcast =
        (int (*)(pthread_cond_t *))dlvsym(RTLD_NEXT, "pthread_cond_broadcast", "GLIBC_2.3.2");
    real_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (!real_wait || !real_signal || !real_broadcast || !real_read || !real_write) abort();
}

static struct rec *me(void)
{
    if (!self && posix_memalign((void **)&self, 64, sizeof *self) == 0) {
        self->gword = G_RUNNING;
        self->next = NULL;
        self->queued = 0;
        self->g = atomic_fetch_add(&next_g, 1);
        self->last_ts = 0;
        self->len = 0;
    }
    return self;
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

static uint64_t rdtscp(void)
{
    uint32_t lo, hi, aux;
    __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
    return (uint64_t)hi << 32 | lo;
}

static uint8_t *put(uint8_t *p, uint64_t v)
{
    for (; v >= 0x80; v >>= 7)
        *p++ = (uint8_t)(v | 0x80);
    *p++ = (uint8_t)v;
    return p;
}

/* One event of type with n (0 or 2) arguments, timed ts, into r's ring (wrapping, never read). */
static void emit(struct rec *r, uint8_t type, uint64_t ts, int n, uint64_t a, uint64_t b)
{
    if (r->len > RING - 32) r->len = 0;
    uint8_t *p = r->ring + r->len;
    *p++ = type;
    p = put(p, ts - r->last_ts);
    if (n) p = put(put(p, a), b);
    r->last_ts = ts;
    r->len = (uint32_t)(p - r->ring);
}

static struct bucket *bucket_of(const void *c)
{
    return &buckets[((uintptr_t)c >> 6) % BUCKETS];
}

static uintptr_t lock(struct bucket *b)
{
    uintptr_t w = atomic_load_explicit(&b->word, memory_order_relaxed);
    for (;;) {
        if (w & LOCKED)
            w = atomic_load_explicit(&b->word, memory_order_relaxed);
        else if (atomic_compare_exchange_weak(&b->word, &w, w | LOCKED))
            return w;
    }
}

/* Takes r off b's queue if it is still there (a wait that ended without a taker). */
static void leave(struct bucket *b, struct rec *r)
{
    struct rec *head = (struct rec *)lock(b), **pp = &head;
    while (*pp && *pp != r)
        pp = &(*pp)->next;
    if (*pp) *pp = r->next;
    atomic_store(&b->word, (uintptr_t)head);
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    struct rec *r = me();
    if (!r) return real_wait(c, m);
    struct bucket *b = bucket_of(c);
    uint64_t g = atomic_load_explicit(&r->gword, memory_order_relaxed);
    atomic_store_explicit(&r->gword, (g & ~3ull) | G_WAITING, memory_order_release);
    emit(r, 1, rdtsc(), 2, 7, 1); /* GoBlock reason stack */
    atomic_store_explicit(&r->queued, 1, memory_order_relaxed);
    uintptr_t w = atomic_load_explicit(&b->word, memory_order_relaxed);
    do
        r->next = (struct rec *)(w & ~LOCKED);
    while ((w & LOCKED) || !atomic_compare_exchange_weak(&b->word, &w, (uintptr_t)r));
    int rc = real_wait(c, m);
    uint64_t ts = rdtscp();
    if (atomic_load_explicit(&r->queued, memory_order_acquire)) leave(b, r);
    g = atomic_load_explicit(&r->gword, memory_order_acquire);
    atomic_store_explicit(&r->gword, (g & ~3ull) | G_RUNNING, memory_order_relaxed);
    emit(r, 2, ts, 2, r->g, g >> 2); /* GoStart g seq */
    emit(r, 3, ts, 2, r->g, 2);      /* the status fix-up */
    return rc;
}

/* Wakes n waiters of c's bucket (a benchmark: the bucket's waiters stand for c's). */
static void wake(pthread_cond_t *c, int n)
{
    struct rec *r = me();
    struct bucket *b = bucket_of(c);
    if (!r || !atomic_load_explicit(&b->word, memory_order_relaxed)) return;
    struct rec *head = (struct rec *)lock(b);
    for (; head && n > 0; n--) {
        struct rec *t = head;
        head = t->next;
        atomic_store_explicit(&t->queued, 0, memory_order_release);
        uint64_t g = atomic_load_explicit(&t->gword, memory_order_relaxed), to;
        do
            to = ((g >> 2) + 1) << 2 | G_RUNNABLE;
        while ((g & 3) == G_WAITING && !atomic_compare_exchange_weak(&t->gword, &g, to));
        emit(r, 4, rdtscp(), 2, t->g, to >> 2); /* GoUnblock g seq */
    }
    atomic_store(&b->word, (uintptr_t)head);
}

int pthread_cond_signal(pthread_cond_t *c)
{
    wake(c, 1);
    return real_signal(c);
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
    wake(c, 1 << 30);
    return real_broadcast(c);
}

/* A system call that may block: GoSyscallBegin before it, GoSyscallEnd and the status fix-up
 * after it, each run timed by one RDTSC (the thread's own moves: no other thread's to order). */
static void syscall_begin(struct rec *r)
{
    uint64_t g = atomic_load_explicit(&r->gword, memory_order_relaxed);
    atomic_store_explicit(&r->gword, (g & ~3ull) | G_SYSCALL, memory_order_release);
    emit(r, 5, rdtsc(), 2, (g >> 2) + 1, 1); /* GoSyscallBegin seq stack */
}

static void syscall_end(struct rec *r)
{
    uint64_t ts = rdtsc(), g = atomic_load_explicit(&r->gword, memory_order_relaxed);
    atomic_store_explicit(&r->gword, (g & ~3ull) | G_RUNNING, memory_order_release);
    emit(r, 6, ts, 0, 0, 0);    /* GoSyscallEnd */
    emit(r, 3, ts, 2, r->g, 1); /* the status fix-up, with its stack */
}

ssize_t read(int fd, void *buf, size_t n)
{
    struct rec *r = me();
    if (r) syscall_begin(r);
    ssize_t rc = real_read(fd, buf, n);
    if (r) syscall_end(r);
    return rc;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    struct rec *r = me();
    if (r) syscall_begin(r);
    ssize_t rc = real_write(fd, buf, n);
    if (r) syscall_end(r);
    return rc;
}
