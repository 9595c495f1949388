/* symbolize.c: pc -> frames with elfutils libdwfl over the live process. See symbolize.h.
 * Invariants: single-threaded (the flusher; libdw is not thread-safe); every pc is resolved
 * at most once and its frames cached until sym_fini; the innermost frame keeps the real pc and
 * the k-th enclosing inlined caller gets pc | k << 56 (user addresses are < 2^47), so every
 * distinct frame has a distinct pc. A pc without DWARF falls back to the ELF symbol, with the
 * module path as the file; a pc no module covers re-reports /proc/self/maps once, then is "?".
 * The compilation unit of a pc comes from .debug_aranges when the module has them (libdw's
 * lookup), else from the units' own address ranges (DW_AT_ranges / low_pc..high_pc), read once
 * per module into a sorted table: clang and rustc emit no .debug_aranges by default. Frames
 * are marked as a language runtime's (runtime_name) for the thread names of stack.h; libc's
 * start of a thread resolves to no frame (thread_start). The machine's symbol cache
 * (symcache.h) answers first; what libdwfl resolves is added to it. */
#include "symbolize.h"

#include "demangle.h"
#include "log.h"
#include "stack.h"
#include "strtab.h"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include "dwlazy.h" /* after the elfutils headers: their functions through dlopen */

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct entry {
    uintptr_t pc;
    int n;
    uint32_t runtime; /* bit k: frame k is a language runtime's code (runtime_name) */
    uint64_t marked;  /* 1 + the last generation its strings were marked for (sym_lookup_for) */
    size_t enc_len;   /* bytes of f on the wire (sym_set_encoding), kept after f[n]; 0: none */
    struct sym_frame f[];
};

/* A module's compilation units by address: [lo, hi) in the DWARF's own addresses. */
struct cu_range {
    Dwarf_Addr lo, hi;
    Dwarf_Die cu;    /* the unit's DIE: for a skeleton (split DWARF), the split unit's */
    Dwarf_Die lines; /* the unit that holds the line table (the skeleton) */
};
struct mod_ranges {
    Dwfl_Module *mod;
    size_t n;
    struct cu_range *r;
};

/* A unit's functions by address (deepest_at). */
struct fn_range {
    Dwarf_Addr lo, hi;
    Dwarf_Die die;
};
struct unit_fns {
    const void *cu; /* the unit (its Dwarf_CU) */
    size_t n, cap;
    struct fn_range *r;
};
static int ready;  /* sym_init was called */
static Dwfl *dwfl; /* begun at the first lookup the symbol cache does not answer */
static int dwfl_failed;
static char *debuginfo_path;
static struct mod_ranges *mods; /* built on demand, dropped at every report */
static size_t nmods;
static struct unit_fns *units; /* likewise: functions by unit (deepest_at) */
static size_t nunits;

/* Whether the ELF file open on fd has mod's build ID (or either has none). */
static int same_build(Dwfl_Module *mod, int fd)
{
    const unsigned char *want;
    GElf_Addr at;
    int n = dwfl_module_build_id(mod, &want, &at);
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    const void *got = NULL;
    ssize_t m = elf ? dwelf_elf_gnu_build_id(elf, &got) : -1;
    int same = n <= 0 || m <= 0 || (m == n && memcmp(got, want, (size_t)n) == 0);
    if (elf) elf_end(elf);
    return elf && same;
}

/* Local debug files only: by build ID under the debuginfo path (/usr/lib/debug, where Debian's
 * dbgsym packages put them), else the file's .gnu_debuglink name beside it, in its .debug/ and
 * under /usr/lib/debug, with the same build ID. Never debuginfod, the last resort of
 * dwfl_standard_find_debuginfo: that dlopens libdebuginfod and some 25 libraries into the traced
 * process for a module without local debug info (9 ms of a traced /bin/true's 10), and with
 * DEBUGINFOD_URLS set downloads from the network while the program exits. */
static int find_debuginfo(Dwfl_Module *mod, void **user, const char *modname, GElf_Addr base,
                          const char *file_name, const char *debuglink, GElf_Word crc,
                          char **debuginfo_file_name)
{
    int fd = dwfl_build_id_find_debuginfo(mod, user, modname, base, file_name, debuglink, crc,
                                          debuginfo_file_name);
    if (fd >= 0 || !debuglink || !file_name || strchr(debuglink, '/')) return fd;
    const char *slash = strrchr(file_name, '/');
    int dir = slash ? (int)(slash - file_name) : 0;
    static const char *const forms[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        char path[4096];
        int len = snprintf(path, sizeof path, forms[i], dir, file_name, debuglink);
        if (len < 0 || (size_t)len >= sizeof path || strcmp(path, file_name) == 0) continue;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        if (same_build(mod, fd) && (*debuginfo_file_name = strdup(path)) != NULL) return fd;
        close(fd);
    }
    return -1;
}

static Dwfl_Callbacks callbacks = {
    /* .find_elf = dwfl_linux_proc_find_elf once libdw is loaded */
    .find_debuginfo = find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};
static struct entry **cache; /* open addressing on pc, at most half full */
static size_t cache_cap, cache_len;
static size_t (*encode_frames)(uint8_t *out, const struct sym_frame *f, int n);

void sym_set_encoding(size_t (*encode)(uint8_t *out, const struct sym_frame *f, int n))
{
    encode_frames = encode;
}

static void drop_ranges(void)
{
    for (size_t i = 0; i < nmods; i++)
        free(mods[i].r);
    free(mods);
    mods = NULL;
    nmods = 0;
    for (size_t i = 0; i < nunits; i++)
        free(units[i].r);
    free(units);
    units = NULL;
    nunits = 0;
}

/* The modules from /proc/self/maps. dwfl_linux_proc_report reads /proc/<pid>/auxv first (to
 * find the vDSO) and reports nothing when it cannot: a process that is no longer dumpable (a
 * server that dropped root with setuid, or prctl(PR_SET_DUMPABLE, 0)) may not read its own
 * auxv, mode 0400 and owned by root then, but may still read its maps (0444; a process passes
 * the kernel's access check on itself). The maps alone report every file-backed module, not
 * the vDSO (its frames show addresses). */
static void report(void)
{
    drop_ranges(); /* a module that went away may be reused for another */
    dwfl_report_begin(dwfl);
    if (dwfl_linux_proc_report(dwfl, getpid()) != 0) { /* keeps the modules reported so far */
        FILE *maps = fopen("/proc/self/maps", "re");
        if (maps) {
            (void)dwfl_linux_proc_maps_report(dwfl, maps);
            fclose(maps);
        }
    }
    dwfl_report_end(dwfl, NULL, NULL);
}

int sym_init(void)
{
    if (str_init() != 0) return -1;
    ready = 1;
    return 0;
}

/* Whether the Dwfl exists, begun (libdw loaded, the modules reported) on first need. */
static int have_dwfl(void)
{
    if (dwfl || dwfl_failed) return dwfl != NULL;
    if (dwlazy_load() == 0) {
        callbacks.find_elf = dwfl_linux_proc_find_elf;
        dwfl = dwfl_begin(&callbacks);
    }
    if (!dwfl) {
        dwfl_failed = 1;
        gt_log("symbolization unavailable; stacks will show addresses only");
        return 0;
    }
    report();
    return 1;
}

/* ---- compilation units by address, without .debug_aranges ---- */

static int by_lo(const void *a, const void *b)
{
    const struct cu_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void add_unit_ranges(struct mod_ranges *m, size_t *cap, Dwarf_CU *cu, Dwarf_Die *cudie)
{
    uint8_t type;
    Dwarf_Die sub;
    if (dwarf_cu_info(cu, NULL, &type, NULL, &sub, NULL, NULL, NULL) != 0) return;
    if (type != DW_UT_compile && type != DW_UT_skeleton && type != DW_UT_partial) return;
    int split = type == DW_UT_skeleton && sub.cu != NULL;
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
        if (hi <= lo) continue;
        if (m->n == *cap) {
            size_t ncap = *cap ? *cap * 2 : 64;
            struct cu_range *r = realloc(m->r, ncap * sizeof *r);
            if (!r) return;
            m->r = r;
            *cap = ncap;
        }
        m->r[m->n++] = (struct cu_range){lo, hi, split ? sub : *cudie, *cudie};
    }
}

static struct mod_ranges *ranges_of(Dwfl_Module *mod, Dwarf *dw)
{
    for (size_t i = 0; i < nmods; i++)
        if (mods[i].mod == mod) return &mods[i];
    struct mod_ranges *grown = realloc(mods, (nmods + 1) * sizeof *mods);
    if (!grown) return NULL;
    mods = grown;
    struct mod_ranges *m = &mods[nmods++];
    *m = (struct mod_ranges){mod, 0, NULL};
    size_t cap = 0;
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie;
    while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0)
        add_unit_ranges(m, &cap, cu, &cudie);
    if (m->n) qsort(m->r, m->n, sizeof *m->r, by_lo);
    return m;
}

/* The unit covering a (a DWARF address) in m, NULL if none. */
static const struct cu_range *range_at(const struct mod_ranges *m, Dwarf_Addr a)
{
    size_t lo = 0, hi = m->n; /* first entry with .lo > a */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->r[mid].lo <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, seen = 0; i-- > 0 && seen < 16; seen++) /* ranges may nest */
        if (a < m->r[i].hi) return &m->r[i];
    return NULL;
}

/* The unit of addr (a process address): scopes from *cu, lines from *lines. */
static int unit_at(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias, Dwarf_Die *cu,
                   Dwarf_Die *lines)
{
    Dwarf_Die *d = dwfl_module_addrdie(mod, addr, bias);
    if (d) { /* a skeleton (split DWARF): the functions are in its split unit */
        uint8_t type;
        Dwarf_Die sub;
        int split = dwarf_cu_info(d->cu, NULL, &type, NULL, &sub, NULL, NULL, NULL) == 0 &&
                    type == DW_UT_skeleton && sub.cu != NULL;
        *cu = split ? sub : *d;
        *lines = *d;
        return 1;
    }
    Dwarf *dw = dwfl_module_getdwarf(mod, bias);
    struct mod_ranges *m = dw ? ranges_of(mod, dw) : NULL;
    const struct cu_range *r = m ? range_at(m, addr - *bias) : NULL;
    if (!r) return 0;
    *cu = r->cu;
    *lines = r->lines;
    return 1;
}

/* ---- names ---- */

static uint64_t intern_name(const char *name)
{
    return str_intern_cstr(demangle_name(name));
}

/* Whether name (demangled) is a language runtime's: C++'s std::, Rust's std/core/alloc (also
 * as an impl's self type, and the closure-call shims of core::ops::function), OpenMP's
 * runtimes, the dynamic loader. The qualified name is taken after a leading return type. */
static int runtime_name(const char *name)
{
    static const char *const prefixes[] = {
        "std::",    "core::",  "alloc::", "__gnu_cxx::", "__cxxabiv1::", "<std::", "<core::",
        "<alloc::", "__rust_", "GOMP_",   "gomp_",       "__kmp",        "_dl_",   "__libc_",
    };
    int depth = 0;
    const char *q = name;
    for (const char *p = name; *p; p++) { /* skip "void " of "void std::f<...>(...)" */
        if (*p == '<' || *p == '(') {
            if (*p == '(' && depth == 0) break;
            depth++;
        } else if ((*p == '>' || *p == ')') && depth > 0) {
            depth--;
        } else if (*p == ' ' && depth == 0) {
            q = p + 1;
        }
    }
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(q, prefixes[i], strlen(prefixes[i])) == 0) return 1;
    return strstr(q, " as core::ops::function::Fn") != NULL;
}

/* Whether the module at path is a language runtime or this tracer. */
static int runtime_module(const char *path)
{
    static const char *const libs[] = {"libstdc++.",  "libc++.",   "libc++abi.", "libgomp.",
                                       "libomp.",     "libc.so",   "ld-linux",   "libgcc_s.",
                                       "libpthread.", "libgotrace"};
    const char *slash = path ? strrchr(path, '/') : NULL;
    const char *base = slash ? slash + 1 : path;
    for (size_t i = 0; base && i < sizeof libs / sizeof *libs; i++)
        if (strncmp(base, libs[i], strlen(libs[i])) == 0) return 1;
    return 0;
}

/* The DIE that declares die's function: through DW_AT_abstract_origin (an inlined or
 * out-of-line instance) and DW_AT_specification (a definition outside its class). */
static Dwarf_Die declaring(Dwarf_Die *die)
{
    Dwarf_Die d = *die, ref;
    Dwarf_Attribute a;
    for (int i = 0; i < 4; i++) {
        if (!dwarf_formref_die(dwarf_attr(&d, DW_AT_abstract_origin, &a), &ref) &&
            !dwarf_formref_die(dwarf_attr(&d, DW_AT_specification, &a), &ref))
            break;
        d = ref;
    }
    return d;
}

/* name qualified by the namespaces, classes and functions around decl, into buf (GCC gives
 * template instances and lambdas' members no linkage name: "operator()" becomes
 * "main()::<lambda()>::operator()"). */
static const char *qualified(Dwarf_Die *decl, const char *name, char *buf, size_t cap)
{
    Dwarf_Die *sc;
    int n = dwarf_getscopes_die(decl, &sc);
    size_t len = 0;
    buf[0] = 0;
    for (int i = n - 1; i >= 1; i--) {
        int tag = dwarf_tag(&sc[i]);
        const char *pn = dwarf_diename(&sc[i]);
        if (!pn && (tag == DW_TAG_class_type || tag == DW_TAG_structure_type))
            pn = "<lambda>"; /* GCC's closure types have no name */
        const char *form = tag == DW_TAG_subprogram ? "%s()::"
                           : tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
                                   tag == DW_TAG_structure_type || tag == DW_TAG_union_type
                               ? "%s::"
                               : NULL;
        int k = pn && form && len < cap ? snprintf(buf + len, cap - len, form, pn) : 0;
        if (k > 0) len += (size_t)k;
    }
    if (n > 0) free(sc);
    if (len >= cap) return name;
    snprintf(buf + len, cap - len, "%s", name);
    return buf;
}

/* The name to show for a function's DIE: its linkage name demangled; else, for the function
 * holding the pc, its ELF symbol (demangled), but not in this library (own), where the symbol
 * holding a hook's .cold part is "hook.cold" and the hook must show as itself; else its DWARF
 * name, qualified. */
static const char *die_name(Dwfl_Module *mod, Dwarf_Die *die, int tag, int own, Dwarf_Addr addr,
                            char *buf, size_t cap)
{
    Dwarf_Attribute a;
    const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    if (!s) s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (!s && tag == DW_TAG_subprogram && !own) s = dwfl_module_addrname(mod, addr);
    if (s) return demangle_name(s);
    s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
    if (!s) return "?";
    Dwarf_Die decl = declaring(die);
    return qualified(&decl, s, buf, cap);
}

/* Whether a frame's source file is a runtime's: system headers (libstdc++'s templates, inlined
 * into the program) and Rust's standard library sources. */
static int runtime_file(const char *file)
{
    return file &&
           (strncmp(file, "/usr/include/", 13) == 0 || strncmp(file, "/rustc/", 7) == 0 ||
            strncmp(file, "library/std/", 12) == 0 || strncmp(file, "library/core/", 13) == 0 ||
            strncmp(file, "library/alloc/", 14) == 0);
}

/* Whether mod is this library (stack_own_addr): its frames are shown as the hook only (the
 * interposed function the program called), never the tracer's inlined helpers. */
static int own_module(Dwfl_Module *mod)
{
    Dwarf_Addr start, end, here = (Dwarf_Addr)(uintptr_t)&sym_init;
    return dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL) && here >= start &&
           here < end && stack_own_addr((uintptr_t)here);
}

/* A unit's functions by address: every subprogram with code, wherever it is nested (GCC's
 * outlined OpenMP bodies, main._omp_fn.0, are children of main's DIE outside main's range;
 * rustc puts functions inside namespaces): dwarf_getscopes, which descends only into DIEs whose
 * own ranges hold the address, misses them. Built once per unit, on the first such miss. */
static int fn_by_lo(const void *a, const void *b)
{
    const struct fn_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void collect_fns(Dwarf_Die *die, struct unit_fns *u, int depth)
{
    Dwarf_Die child;
    if (depth > 64 || dwarf_child(die, &child) != 0) return;
    do {
        int tag = dwarf_tag(&child);
        Dwarf_Addr base, lo, hi;
        ptrdiff_t off = 0;
        while (tag == DW_TAG_subprogram && (off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
            if (hi <= lo) continue;
            if (u->n == u->cap) {
                size_t cap = u->cap ? u->cap * 2 : 64;
                struct fn_range *r = realloc(u->r, cap * sizeof *r);
                if (!r) return;
                u->r = r;
                u->cap = cap;
            }
            u->r[u->n++] = (struct fn_range){lo, hi, child};
        }
        /* where functions are defined (not types: they hold declarations only) */
        if ((tag == DW_TAG_namespace || tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
             tag == DW_TAG_module) &&
            dwarf_haschildren(&child))
            collect_fns(&child, u, depth + 1);
    } while (dwarf_siblingof(&child, &child) == 0);
}

static const struct unit_fns *fns_of(Dwarf_Die *cu)
{
    for (size_t i = 0; i < nunits; i++)
        if (units[i].cu == cu->cu) return &units[i];
    struct unit_fns *grown = realloc(units, (nunits + 1) * sizeof *units);
    if (!grown) return NULL;
    units = grown;
    struct unit_fns *u = &units[nunits++];
    *u = (struct unit_fns){cu->cu, 0, 0, NULL};
    collect_fns(cu, u, 0);
    if (u->n) qsort(u->r, u->n, sizeof *u->r, fn_by_lo);
    return u;
}

/* The scopes of unit cu that hold a (a DWARF address), innermost first, into a new array
 * *scopes (as dwarf_getscopes_die gives them, up to the function): the unit's function there,
 * then its inlined calls and blocks that hold a. Their number, 0 if none. */
static int deepest_at(Dwarf_Die *cu, Dwarf_Addr a, Dwarf_Die **scopes)
{
    const struct unit_fns *u = fns_of(cu);
    size_t lo = 0, hi = u ? u->n : 0; /* first function with .lo > a */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u->r[mid].lo <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct fn_range *f = NULL;
    for (size_t i = lo, seen = 0; !f && i-- > 0 && seen < 16; seen++) /* nested: the closest */
        if (a < u->r[i].hi) f = &u->r[i];
    Dwarf_Die chain[64], child;
    int n = 0;
    if (f) chain[n++] = f->die;
    for (int more = n; more && n < 64 && dwarf_child(&chain[n - 1], &child) == 0;) {
        more = 0;
        do {
            int tag = dwarf_tag(&child);
            if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
                dwarf_haspc(&child, a) == 1) {
                chain[n++] = child;
                more = 1;
                break;
            }
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    *scopes = n ? malloc((size_t)n * sizeof **scopes) : NULL;
    if (!*scopes) return 0;
    for (int i = 0; i < n; i++)
        (*scopes)[i] = chain[n - 1 - i];
    return n;
}

/* Frames from DWARF scopes (inlined callers expanded), 0 if the pc has no DWARF. */
static int dwarf_frames(Dwfl_Module *mod, Dwarf_Addr addr, uintptr_t pc, struct sym_frame *out,
                        uint32_t *runtime)
{
    Dwarf_Addr bias;
    Dwarf_Die cu, lines, *scopes, inner;
    if (!unit_at(mod, addr, &bias, &cu, &lines)) return 0;
    int ns = dwarf_getscopes(&cu, addr - bias, &scopes);
    if (ns > 0) {
        /* dwarf_getscopes follows an inlined subroutine into its abstract definition; the
         * callers are the innermost scope's parents in the concrete tree (as eu-addr2line -i
         * does). In the split unit's file for split DWARF. */
        int ok = dwarf_offdie(dwarf_cu_getdwarf(scopes[0].cu), dwarf_dieoffset(&scopes[0]),
                              &inner) != NULL;
        free(scopes);
        ns = ok ? dwarf_getscopes_die(&inner, &scopes) : -1;
    } else { /* a function nested where getscopes does not look */
        ns = deepest_at(&cu, addr - bias, &scopes);
    }
    if (ns <= 0) return 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0) files = NULL;
    const char *file = NULL, *path = NULL;
    int line = 0;
    Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
    if (l) {
        file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
    } else {
        Dwarf_Line *dl = dwarf_getsrc_die(&lines, addr - bias);
        if (dl) {
            file = dwarf_linesrc(dl, NULL, NULL);
            (void)dwarf_lineno(dl, &line);
        }
    }
    (void)dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &path, NULL);
    int own = own_module(mod), rt_mod = runtime_module(path);
    int n = 0;
    for (int i = 0; i < ns && n < SYM_MAX_FRAMES; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine) continue;
        if (!(own && tag == DW_TAG_inlined_subroutine)) {
            char buf[1024];
            const char *name = die_name(mod, &scopes[i], tag, own, addr, buf, sizeof buf);
            if (rt_mod || runtime_name(name) || runtime_file(file)) *runtime |= 1u << n;
            if (own) { /* a hook: the function the program called, no tracer source */
                file = NULL;
                line = 0;
            }
            out[n] = (struct sym_frame){pc | (uintptr_t)n << 56, str_intern_cstr(name),
                                        file ? str_intern_cstr(file) : 0, line > 0 ? line : 0};
            n++;
        }
        if (tag == DW_TAG_subprogram) break;
        Dwarf_Attribute a;
        Dwarf_Word v;
        file = NULL;
        line = 0;
        if (files && dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &v) == 0)
            file = dwarf_filesrc(files, v, NULL, NULL);
        if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &v) == 0) line = (int)v;
    }
    free(scopes);
    return n;
}

/* One frame from the ELF symbol table: name (or module+offset), file = module path (then
 * *modpath is set). */
static void elf_frame(Dwfl_Module *mod, Dwarf_Addr addr, uintptr_t pc, struct sym_frame *out,
                      uint32_t *runtime, int *modpath)
{
    Dwarf_Addr base;
    const char *path = dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
    const char *name = dwfl_module_addrname(mod, addr);
    out->pc = pc;
    out->file_str = path && !own_module(mod) ? str_intern_cstr(path) : 0;
    *modpath = out->file_str != 0;
    out->line = 0;
    if (runtime_module(path) || (name && runtime_name(demangle_name(name)))) *runtime = 1;
    if (name) {
        out->func_str = intern_name(name);
        return;
    }
    const char *slash = path ? strrchr(path, '/') : NULL;
    char buf[256];
    snprintf(buf, sizeof buf, "%s+%#lx",
             slash  ? slash + 1
             : path ? path
                    : "?",
             (unsigned long)(addr - base));
    out->func_str = str_intern_cstr(buf);
}

/* The module whose address range holds addr (dwfl_addrmodule alone can answer with a module
 * that does not, e.g. for addresses next to [vsyscall]). */
static Dwfl_Module *module_at(Dwarf_Addr addr)
{
    Dwarf_Addr start, end;
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
    if (!mod || !dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL)) return NULL;
    return addr >= start && addr < end ? mod : NULL;
}

/* The frames of pc with libdwfl; *modpath as elf_frame. */
static int resolve_dwfl(uintptr_t pc, struct sym_frame *out, uint32_t *runtime, int *modpath)
{
    Dwarf_Addr addr = pc ? pc - 1 : 0;
    if (!have_dwfl()) {
        *out = (struct sym_frame){pc, 0, 0, 0};
        return 1;
    }
    Dwfl_Module *mod = module_at(addr);
    if (!mod) {
        report();
        mod = module_at(addr);
    }
    if (!mod) {
        *out = (struct sym_frame){pc, str_intern_cstr("?"), 0, 0};
        return 1;
    }
    int n = dwarf_frames(mod, addr, pc, out, runtime);
    if (n > 0) return n;
    *runtime = 0;
    elf_frame(mod, addr, pc, out, runtime, modpath);
    return 1;
}

/* The path of the module that defines the function a hook named name stands in front of (the
 * next definition after this library, the one real.c binds: libc.so.6's for
 * pthread_mutex_lock) as a string id; 0 for none (the tracer's own API). dlsym and dladdr take
 * the loader's lock: the flusher only, once per pc (the entry cache keeps the frame). */
static uint64_t hook_module(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    Dl_info info;
    return fn && dladdr(fn, &info) && info.dli_fname && info.dli_fname[0]
               ? str_intern_cstr(info.dli_fname)
               : 0;
}

/* A pc in this library's code that an exported function holds (a hook: the leaf of every
 * stack of a blocking call) named as own_module names it, from the loader's symbols: no symbol
 * cache file or ELF file of the tracer's is read at exit for it. 0 for any other pc, and for a
 * static helper or a function's .cold part here (resolved as usual). */
static int own_frame(uintptr_t pc, struct sym_frame *out, uint32_t *runtime)
{
    uintptr_t addr = pc - 1;
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!stack_own_addr(addr) || !dladdr1((void *)addr, &info, (void **)&sym, RTLD_DL_SYMENT) ||
        !sym || !info.dli_sname || ELF64_ST_TYPE(sym->st_info) != STT_FUNC ||
        addr < (uintptr_t)info.dli_saddr || addr - (uintptr_t)info.dli_saddr >= sym->st_size)
        return 0;
    *out = (struct sym_frame){pc, str_intern_cstr(info.dli_sname), hook_module(info.dli_sname), 0};
    *runtime = 1; /* runtime_module: this tracer */
    return 1;
}

/* The frames of this library's pc that the symbol cache or libdw gave (a .cold part or a
 * helper of a hook: no source shown) get the module of the function named as their file, as
 * own_frame's do; the cache keeps them without one (the module can differ from process to
 * process: an interposer such as a sanitizer's runtime in front of libc). */
static void own_files(uintptr_t pc, struct sym_frame *f, int n)
{
    size_t len;
    if (!stack_own_addr(pc - 1)) return;
    for (int i = 0; i < n; i++) {
        const char *name = f[i].file_str ? NULL : str_get(f[i].func_str, &len);
        if (name) f[i].file_str = hook_module(name);
    }
}

/* Whether the code at addr is libc's (its module's file name starts so). */
static int in_libc(uintptr_t addr)
{
    struct dl_find_object o;
    const char *path =
        _dl_find_object((void *)addr, &o) == 0 && o.dlfo_link_map ? o.dlfo_link_map->l_name : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    return path && strncmp(slash ? slash + 1 : path, "libc.so.", 8) == 0;
}

/* Whether frames f[0..n) of pc are libc's start of a thread: the function that runs its start
 * routine and the system call's wrapper that made it, by name in libc only. Stacks of the threads
 * the tracer starts end before them, at its trampoline; those of a thread it adopted end with
 * them, shown nowhere, so that its start routine is outermost, as in every other thread. */
static int thread_start(uintptr_t pc, const struct sym_frame *f, int n)
{
    static const char *const names[] = {"start_thread", "__clone3", "clone3", "__clone", "clone"};
    size_t len;
    const char *name = n > 0 && f[n - 1].func_str ? str_get(f[n - 1].func_str, &len) : NULL;
    for (size_t i = 0; name && i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0) return in_libc(pc - 1);
    return 0;
}

/* The frames of pc: this library's own, from the symbol cache, else resolved (and then
 * cached); none for libc's start of a thread. */
static int resolve(uintptr_t pc, struct sym_frame *out, uint32_t *runtime)
{
    if (own_frame(pc, out, runtime)) return 1;
    struct symcache_module *cm = symcache_module(pc ? pc - 1 : 0);
    int n = cm ? symcache_get(cm, pc, out, SYM_MAX_FRAMES, runtime) : 0, modpath = 0;
    if (n <= 0) {
        n = resolve_dwfl(pc, out, runtime, &modpath);
        if (cm) symcache_put(cm, pc, out, n, *runtime, modpath);
    }
    own_files(pc, out, n);
    return thread_start(pc, out, n) ? 0 : n;
}

static size_t slot_of(uintptr_t pc)
{
    size_t i = (size_t)(pc * 0x9e3779b97f4a7c15ull >> 17) & (cache_cap - 1);
    while (cache[i] && cache[i]->pc != pc)
        i = (i + 1) & (cache_cap - 1);
    return i;
}

/* Room for one more entry; 0 if memory is short (the result is then just not cached). */
static int cache_room(void)
{
    if ((cache_len + 1) * 2 <= cache_cap) return 1;
    size_t old_cap = cache_cap, cap = cache_cap ? cache_cap * 2 : 1024;
    struct entry **old = cache, **fresh = calloc(cap, sizeof *fresh);
    if (!fresh) return 0;
    cache = fresh;
    cache_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i]) cache[slot_of(old[i]->pc)] = old[i];
    free(old);
    return 1;
}

/* pc's frames, resolved and cached; NULL if memory is short. */
static __attribute__((noinline)) struct entry *entry_new(uintptr_t pc)
{
    struct sym_frame f[SYM_MAX_FRAMES];
    uint32_t runtime = 0;
    int n = resolve(pc, f, &runtime);
    uint8_t wire[SYM_MAX_FRAMES * SYM_MAX_WIRE_FRAME];
    size_t wlen = encode_frames ? encode_frames(wire, f, n) : 0;
    struct entry *fresh =
        cache_room() ? malloc(sizeof *fresh + (size_t)n * sizeof *f + wlen) : NULL;
    if (!fresh) return NULL;
    fresh->pc = pc;
    fresh->n = n;
    fresh->runtime = runtime;
    fresh->marked = 0;
    memcpy(fresh->f, f, (size_t)n * sizeof *f);
    memcpy(fresh->f + n, wire, wlen);
    fresh->enc_len = wlen;
    cache_len++;
    return cache[slot_of(pc)] = fresh;
}

/* The cached frames of a real pc, resolved on first use; NULL if memory is short. */
static inline __attribute__((always_inline)) struct entry *entry_of(uintptr_t pc)
{
    struct entry *e = cache_cap ? cache[slot_of(pc)] : NULL;
    return e ? e : entry_new(pc);
}

/* ---- the synthetic frames of stack.h ---- */

/* STACK_PC_MAIN: "main", at main's source line when main has DWARF. */
static int main_frame(uintptr_t pc, struct sym_frame *out)
{
    void *fn = stack_main();
    const struct entry *e = fn ? entry_of((uintptr_t)fn + 1) : NULL;
    *out = e ? e->f[e->n - 1] : (struct sym_frame){0};
    if (out->line == 0) out->file_str = 0; /* a stripped program: no module path either */
    out->pc = pc;
    out->func_str = str_intern_cstr("main");
    return 1;
}

/* The outermost frame of the program's own code (not a runtime's) in the first of st's first
 * stacks that has one (a runtime's own start-up waits come first) into *out; 0 if none has. */
static int program_frame(const struct stack_thread *st, struct sym_frame *out)
{
    const uint64_t *ids;
    for (int s = 0, ns = stack_first(st, &ids); s < ns; s++) {
        const uintptr_t *pcs;
        for (int i = stack_pcs(ids[s], &pcs) - 1; i >= 0; i--) {
            const struct entry *e = (pcs[i] & STACK_PC_SYNTH) ? NULL : entry_of(pcs[i]);
            for (int k = e ? e->n - 1 : -1; k >= 0; k--) {
                if (e->runtime & (1u << k)) continue;
                *out = e->f[k];
                return 1;
            }
        }
    }
    return 0;
}

/* The outermost frame of st's first stack into *out (an adopted thread's: its start routine,
 * since libc's thread-start frames resolve to none); 0 if it has none. */
static int outermost_frame(const struct stack_thread *st, struct sym_frame *out)
{
    const uint64_t *ids;
    const uintptr_t *pcs;
    int n = stack_first(st, &ids) > 0 ? stack_pcs(ids[0], &pcs) : 0;
    for (int i = n - 1; i >= 0; i--) {
        const struct entry *e = (pcs[i] & STACK_PC_SYNTH) ? NULL : entry_of(pcs[i]);
        if (e && e->n) {
            *out = e->f[e->n - 1];
            return 1;
        }
    }
    return 0;
}

/* A thread's first frame of the program's own code (stack_named): when its start routine is
 * a runtime's, program_frame; else nothing (the start routine names it). For a thread the tracer
 * adopted (no start routine known), program_frame, else its start routine. */
static int late_frame(uintptr_t pc, struct sym_frame *out)
{
    const struct stack_thread *st = (const struct stack_thread *)(pc & ~STACK_PC_SYNTH);
    const struct entry *start = st->start ? entry_of((uintptr_t)st->start + 1) : NULL;
    if (st->start && !start) return 0; /* memory is short */
    if (start && !(start->runtime & (1u << (start->n - 1)))) {
        stack_start_plain(st->start); /* its next threads share [start] */
        return 0;
    }
    int found = program_frame(st, out) || (!start && outermost_frame(st, out));
    if (found) out->pc = pc;
    return found;
}

/* An entry's frames, at most max of them, into out; how many. */
static int copy_frames(const struct entry *e, struct sym_frame *out, int max)
{
    int n = e->n > max ? max : e->n;
    memcpy(out, e->f, (size_t)n * sizeof *out);
    return n;
}

int sym_lookup(uintptr_t pc, struct sym_frame *out, int max)
{
    if (max < 1) return 0;
    if (!ready) {
        *out = (struct sym_frame){pc, 0, 0, 0};
        return 1;
    }
    if (pc == STACK_PC_MAIN) return main_frame(pc, out);
    if (stack_pc_late(pc)) return late_frame(pc, out);
    const struct entry *e = entry_of(pc);
    if (!e) { /* memory is short: uncached */
        struct sym_frame f[SYM_MAX_FRAMES];
        uint32_t runtime = 0;
        int n = resolve(pc, f, &runtime);
        if (n > max) n = max;
        memcpy(out, f, (size_t)n * sizeof *out);
        return n;
    }
    return copy_frames(e, out, max);
}

static void mark_frames(const struct sym_frame *f, int n, uint64_t gen)
{
    for (int i = 0; i < n; i++) {
        str_mark(f[i].func_str, gen);
        str_mark(f[i].file_str, gen);
    }
}

/* The cache entry of real pc, its strings marked for gen; NULL for a synthetic pc, before
 * sym_init, or when memory is short. */
static inline __attribute__((always_inline)) const struct entry *entry_for(uintptr_t pc,
                                                                           uint64_t gen)
{
    struct entry *e = ready && !(pc & STACK_PC_SYNTH) ? entry_of(pc) : NULL;
    if (e && e->marked != gen + 1) {
        mark_frames(e->f, e->n, gen);
        e->marked = gen + 1;
    }
    return e;
}

int sym_lookup_for(uintptr_t pc, uint64_t gen, struct sym_frame *out, int max)
{
    const struct entry *e = entry_for(pc, gen);
    if (e) return copy_frames(e, out, max);
    int n = sym_lookup(pc, out, max); /* a synthetic frame, or uncached */
    mark_frames(out, n, gen);
    return n;
}

int sym_encoded_for(uintptr_t pc, uint64_t gen, const uint8_t **bytes, size_t *len)
{
    const struct entry *e = entry_for(pc, gen);
    if (!e || !e->enc_len) return 0;
    *bytes = (const uint8_t *)(e->f + e->n);
    *len = e->enc_len;
    return e->n;
}

/* Whether a type named so is a lock itself (its members are glibc's, not the program's). */
static int opaque_type(Dwarf_Die *t)
{
    const char *n = dwarf_diename(t);
    return n && (!strncmp(n, "pthread_", 8) || !strcmp(n, "sem_t") || !strcmp(n, "mtx_t") ||
                 !strcmp(n, "cnd_t"));
}

/* The path to byte off inside an object of type t (".mu", "[2].lock") appended to buf at
 * *len: members and array elements while off is inside one, down to a lock type. */
static void member_path(Dwarf_Die *t, Dwarf_Word off, char *buf, size_t cap, size_t *len)
{
    for (int depth = 0; depth < 8 && *len + 32 < cap; depth++) {
        Dwarf_Die cur = *t, m;
        while (dwarf_tag(&cur) == DW_TAG_typedef || dwarf_tag(&cur) == DW_TAG_const_type ||
               dwarf_tag(&cur) == DW_TAG_volatile_type) {
            if (dwarf_tag(&cur) == DW_TAG_typedef && opaque_type(&cur)) return;
            Dwarf_Attribute at;
            if (!dwarf_formref_die(dwarf_attr(&cur, DW_AT_type, &at), &cur)) return;
        }
        int tag = dwarf_tag(&cur);
        Dwarf_Word size;
        Dwarf_Attribute at;
        if (tag == DW_TAG_array_type) {
            Dwarf_Die el;
            if (!dwarf_formref_die(dwarf_attr(&cur, DW_AT_type, &at), &el) ||
                dwarf_aggregate_size(&el, &size) != 0 || !size)
                return;
            *len += (size_t)snprintf(buf + *len, cap - *len, "[%llu]",
                                     (unsigned long long)(off / size));
            off %= size;
            *t = el;
            continue;
        }
        if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type) || opaque_type(&cur) ||
            dwarf_child(&cur, &m) != 0)
            return;
        int found = 0;
        do {
            Dwarf_Word loc = 0;
            Dwarf_Die mt;
            const char *mn = dwarf_diename(&m);
            if (dwarf_tag(&m) != DW_TAG_member || !mn ||
                dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &at), &loc) != 0 ||
                !dwarf_formref_die(dwarf_attr(&m, DW_AT_type, &at), &mt) ||
                dwarf_aggregate_size(&mt, &size) != 0 || off < loc || off >= loc + size)
                continue;
            *len += (size_t)snprintf(buf + *len, cap - *len, ".%s", mn);
            off -= loc;
            *t = mt;
            found = 1;
            break;
        } while (dwarf_siblingof(&m, &m) == 0);
        if (!found) return;
    }
}

/* The variable name at file scope of mod's DWARF (C, or a C++ one by its linkage name): its
 * type into *type; 0 when not found. */
static int variable_type(Dwfl_Module *mod, const char *name, Dwarf_Die *type)
{
    Dwarf_Addr bias;
    Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu, d;
        if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &d) == 0) {
            do {
                Dwarf_Attribute at;
                if (dwarf_tag(&d) != DW_TAG_variable) continue;
                const char *n = dwarf_diename(&d);
                const char *ln = dwarf_formstring(dwarf_attr(&d, DW_AT_linkage_name, &at));
                if ((n && !strcmp(n, name)) || (ln && !strcmp(ln, name))) {
                    Dwarf_Die var = d;
                    if (!dwarf_attr(&var, DW_AT_type, &at) &&
                        !dwarf_formref_die(dwarf_attr(&d, DW_AT_specification, &at), &var))
                        continue;
                    if (dwarf_formref_die(dwarf_attr(&var, DW_AT_type, &at), type)) return 1;
                }
            } while (dwarf_siblingof(&d, &d) == 0);
        }
        off = next;
    }
    return 0;
}

/* sym_data with libdwfl; -1 without it. */
static int data_name(uintptr_t addr, char *buf, size_t cap)
{
    if (!have_dwfl()) return -1;
    Dwfl_Module *mod = module_at(addr);
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = mod ? dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL) : NULL;
    if (!name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT || off >= sym.st_size) return 0;
    Dwarf_Die type;
    if (variable_type(mod, name, &type)) { /* queue.mu, locks[3] */
        size_t len = (size_t)snprintf(buf, cap, "%s", demangle_name(name));
        size_t base = len;
        if (len < cap) member_path(&type, off, buf, cap, &len);
        if (len > base && len < cap) return (int)len;
    }
    int n = off ? snprintf(buf, cap, "%s+%#lx", demangle_name(name), (unsigned long)off)
                : snprintf(buf, cap, "%s", demangle_name(name));
    if (n < 0) return 0;
    return (size_t)n >= cap ? (int)cap - 1 : n;
}

int sym_data(uintptr_t addr, char *buf, size_t cap)
{
    if (!ready || cap == 0) return 0;
    struct symcache_module *cm = symcache_module(addr);
    int n = cm ? symcache_get_data(cm, addr, buf, cap) : -1;
    if (n >= 0) return n;
    n = data_name(addr, buf, cap);
    if (n < 0) return 0;
    if (cm) symcache_put_data(cm, addr, buf, (size_t)n);
    return n;
}

void sym_fini(void)
{
    for (size_t i = 0; i < cache_cap; i++)
        free(cache[i]);
    free(cache);
    cache = NULL;
    cache_cap = cache_len = 0;
    drop_ranges();
    symcache_forget();
    if (dwfl) dwfl_end(dwfl);
    dwfl = NULL;
    dwfl_failed = 0;
    ready = 0;
}
