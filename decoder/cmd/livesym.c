/* livesym.c: a dead process's addresses to functions and lines. See livesym.h. */
#include "livesym.h"

#include "demangle.h"
#include "gderr.h"
#include "grow.h"

#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

struct gd_livesym {
    Dwfl *dwfl;
    char **names; /* demangled names kept for the symbolizer's life */
    size_t n, cap;
};

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* Reports the recorded modules, the latest first: an earlier one overlapping a later one was
 * unloaded before it (its range reused). */
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
    Dwarf_Addr a = pc ? pc - 1 : 0;
    Dwfl_Module *m = s->dwfl ? dwfl_addrmodule(s->dwfl, a) : NULL;
    if (!m) return 0;
    const char *name = dwfl_module_addrname(m, a);
    if (name) *func = keep(s, demangle_name(name));
    Dwfl_Line *ln = dwfl_module_getsrc(m, a);
    int l = 0;
    const char *src = ln ? dwfl_lineinfo(ln, NULL, &l, NULL, NULL, NULL) : NULL;
    const char *mod = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (src && !(mod && !strncmp(mod, "libgotrace", 10))) { /* a hook: named by its function */
        *file = src;
        *line = (uint64_t)(l > 0 ? l : 0);
    }
    return *func != NULL;
}
