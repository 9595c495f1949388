/* walk.c: the fast stack walker and its rule cache. See walk.h for the invariants.
 * Cache: an open-addressing table of slots {key, val}; key is the code address, val packs the
 * rule with the address's low 32 bits as a tag, so a reader that sees a key whose val is not
 * (yet) its own treats the slot as a miss: inserts need no ordering beyond single-word
 * atomicity, and a slot is claimed by CAS on its key. The table grows by levels of one mapping
 * (2^FIRST_LOG slots, then twice as many each, up to 2^LAST_LOG): a full probe run in the
 * current level moves the cache to the next, empty one (the rules are read again as they are
 * needed), so a short process touches a few pages, not pages at random over the largest size.
 * A full probe run in the last level, or a lost race, just leaves the rule uncached. */
#include "walk.h"

#include "arena.h"
#include "cfi.h"
#include "pages.h"
#include "real.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ucontext.h>
#include <sys/uio.h>
#include <unistd.h>

#define FIRST_LOG 8 /* 4 KiB: one page */
#define LAST_LOG 15
#define PROBES 8
/* A caller's frame lies within this of the callee's. */
#define MAX_FRAME_SPAN ((uintptr_t)1 << 28)

struct slot {
    _Atomic uint64_t key, val;
};

static struct slot *cache;       /* levels FIRST_LOG..LAST_LOG, one after the other */
static _Atomic unsigned cur_log; /* the level in use: 2^cur_log slots */

/* The level of 2^log slots. */
static struct slot *level(unsigned log)
{
    return cache + (((size_t)1 << log) - ((size_t)1 << FIRST_LOG));
}

int walk_init(void)
{
    if (cache) return 0;
    size_t slots = ((size_t)2 << LAST_LOG) - ((size_t)1 << FIRST_LOG);
    void *p = arena_map(sizeof(struct slot) * slots);
    if (!p) return -1;
    gt_touch_pages(p, sizeof(struct slot) << FIRST_LOG); /* every walk probes it */
    atomic_store_explicit(&cur_log, FIRST_LOG, memory_order_relaxed);
    cache = p;
    return 0;
}

void walk_forget(void)
{
    if (!cache) return;
    unsigned log = atomic_load_explicit(&cur_log, memory_order_relaxed);
    struct slot *s = level(log);
    for (size_t i = 0; i < (size_t)1 << log; i++) {
        atomic_store_explicit(&s[i].val, 0, memory_order_relaxed);
        atomic_store_explicit(&s[i].key, 0, memory_order_relaxed);
    }
}

/* A full probe run in the level of 2^log slots: the cache moves to the next level. */
static void grow(unsigned log)
{
    if (log < LAST_LOG)
        atomic_compare_exchange_strong_explicit(&cur_log, &log, log + 1, memory_order_relaxed,
                                                memory_order_relaxed);
}

static inline uint64_t pack(uintptr_t pc, struct cfi_rule r)
{
    return (uint64_t)(uint32_t)pc << 32 | (uint64_t)r.cfa_off << 12 | (uint64_t)r.bp_slot << 3 |
           r.kind;
}

static inline struct cfi_rule unpack(uint64_t v)
{
    return (struct cfi_rule){.kind = (uint8_t)(v & 7),
                             .bp_slot = (uint16_t)((v >> 3) & 0x1ff),
                             .cfa_off = (uint32_t)(v >> 12) & (CFI_MAX_CFA_OFF - 1)};
}

/* The level in use, read once a walk (a walk that grows the cache goes on in the level it read:
 * its inserts there are only lost). */
struct level_view {
    struct slot *lv; /* NULL: no cache */
    unsigned log;
};

static struct level_view view(void)
{
    if (!cache) return (struct level_view){NULL, 0};
    unsigned log = atomic_load_explicit(&cur_log, memory_order_relaxed);
    return (struct level_view){level(log), log};
}

static struct cfi_rule rule_at(struct level_view v, uintptr_t pc)
{
    if (!v.lv) return cfi_rule_for(pc);
    size_t mask = ((size_t)1 << v.log) - 1;
    size_t i = (size_t)((pc * 0x9e3779b97f4a7c15u) >> (64 - v.log));
    for (int probe = 0; probe < PROBES; probe++, i = (i + 1) & mask) {
        struct slot *s = &v.lv[i];
        uint64_t key = atomic_load_explicit(&s->key, memory_order_relaxed);
        if (key == pc) {
            uint64_t v = atomic_load_explicit(&s->val, memory_order_relaxed);
            if (v >> 32 == (uint32_t)pc && (v & 7) != CFI_NONE) return unpack(v);
            return cfi_rule_for(pc); /* being filled */
        }
        if (key != 0) continue;
        struct cfi_rule r = cfi_rule_for(pc);
        if (r.kind == CFI_NO_INFO) return r; /* not kept: code may be mapped there later */
        if (atomic_compare_exchange_strong_explicit(&s->key, &key, pc, memory_order_relaxed,
                                                    memory_order_relaxed))
            atomic_store_explicit(&s->val, pack(pc, r), memory_order_relaxed);
        return r;
    }
    grow(v.log);
    return cfi_rule_for(pc);
}

static void record(struct walk_chain *rec, int frame, intptr_t off, uintptr_t want)
{
    if (!rec || rec->n < 0) return;
    if (rec->n == WALK_MAX_CHECKS) {
        rec->n = -1;
        return;
    }
    rec->frame[rec->n] = (uint8_t)frame;
    rec->c[rec->n++] = (struct walk_check){off, want};
}

/* The kernel's return trampoline of a signal handler: mov $__NR_rt_sigreturn, %rax; syscall. */
static const unsigned char sigreturn_code[] = {0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05};

/* The frame of a signal: the handler returned to ra, the trampoline, and the CFA of the
 * handler's frame, r->sp, is the ucontext the kernel saved there. The interrupted registers
 * from it; 0 unless ra is that trampoline and they lie above it. */
static int signal_step(struct walk_regs *r, uintptr_t ra)
{
    if (memcmp((const void *)ra, sigreturn_code, sizeof sigreturn_code) != 0) return 0;
    const greg_t *g = ((const ucontext_t *)r->sp)->uc_mcontext.gregs;
    struct walk_regs to = {(uintptr_t)g[REG_RIP], (uintptr_t)g[REG_RSP], (uintptr_t)g[REG_RBP]};
    if (to.sp <= r->sp || to.sp - r->sp > MAX_FRAME_SPAN || to.pc == 0) return 0;
    *r = to;
    return 1;
}

/* Whether process_vm_readv may be called: not under a seccomp filter, which may kill the process
 * for a call it does not allow (read once, from /proc/self/status, at the first frame without
 * CFI; an unreadable status counts as a filter). */
static int kernel_reads_allowed(void)
{
    static _Atomic int allowed; /* 0 unknown, 1 yes, -1 no */
    int a = atomic_load_explicit(&allowed, memory_order_relaxed);
    if (a) return a > 0;
    char buf[4096];
    ssize_t n = -1;
    int fd = REAL(open)("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = REAL(read)(fd, buf, sizeof buf - 1);
        REAL(close)(fd);
    }
    const char *line = n > 0 ? (buf[n] = 0, strstr(buf, "\nSeccomp:\t")) : NULL;
    a = line && line[10] == '0' ? 1 : -1;
    atomic_store_explicit(&allowed, a, memory_order_relaxed);
    return a > 0;
}

int walk_peek(void *dst, uintptr_t addr, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)addr, n};
    if (!kernel_reads_allowed()) return -1;
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* A frame without CFI, as libunwind takes one: a frame-pointer frame (push %rbp; mov %rsp,
 * %rbp), its return address at RBP + 8 and its caller's RBP at RBP. RBP may be anything in code
 * that does not keep one, so the two slots are read through the kernel (process_vm_readv), which
 * refuses an address that is not readable; 0 if it did, or the frame is not above the last, or
 * the kernel may not be asked. */
static int frame_pointer_step(struct walk_regs *r, uintptr_t *ra)
{
    uintptr_t slots[2];
    if (r->bp & 7 || r->bp < r->sp || r->bp - r->sp > MAX_FRAME_SPAN ||
        walk_peek(slots, r->bp, sizeof slots))
        return 0;
    r->sp = r->bp + 16;
    r->bp = slots[0];
    *ra = slots[1];
    return 1;
}

/* The walk; base is the reference for recorded offsets (rec may be NULL). Reads the frames'
 * own stack slots, which a sanitizer may consider out of bounds. A walk through a signal frame
 * or a frame without CFI is not recorded (rec->n = -1): its reads are not all checks of slots
 * (walk.h). */
__attribute__((no_sanitize("address"))) static int walk(struct walk_regs r, uintptr_t *pcs,
                                                        struct walk_limit lim, uintptr_t base,
                                                        struct walk_chain *rec)
{
    uintptr_t at = r.pc;
    intptr_t bp_from = WALK_BP_REG; /* where r.bp came from: the register or a slot */
    int bp_recorded = 0;
    int n = 0, lead = 0;
    struct level_view v = view();
    if (rec) rec->n = 0;
    while (n < lim.max) {
        struct cfi_rule rule = rule_at(v, at);
        uintptr_t ra = 0;
        if (rule.kind == CFI_OUTERMOST) break;
        if (rule.kind == CFI_CFA_SP || rule.kind == CFI_CFA_BP) {
            if (rule.kind == CFI_CFA_BP && !bp_recorded) {
                record(rec, n, bp_from == WALK_BP_REG ? bp_from : bp_from | 1, r.bp - base);
                bp_recorded = 1;
            }
            uintptr_t cfa = (rule.kind == CFI_CFA_SP ? r.sp : r.bp) + rule.cfa_off;
            if (cfa < r.sp + 8 || cfa - r.sp > MAX_FRAME_SPAN) return -1 - n;
            ra = *(const uintptr_t *)(cfa - 8);
            if (rule.bp_slot) {
                uintptr_t slot = cfa - 8 * (uintptr_t)rule.bp_slot;
                r.bp = *(const uintptr_t *)slot;
                bp_from = (intptr_t)(slot - base);
                bp_recorded = 0;
            }
            r.sp = cfa;
            if (n > 0) record(rec, n, (intptr_t)(cfa - 8 - base), ra); /* (see walk_here) */
        } else if (rule.kind == CFI_SIGNAL && signal_step(&r, at + 1)) {
            ra = r.pc + 1; /* an exact pc, made to look like a return address */
            if (rec) rec->n = -1;
        } else if (rule.kind == CFI_NO_INFO && frame_pointer_step(&r, &ra)) {
            if (rec) rec->n = -1;
        } else {
            return -1 - n;
        }
        if (ra == 0) break;
        pcs[n++] = ra;
        at = ra - 1; /* the call instruction */
        if (lead == n - 1 && at - lim.lead_lo < lim.lead_hi - lim.lead_lo)
            lead++;
        else if (n - lead == lim.keep)
            break;
    }
    return n;
}

int walk_stack(struct walk_regs r, uintptr_t *pcs, int max)
{
    return walk(r, pcs, (struct walk_limit){max, max, 0, 0}, 0, NULL);
}

/* The first return address, into the caller, is not recorded (walk.h). */
__attribute__((noinline)) int walk_here(uintptr_t *pcs, struct walk_limit lim,
                                        struct walk_chain *rec)
{
    struct walk_regs r;
    __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                     : "=r"(r.pc), "=r"(r.sp), "=r"(r.bp));
    return walk(r, pcs, lim, (uintptr_t)__builtin_dwarf_cfa(), rec);
}
