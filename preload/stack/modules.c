/* modules.c: the loaded code modules, for recovery. See modules.h for the invariants. */
#include "modules.h"

#include "arena.h"
#include "pages.h"

#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct gt_live_module *list; /* GT_LIVE_MODULES entries in the live file */
static uint32_t backed;             /* entries of list backed by memory (arena.h) */
static char exe[sizeof list->path] GT_BIG;

static int known(const struct gt_live_head *h, const struct gt_live_module *m)
{
    for (uint32_t i = h->nmodules; i-- > 0;)
        if (list[i].lo == m->lo && list[i].bias == m->bias && strcmp(list[i].path, m->path) == 0)
            return 1;
    return 0;
}

#define PAGE_ENTRIES (GT_PAGE / sizeof *list)

/* Backs the entries below n, whole pages of them; 0, or -1 when memory ran out. */
static int back_entries(uint32_t n)
{
    if (n > GT_LIVE_MODULES) n = GT_LIVE_MODULES;
    if (n <= backed) return 0;
    n = (uint32_t)((n + PAGE_ENTRIES - 1) / PAGE_ENTRIES * PAGE_ENTRIES);
    if (n > GT_LIVE_MODULES) n = GT_LIVE_MODULES;
    if (arena_back(&list[backed], (n - backed) * sizeof *list) != 0) return -1;
    backed = n;
    return 0;
}

/* The modules loaded now (n) and the loader's count of loads and unloads so far (loads). */
struct census {
    uint32_t n;
    unsigned long long loads;
};

static int count(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct census *c = ctx;
    c->n++;
    c->loads = info->dlpi_adds + info->dlpi_subs;
    return 0;
}

static int visit(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct gt_live_head *h = ctx;
    struct gt_live_module m = {UINT64_MAX, 0, info->dlpi_addr, ""};
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uint64_t lo = info->dlpi_addr + ph->p_vaddr;
        if (lo < m.lo) m.lo = lo;
        if (lo + ph->p_memsz > m.hi) m.hi = lo + ph->p_memsz;
    }
    const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : exe;
    char full[PATH_MAX];
    if (name[0] != '/' && strchr(name, '/') && realpath(name, full))
        name = full;                           /* preloaded
                                                 by a path */
    if (m.hi == 0 || name[0] != '/') return 0; /* no code, or no file (the vDSO) */
    size_t len = strnlen(name, sizeof m.path);
    if (len == sizeof m.path) return 0; /* too long to record */
    memcpy(m.path, name, len + 1);
    if (known(h, &m) || h->nmodules >= GT_LIVE_MODULES) return 0;
    if (h->nmodules >= backed && back_entries(h->nmodules + 1) != 0) return 1;
    list[h->nmodules] = m;
    __atomic_signal_fence(__ATOMIC_RELEASE); /* the entry before the count (modules.h) */
    h->nmodules++;
    return 0;
}

const char *modules_program(void)
{
    static const char deleted[] = " (deleted)";
    size_t n = strlen(exe), d = sizeof deleted - 1;
    return exe[0] == '/' && !(n > d && strcmp(exe + n - d, deleted) == 0) ? exe : NULL;
}

void modules_record(void)
{
    struct gt_live_head *h = arena_head();
    if (!h) return;
    if (!list) {
        list = arena_alloc(ARENA_TABLES, GT_LIVE_MODULES * sizeof *list, 0);
        if (!list || !arena_holds(list)) return;
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        h->modules = (uint64_t)(uintptr_t)list;
    }
    static unsigned long long recorded = ~0ull; /* the loader's count when last all recorded */
    struct census c = {0, 0};
    dl_iterate_phdr(count, &c);
    if (c.loads == recorded) return; /* nothing loaded since */
    back_entries(c.n);               /* the entries the modules loaded now need, backed at once */
    if (dl_iterate_phdr(visit, h) == 0) recorded = c.loads;
}
