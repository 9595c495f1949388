/* flusher.c: the flusher thread and the asked writes. See flusher.h for the invariants. */
#include "flusher.h"

#include "arena.h"
#include "clock.h"
#include "encode.h"
#include "flight.h"
#include "generation.h"
#include "hang.h"
#include "log.h"
#include "output.h"
#include "pages.h"
#include "plainlock.h"
#include "real.h"
#include "stack.h"
#include "state.h"
#include "symbolize.h"
#include "thread.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ASK_WAIT_MS 30000 /* how long a thread waits for a write it asked of the flusher */

static struct {
    uint32_t period_ms;
    atomic_int stopped;             /* the final write is done */
    atomic_int running;             /* a flusher thread exists (or is being started) */
    _Atomic uint32_t started;       /* the flusher thread runs its own code (flusher_main) */
    _Atomic uint32_t asked, served; /* writes asked of the flusher thread, and done */
    atomic_int final_asked;         /* the asked write is the last one */
    atomic_int dumps;               /* flight recorder dumps asked (flight.h) */
    atomic_int final_dump;          /* the final write dumps the flight recorder */
    int at_exit_dump;               /* GOTRACE_FLIGHT_AT_EXIT */
    atomic_int lazy;                /* no flusher thread yet: the program has one thread */
    sigset_t lone_mask;             /* that thread's signal mask when tracing began */
    uint64_t lazy_due, lazy_next;   /* lazy_poll: when the first switch is due; next look */
    int eager;                      /* a flusher thread from the start (flight, hang checks) */
} F GT_FORK_WORDS;

static __thread int on_flusher; /* this is the flusher thread */

/* True when every other thread of the process has ended (a main thread that called
 * pthread_exit stays listed as a zombie until the process exits). */
static int only_thread_left(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    int others = 0;
    pid_t me = gettid();
    for (struct dirent *e; (e = readdir(d)) && !others;) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == me) continue;
        char path[300], buf[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0) close(fd);
        if (n <= 0) continue;
        buf[n] = 0;
        const char *rp = strrchr(buf, ')'); /* the state follows the command name */
        if (!rp || rp[1] != ' ' || (rp[2] != 'Z' && rp[2] != 'X')) others = 1;
    }
    closedir(d);
    return !others;
}

/* Sleeps while *w == val, at most ms. The tracer's own futex calls bypass the syscall hook
 * (they are not the program's system calls). */
static void futex_wait_ms(_Atomic uint32_t *w, uint32_t val, uint32_t ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    REAL(syscall)(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *w)
{
    REAL(syscall)(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Blocks the signals another process may send while a write runs on a program's thread (the
 * last one at exit, say): a handler for one would find the output locked by the write it
 * interrupted, and its own last write (final_in_child) would wait for that lock in vain. A
 * parent that ends its children with SIGTERM as they exit (Python's multiprocessing pools)
 * sent it there. Faults, and what a write itself raises (SIGPIPE, SIGXFSZ), stay deliverable. */
static void block_sent_signals(sigset_t *old)
{
    static const int raised[] = {SIGSEGV, SIGBUS, SIGILL,  SIGFPE,
                                 SIGTRAP, SIGSYS, SIGPIPE, SIGXFSZ};
    sigset_t s;
    sigfillset(&s);
    for (size_t i = 0; i < sizeof raised / sizeof *raised; i++)
        sigdelset(&s, raised[i]);
    pthread_sigmask(SIG_BLOCK, &s, old);
}

/* One switch and write (the last one if final), on any thread; then the flight recorder's
 * dump if one was asked meanwhile (or at the end, if asked). A signal sent meanwhile is
 * handled after it. */
static void switch_locked(int final)
{
    sigset_t old;
    block_sent_signals(&old);
    output_lock();
    if (!atomic_load(&F.stopped)) {
        uint64_t at = generation_switch(0);
        int dump = atomic_exchange(&F.dumps, 0);
        if (dump && !final && flight_on()) (void)flight_dump();
        if (final) {
            /* The generation begun by that switch holds every live thread's status at this
             * moment, the process's end: written too, it ends the trace there (and closes the
             * threads' states there), not at the last event (issue 19), nor when the write
             * of the one before (symbolizing) ended. */
            generation_switch(at);
            if ((dump || atomic_load(&F.final_dump)) && flight_on()) (void)flight_dump();
            atomic_store(&F.stopped, 1);
            state_stop();
            arena_complete(); /* the trace is whole: nothing to recover */
        }
    }
    output_unlock();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* What the flusher thread does this round: 0 nothing, 1 a switch, 2 the final write. */
static int round_work(uint32_t asked, uint64_t next)
{
    int serve = asked != atomic_load(&F.served); /* threads wait for it (flusher_ask) */
    if (serve && atomic_load(&F.final_asked)) return 2;
    /* A size request counts only for the generation it was made in: threads that found the
     * old one full between its switch's start and its end ask nothing more. */
    int kicked = state_take_kick();
    return kicked || state_full_due() || serve || atomic_load(&F.dumps) || gt_now_ns() >= next;
}

/* A capture asked for libunwind (stack.h): loaded here, under the output lock, so that no fork
 * happens while the loader's lock is held. */
static void load_unwinder(void)
{
    if (!stack_unwinder_wanted()) return;
    output_lock();
    stack_unwinder_load();
    output_unlock();
}

static void *flusher_main(void *arg)
{
    (void)arg;
    gt_internal = 1;
    on_flusher = 1;
    plainlock_tracer_thread();
    atomic_store(&F.started, 1); /* its set-up (allocations) is over: see flusher_fork_prepare */
    futex_wake_all(&F.started);
    clock_allow_tsc(); /* threads: off their event paths, in parallel with them (clock.h) */
    uint64_t next = gt_now_ns() + (uint64_t)F.period_ms * 1000000ull;
    while (!atomic_load(&F.stopped)) {
        int idle = state_live() == 0;
        struct gt_live_head *head = arena_head(); /* (made after this thread, in a child) */
        if (head) head->flusher_tid = gettid();
        uint64_t now = gt_now_ns();
        if (now < next) {
            uint64_t left_ms = (next - now + 999999) / 1000000;
            state_wait(hang_wait_ms(idle && left_ms > 20 ? 20 : (uint32_t)left_ms));
        }
        state_take_wake(); /* what wakes it from now on is seen in the next round */
        uint32_t asked = atomic_load(&F.asked);
        if (asked == atomic_load(&F.served) && idle && only_thread_left()) {
            /* Every application thread has ended (main called pthread_exit): glibc would now
             * exit with status 0; this thread must not keep the process alive. */
            flusher_final();
            exit(0);
        }
        if (hang_round()) state_kick(); /* a deadlock was reported: write it now */
        load_unwinder();
        int work = round_work(asked, next);
        if (!work) continue;
        switch_locked(work == 2);
        next = gt_now_ns() + (uint64_t)F.period_ms * 1000000ull;
        if (asked != atomic_load(&F.served)) {
            atomic_store(&F.served, asked);
            futex_wake_all(&F.served);
        }
    }
    atomic_store(&F.running, 0);
    return NULL;
}

/* The flusher thread's stack, of glibc's default size, carved by arena_map above a guard page:
 * not a mapping of glibc's, which a program's mlockall(MCL_FUTURE) would lock (util/memlock.h).
 * glibc's own when there is no memory. */
static void own_stack(pthread_attr_t *attr)
{
    size_t size;
    if (pthread_attr_getstacksize(attr, &size) != 0) return;
    char *m = arena_map(GT_PAGE + size);
    if (m && mprotect(m, GT_PAGE, PROT_NONE) == 0) pthread_attr_setstack(attr, m + GT_PAGE, size);
}

/* The flusher thread, detached, with every signal blocked (the program's signals go to its
 * own threads). */
static int start_thread(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    own_stack(&attr);
    atomic_store(&F.running, 1);
    atomic_store(&F.started, 0);
    int r = REAL(pthread_create)(&th, &attr, flusher_main, NULL);
    if (r != 0) atomic_store(&F.running, 0);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        gt_log("cannot start the flusher thread: %s; running untraced", strerror(r));
        output_close();
        return -1;
    }
    return 0;
}

/* A program with one thread keeps it (no thread of the tracer's: glibc's single-thread paths,
 * fork without malloc's locks) until it starts one (flusher_need_thread) or its first
 * generation is due: then, at a buffer's filling, as long as its signal mask is the one it had
 * when tracing began (a handler runs with its signal blocked: starting a thread there could
 * interrupt malloc's own lock holder), the flusher thread starts. */
static void lazy_poll(void)
{
    if (!atomic_load_explicit(&F.lazy, memory_order_relaxed)) return;
    uint64_t now = gt_now_ns();
    if ((now < F.lazy_due && !state_full_due()) || now < F.lazy_next) return;
    F.lazy_next = now + 10000000ull; /* one look per 10 ms at most */
    sigset_t cur;
    if (pthread_sigmask(SIG_SETMASK, NULL, &cur) != 0) return;
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&cur, sig) != sigismember(&F.lone_mask, sig)) return;
    flusher_need_thread();
}

void flusher_need_thread(void)
{
    if (!atomic_exchange(&F.lazy, 0)) return;
    state_set_lazy_poll(NULL);
    gt_debug("the program runs more than one thread now: the flusher thread starts");
    if (start_thread() != 0) state_fail(NULL); /* its message said it */
}

int flusher_lazy(void)
{
    return atomic_load(&F.lazy);
}

/* The forked child's last write; it ends the child. */
static void child_write(void)
{
    switch_locked(1);
    _exit(state_failed() ? 1 : 0);
}

#define CHILD_STACK ((size_t)1 << 20)

/* Runs the child's write on a stack of its own: the signal may have come on a small one (an
 * alternate signal stack: Rust's is 8 KiB; the child's copy of it holds no more room). Not in a
 * sanitizer's build, whose runtime takes a switched stack for an error. */
__attribute__((noreturn)) static void child_write_on_own_stack(void)
{
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    char *stk = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stk != MAP_FAILED)
        __asm__ volatile("mov %0, %%rsp\n\tcall *%1\n\tud2"
                         :
                         : "r"(stk + CHILD_STACK), "r"(child_write)
                         : "memory");
#endif
    child_write();
    __builtin_unreachable();
}

/* The last write of a process without a flusher thread that is about to die (a fatal signal,
 * abort): done by a child forked without fork handlers (_Fork: async-signal-safe), so that
 * nothing the dying thread holds (malloc's lock, say) can stop it; waited for at most ms, then
 * killed. The parent writes nothing after it. 0 when written. */
static int final_in_child(uint32_t ms)
{
    pid_t pid = _Fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        gt_internal = 1;
        if (gt_self) gt_self->depth++; /* the child's own calls are the tracer's */
        child_write_on_own_stack();
    }
    int st = 0;
    for (uint32_t waited = 0;; waited++) {
        pid_t r = REAL(waitpid)(pid, &st, WNOHANG);
        if (r == pid) break;
        if (r < 0 || waited >= ms) {
            kill(pid, SIGKILL);
            REAL(waitpid)(pid, &st, 0);
            st = -1;
            break;
        }
        struct timespec one = {0, 1000000};
        REAL(nanosleep)(&one, NULL);
    }
    atomic_store(&F.stopped, 1);
    return st == 0 ? 0 : -1;
}

/* The flusher thread when the program needs it (see lazy_poll); 0, or start_thread's -1. */
static int start_lazily(void)
{
    if (F.eager) return start_thread();
    pthread_sigmask(SIG_SETMASK, NULL, &F.lone_mask);
    F.lazy_due = gt_now_ns() + (uint64_t)F.period_ms * 1000000ull;
    F.lazy_next = 0;
    atomic_store(&F.lazy, 1);
    state_set_lazy_poll(lazy_poll);
    return 0;
}

int flusher_start(const struct gt_config *cfg, const char *path, int lone)
{
    enc_process_name_keep(); /* before main: the name the program was started by */
    F.period_ms = cfg->period_ms;
    F.at_exit_dump = cfg->flight_at_exit;
    atomic_store(&F.final_dump, cfg->flight_at_exit);
    if (cfg->flight) { /* nothing written until a dump; generations at a tenth of the window */
        flight_init(cfg->flight_s, cfg->flight_mb, path);
        if (F.period_ms > cfg->flight_s * 100) F.period_ms = cfg->flight_s * 100;
    } else if (output_open(path) != 0) {
        return -1;
    }
    sym_set_encoding(enc_frames);
    if (sym_init() != 0) gt_log("symbolization unavailable; stacks will show addresses only");
    F.eager = cfg->flight || cfg->hang_ms;
    return lone ? start_lazily() : start_thread();
}

/* A write asked of the flusher thread, when there is one and this is not it, waiting at most
 * wait_ms. 1 when written, 0 when the caller must write itself, -1 when the flusher did not
 * answer in time. Async-signal-safe. */
static int flusher_ask(int last, uint32_t wait_ms)
{
    if (!atomic_load(&F.running) || on_flusher) return 0;
    if (last) atomic_store(&F.final_asked, 1);
    uint32_t mine = atomic_fetch_add(&F.asked, 1) + 1;
    state_kick();
    uint64_t end = gt_now_ns() + wait_ms * 1000000ull, now;
    for (;;) {
        uint32_t served = atomic_load(&F.served);
        if ((int32_t)(served - mine) >= 0) return 1;
        if (!atomic_load(&F.running)) return 0; /* it ended (a last write): nothing to do */
        if ((now = gt_now_ns()) >= end) break;
        futex_wait_ms(&F.served, served, (uint32_t)((end - now) / 1000000 + 1));
    }
    gt_log("the flusher did not write within %u ms; %s keeps the generations written so far",
           wait_ms, output_path());
    return -1;
}

void flusher_flush_now(void)
{
    if (flusher_ask(0, ASK_WAIT_MS) == 0) switch_locked(0);
}

void flusher_code_unloaded(void)
{
    generation_code_unloaded();
}

void flusher_final(void)
{
    sigset_t kept;
    block_sent_signals(&kept); /* for good: the process ends after this write, as it would have
                                  ended untraced before a signal sent now */
    if (flusher_ask(1, ASK_WAIT_MS) != 0) return;
    switch_locked(1);
    state_kick();
}

int flusher_final_within(uint32_t ms)
{
    atomic_store(&F.final_dump, 1); /* a fatal signal dumps the flight recorder */
    if (atomic_load(&F.stopped)) return 0;
    if (atomic_load(&F.lazy)) return final_in_child(ms);
    return flusher_ask(1, ms) == 1 ? 0 : -1;
}

void flusher_flight_request(void)
{
    atomic_store(&F.dumps, 1);
    state_kick();
}

int flusher_flight_dump(void)
{
    if (!flight_on()) return -1;
    atomic_store(&F.dumps, 1);
    if (flusher_ask(0, ASK_WAIT_MS) == 0) switch_locked(0);
    return 0;
}

/* A fork while the flusher thread is still being set up could copy an allocator lock its
 * set-up holds (glibc's malloc is safe across fork, a sanitizer's allocator is not), and the
 * child's own flusher thread would then never start: a process that forks again at once (a
 * shell) waits for its flusher first, at most 1 s. Then no write runs during the fork. */
int flusher_fork_prepare(int (*stop)(void))
{
    for (int i = 0; i < 100 && atomic_load(&F.running) && !atomic_load(&F.started) && !stop(); i++)
        futex_wait_ms(&F.started, 0, 10);
    return output_lock_unless(stop);
}

void flusher_fork_parent(void)
{
    output_unlock();
}

void flusher_fork_child(void)
{
    output_close(); /* the parent's; its lock stays with the parent's descriptor */
    output_unlock();
    atomic_store(&F.running, 0); /* the parent's flusher thread does not exist here */
    if (atomic_exchange(&F.lazy, 0)) state_set_lazy_poll(NULL);
}

int flusher_fork_settle(const char *path)
{
    if (!path) {
        atomic_store(&F.stopped, 1);
        state_stop();
        return 0;
    }
    if (flight_on())
        flight_fork_child(path);
    else
        output_open_lazily(path);
    atomic_store(&F.dumps, 0);
    atomic_store(&F.final_dump, F.at_exit_dump);
    generation_fork_child();
    atomic_store(&F.stopped, 0);
    atomic_store(&F.asked, 0);
    atomic_store(&F.served, 0);
    atomic_store(&F.final_asked, 0);
    return start_lazily(); /* the child has one thread */
}
