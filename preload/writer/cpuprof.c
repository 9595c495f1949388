/* cpuprof.c: CPU profile samples. See cpuprof.h for the invariants.
 * Each sampled thread owns a struct gt_prof: its timer (CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID
 * to itself) and one sample ring per generation parity, written only by its SIGPROF handler on
 * that thread, read and emptied only by the flusher once the generation is closed. Rings come
 * from arena_map, are listed on `all` (so stopping can delete every armed timer) and are recycled
 * through `free`, never unmapped, so no late reader touches unmapped memory. The lock (a
 * spinlock, never taken by the handler) guards both lists, timer creation and deletion, the
 * state and the program's view of the disposition. */
#include "cpuprof.h"

#include "arena.h"
#include "clock.h"
#include "log.h"
#include "real.h"
#include "section.h"
#include "stack.h"
#include "state.h"
#include "thread.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define RING_SAMPLES 1024 /* per thread and generation: 1000 Hz for a 1 s generation */

struct sample {
    uint64_t ts, p, stk;
};

struct ring {
    uint32_t n, dropped;
    struct sample s[RING_SAMPLES];
};

struct gt_prof {
    struct gt_prof *all_next, *free_next;
    timer_t timer;
    atomic_int armed; /* the timer exists: the handler samples */
    struct ring ring[2];
};

enum { OFF, ON, STOPPED };

static struct {
    atomic_int state;
    uint64_t period_ns;
    gt_spinlock lock;
    struct sigaction app; /* the disposition the program set, while ON */
    struct gt_prof *all, *free;
} P;

static int is_handler(const struct sigaction *a)
{
    return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN; /* same word as sa_sigaction */
}

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    struct gt_thread *t = gt_self;
    struct gt_prof *pr = t ? atomic_load_explicit(&t->prof, memory_order_relaxed) : NULL;
    if (!pr || si->si_code != SI_TIMER || !atomic_load_explicit(&pr->armed, memory_order_relaxed) ||
        t->depth || gt_internal)
        return; /* not ours, or the thread is inside the tracer (maybe inside the unwinder) */
    int saved = errno;
    t->depth++;
    const greg_t *regs = ((ucontext_t *)uc)->uc_mcontext.gregs;
    struct walk_regs at = {(uintptr_t)regs[REG_RIP], (uintptr_t)regs[REG_RSP],
                           (uintptr_t)regs[REG_RBP]};
    uint64_t stk = stack_capture_interrupted(&at);
    struct gt_p *p = atomic_load_explicit(&t->p, memory_order_relaxed);
    sect_enter(&t->seq); /* as the writer's sections (writer.h) */
    uint64_t gen = state_gen();
    struct ring *r = &pr->ring[gen & 1];
    if (r->n < RING_SAMPLES) {
        stack_mark(stk, gen);
        r->s[r->n++] = (struct sample){gt_now(), p ? p->id : GO_NO_THREAD, stk};
    } else {
        r->dropped++;
    }
    sect_leave(&t->seq);
    t->depth--;
    errno = saved;
}

void cpuprof_init(uint32_t hz)
{
    struct sigaction cur, sa;
    if (!hz || REAL(sigaction)(SIGPROF, NULL, &cur) != 0) return;
    if (is_handler(&cur)) {
        gt_log("the program handles SIGPROF itself: no CPU samples (GOTRACE_CPU_HZ=%u ignored)",
               hz);
        return;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigprof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (REAL(sigaction)(SIGPROF, &sa, NULL) != 0) {
        gt_log("cannot install the SIGPROF handler: %s; no CPU samples", strerror(errno));
        return;
    }
    P.app = cur;
    P.period_ns = 1000000000ull / hz;
    atomic_store(&P.state, ON);
}

int cpuprof_enabled(void)
{
    return atomic_load_explicit(&P.state, memory_order_relaxed) != OFF;
}

/* Under the lock. */
static struct gt_prof *prof_get(void)
{
    struct gt_prof *pr = P.free;
    if (pr) {
        P.free = pr->free_next;
    } else {
        pr = arena_map(sizeof *pr);
        if (!pr) return NULL;
        pr->all_next = P.all;
        P.all = pr;
    }
    pr->ring[0].n = pr->ring[0].dropped = pr->ring[1].n = pr->ring[1].dropped = 0;
    return pr;
}

void cpuprof_thread_start(struct gt_thread *t)
{
    if (atomic_load_explicit(&P.state, memory_order_relaxed) != ON) return;
    spin_lock(&P.lock);
    struct gt_prof *pr = atomic_load(&P.state) == ON ? prof_get() : NULL;
    if (pr) {
        struct sigevent sev;
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev.sigev_signo = SIGPROF;
        sev._sigev_un._tid = gettid();
        struct itimerspec its;
        its.it_interval.tv_sec = (time_t)(P.period_ns / 1000000000ull);
        its.it_interval.tv_nsec = (long)(P.period_ns % 1000000000ull);
        its.it_value = its.it_interval;
        if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &pr->timer) == 0) {
            atomic_store(&pr->armed, 1);
            atomic_store(&t->prof, pr);
            timer_settime(pr->timer, 0, &its, NULL);
        } else {
            gt_warn_once(warned_timer,
                         "cannot create a CPU-time timer (%s): some threads are not "
                         "sampled",
                         strerror(errno));
            pr->free_next = P.free;
            P.free = pr;
        }
    }
    spin_unlock(&P.lock);
}

void cpuprof_thread_exit(struct gt_thread *t)
{
    struct gt_prof *pr = atomic_load(&t->prof);
    if (!pr) return;
    spin_lock(&P.lock);
    if (atomic_exchange(&pr->armed, 0)) timer_delete(pr->timer);
    spin_unlock(&P.lock);
}

void cpuprof_drain(uint64_t gen, struct gt_thread *const *threads, size_t n, cpuprof_visit_fn fn,
                   void *ctx)
{
    for (size_t i = 0; i < n; i++) {
        struct gt_thread *t = threads[i];
        struct gt_prof *pr = atomic_load(&t->prof);
        if (!pr) continue;
        struct ring *r = &pr->ring[gen & 1];
        uint64_t m = (uint64_t)atomic_load(&t->tid);
        for (uint32_t k = 0; k < r->n; k++)
            fn(ctx, (const uint64_t[5]){r->s[k].ts, m, r->s[k].p, t->g, r->s[k].stk});
        if (r->dropped)
            gt_warn_once(warned_full,
                         "more than %d CPU samples per thread and generation: some "
                         "dropped (lower GOTRACE_CPU_HZ or GOTRACE_PERIOD_MS)",
                         RING_SAMPLES);
        r->n = r->dropped = 0;
        if (atomic_load(&t->exited) && t->exit_gen <= gen) { /* its last generation */
            atomic_store(&t->prof, NULL);
            spin_lock(&P.lock);
            pr->free_next = P.free;
            P.free = pr;
            spin_unlock(&P.lock);
        }
    }
}

/* Whether handler, as the kernel reports it, is the tracer's. */
static int is_ours(void (*handler)(int))
{
    return (void (*)(void))handler == (void (*)(void))on_sigprof; /* (any function type) */
}

/* Under the lock: sampling stops for good, every timer deleted first (the program's handler
 * must never see the tracer's signals); why, said once. */
static void stop_locked(const char *why)
{
    atomic_store(&P.state, STOPPED);
    for (struct gt_prof *pr = P.all; pr; pr = pr->all_next)
        if (atomic_exchange(&pr->armed, 0)) timer_delete(pr->timer);
    gt_log("%s: CPU sampling stops", why);
}

/* Under the lock, sampling on: the program's sigaction, with cur the disposition the kernel
 * holds. Returns its result. */
static int sigaction_locked(const struct sigaction *cur, const struct sigaction *act,
                            struct sigaction *old)
{
    struct sigaction prev = P.app;
    int r = 0;
    if (!is_ours(cur->sa_handler)) { /* replaced by a call no hook saw: the kernel's is the truth */
        stop_locked("the program set SIGPROF by a call the tracer does not see");
        return REAL(sigaction)(SIGPROF, act, old);
    }
    if (act && is_handler(act)) {
        stop_locked("the program installs its own SIGPROF handler");
        r = REAL(sigaction)(SIGPROF, act, NULL);
    } else if (act) {
        P.app = *act; /* SIG_DFL or SIG_IGN: recorded; the tracer's handler stays */
    }
    if (old && r == 0) *old = prev;
    return r;
}

int cpuprof_sigaction(const struct sigaction *act, struct sigaction *old, int *r)
{
    if (atomic_load(&P.state) != ON) return 0;
    spin_lock(&P.lock);
    struct sigaction cur;
    int mine = atomic_load(&P.state) == ON && REAL(sigaction)(SIGPROF, NULL, &cur) == 0;
    if (mine) *r = sigaction_locked(&cur, act, old);
    spin_unlock(&P.lock);
    return mine;
}

int cpuprof_sampling(void)
{
    return atomic_load_explicit(&P.state, memory_order_relaxed) == ON;
}

int cpuprof_view(void (*handler)(int), struct sigaction *view)
{
    if (!is_ours(handler)) return 0;
    *view = P.app;
    return 1;
}

void cpuprof_fork_child(void)
{
    atomic_store(&P.lock.v, 0); /* a parent thread may have held it */
    P.free = NULL;
    for (struct gt_prof *pr = P.all; pr; pr = pr->all_next) {
        atomic_store(&pr->armed, 0);
        pr->free_next = P.free;
        P.free = pr;
    }
}
