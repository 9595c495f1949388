/* livesym.c: a dead process's addresses to functions and lines. See livesym.h.
 * libdw's offline mode (dwfl_report_elf) places each recorded module's file at the bias the
 * process loaded it at, then answers address queries as for a live process, from the file's
 * symbol table and, where the file or its separate debug file has it, DWARF line tables.
 * Invariants: the module list is read through gd_live_at (bounded, checked); a module record
 * the process was writing when it died (no NUL in its path, an empty range) is skipped. */
#include "livesym.h"

#include "demangle.h"
#include "gderr.h"
#include "grow.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

struct gd_livesym {
    Dwfl *dwfl;   /* NULL when libdw could not start: then no address is known */
    char **names; /* demangled names kept for the symbolizer's life */
    size_t n, cap;
};

/* Files by the path recorded, separate debug info where the system keeps it (build id,
 * /usr/lib/debug), sections at the addresses the file and the bias give (offline). */
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* Reports the recorded modules, the latest first: an earlier one overlapping a later one was
 * unloaded before it (its range reused), and is left out, since one address must name one
 * module (a dlclose writes the generation in progress first, so the stacks of the unwritten
 * generations were taken in the later one). The module's basename is its name, its path the
 * file libdw opens, and its range comes from the file's program headers plus the recorded
 * bias (add_p_vaddr), as the dynamic loader placed it. */
static void report(Dwfl *dwfl, const struct gd_live *l)
{
    uint32_t n = l->h->nmodules < GT_LIVE_MODULES ? l->h->nmodules : GT_LIVE_MODULES;
    const struct gt_live_module *mods = gd_live_at(l, l->h->modules, n * sizeof *mods);
    if (!mods) return;
    for (uint32_t i = n; i-- > 0;) {
        const struct gt_live_module *m = &mods[i];
        int hidden = !memchr(m->path, 0, sizeof m->path) || m->hi <= m->lo;
        for (uint32_t j = i + 1; !hidden && j < n; j++)
            hidden = mods[j].lo < m->hi && m->lo < mods[j].hi;
        if (hidden) continue;
        const char *base = strrchr(m->path, '/');
        dwfl_report_elf(dwfl, base ? base + 1 : m->path, m->path, -1, m->bias, true);
    }
}

struct gd_livesym *gd_livesym_new(const struct gd_live *l)
{
    struct gd_livesym *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->dwfl = dwfl_begin(&callbacks);
    if (s->dwfl) {
        dwfl_report_begin(s->dwfl);
        report(s->dwfl, l);
        dwfl_report_end(s->dwfl, NULL, NULL);
    }
    return s;
}

void gd_livesym_free(struct gd_livesym *s)
{
    if (!s) return;
    if (s->dwfl) dwfl_end(s->dwfl);
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    free(s);
}

/* A copy of name that lives as long as s: demangle_name's result lives until its next call.
 * NULL when out of memory (the frame then has no function and shows its address). */
static const char *keep(struct gd_livesym *s, const char *name)
{
    if (gd_grow((void **)&s->names, &s->cap, s->n + 1, sizeof *s->names) != 0) return NULL;
    char *c = strdup(name);
    if (c) s->names[s->n++] = c;
    return c;
}

int gd_livesym_frame(struct gd_livesym *s, uint64_t pc, const char **func, const char **file,
                     uint64_t *line)
{
    *func = NULL;
    *file = "";
    *line = 0;
    /* pc - 1: a return address is the instruction after the call, which may be another line or,
     * for a call that ends a function (to a noreturn function), another function. */
    Dwarf_Addr a = pc ? pc - 1 : 0;
    Dwfl_Module *m = s->dwfl ? dwfl_addrmodule(s->dwfl, a) : NULL;
    if (!m) return 0;
    const char *name = dwfl_module_addrname(m, a);
    if (name) *func = keep(s, demangle_name(name));
    Dwfl_Line *ln = dwfl_module_getsrc(m, a);
    int l = 0;
    const char *src = ln ? dwfl_lineinfo(ln, NULL, &l, NULL, NULL, NULL) : NULL;
    const char *mod = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    /* A frame in the tracer itself is one of its hooks: named by the function the program
     * called (pthread_mutex_lock), without the tracer's file and line, as the tracer's own
     * symbolizer names it (preload/stack/symbolize.c), so recovered stacks read as written
     * ones. */
    if (src && !(mod && !strncmp(mod, "libgotrace", 10))) {
        *file = src;
        *line = (uint64_t)(l > 0 ? l : 0);
    }
    return *func != NULL;
}
