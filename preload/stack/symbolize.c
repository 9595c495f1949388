/* symbolize.c: pc -> frames with elfutils libdwfl over the live process. See symbolize.h.
 * Invariants: single-threaded (the flusher; libdw is not thread-safe); every pc is resolved
 * at most once and its frames cached until sym_fini; the innermost frame keeps the real pc and
 * the k-th enclosing inlined caller gets pc | k << 56 (user addresses are < 2^47), so every
 * distinct frame has a distinct pc. A pc without DWARF falls back to the ELF symbol, with the
 * module path as the file; a pc no module covers re-reports /proc/self/maps once, then is "?". */
#include "symbolize.h"

#include "strtab.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INLINE 16 /* frames kept per pc */

struct entry {
    uintptr_t pc;
    int n;
    struct sym_frame f[];
};

typedef char *(*demangle_fn)(const char *name, char *buf, size_t *len, int *status);

static Dwfl *dwfl;
static char *debuginfo_path;

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

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};
static demangle_fn demangle;
static struct entry **cache; /* open addressing on pc, at most half full */
static size_t cache_cap, cache_len;

static void report(void)
{
    dwfl_report_begin(dwfl);
    (void)dwfl_linux_proc_report(dwfl, getpid()); /* on error: the modules reported so far */
    dwfl_report_end(dwfl, NULL, NULL);
}

int sym_init(void)
{
    if (dwfl) return 0;
    if (str_init() != 0) return -1;
    dwfl = dwfl_begin(&callbacks);
    if (!dwfl) return -1;
    report();
    demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    return 0;
}

static uint64_t intern_name(const char *name)
{
    int status = -1;
    char *d = demangle && strncmp(name, "_Z", 2) == 0 ? demangle(name, NULL, NULL, &status) : NULL;
    uint64_t id = str_intern_cstr(d && status == 0 ? d : name);
    free(d);
    return id;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    if (!s) s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (!s) s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
    return s;
}

/* Frames from DWARF scopes (inlined callers expanded), 0 if the pc has no DWARF. */
static int dwarf_frames(Dwfl_Module *mod, Dwarf_Addr addr, uintptr_t pc, struct sym_frame *out)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias), *scopes, inner;
    int ns = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : -1;
    if (ns <= 0) return 0;
    /* dwarf_getscopes follows an inlined subroutine into its abstract definition; the callers
     * are the innermost scope's parents in the concrete tree (as eu-addr2line -i does). */
    Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
    int ok = dw && dwarf_offdie(dw, dwarf_dieoffset(&scopes[0]), &inner);
    free(scopes);
    ns = ok ? dwarf_getscopes_die(&inner, &scopes) : -1;
    if (ns <= 0) return 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0) files = NULL;
    const char *file = NULL;
    int line = 0;
    Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
    if (l) file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
    int n = 0;
    for (int i = 0; i < ns && n < MAX_INLINE; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine) continue;
        const char *name = die_name(&scopes[i]);
        if (!name && tag == DW_TAG_subprogram) name = dwfl_module_addrname(mod, addr);
        out[n] = (struct sym_frame){pc | (uintptr_t)n << 56,
                                    name ? intern_name(name) : str_intern_cstr("?"),
                                    file ? str_intern_cstr(file) : 0, line > 0 ? line : 0};
        n++;
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

/* One frame from the ELF symbol table: name (or module+offset), file = module path. */
static void elf_frame(Dwfl_Module *mod, Dwarf_Addr addr, uintptr_t pc, struct sym_frame *out)
{
    Dwarf_Addr base;
    const char *path = dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
    const char *name = dwfl_module_addrname(mod, addr);
    out->pc = pc;
    out->file_str = path ? str_intern_cstr(path) : 0;
    out->line = 0;
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

static int resolve(uintptr_t pc, struct sym_frame *out)
{
    Dwarf_Addr addr = pc ? pc - 1 : 0;
    Dwfl_Module *mod = module_at(addr);
    if (!mod) {
        report();
        mod = module_at(addr);
    }
    if (!mod) {
        *out = (struct sym_frame){pc, str_intern_cstr("?"), 0, 0};
        return 1;
    }
    int n = dwarf_frames(mod, addr, pc, out);
    if (n > 0) return n;
    elf_frame(mod, addr, pc, out);
    return 1;
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

static const struct entry *remember(uintptr_t pc, const struct sym_frame *f, int n)
{
    struct entry *e = cache_room() ? malloc(sizeof *e + (size_t)n * sizeof *f) : NULL;
    if (!e) return NULL;
    e->pc = pc;
    e->n = n;
    memcpy(e->f, f, (size_t)n * sizeof *f);
    cache_len++;
    return cache[slot_of(pc)] = e;
}

int sym_lookup(uintptr_t pc, struct sym_frame *out, int max)
{
    if (max < 1) return 0;
    if (!dwfl) {
        *out = (struct sym_frame){pc, 0, 0, 0};
        return 1;
    }
    const struct entry *e = cache_cap ? cache[slot_of(pc)] : NULL;
    struct sym_frame f[MAX_INLINE];
    int n = e ? e->n : resolve(pc, f);
    if (!e) e = remember(pc, f, n);
    if (n > max) n = max;
    memcpy(out, e ? e->f : f, (size_t)n * sizeof *out);
    return n;
}

void sym_fini(void)
{
    for (size_t i = 0; i < cache_cap; i++)
        free(cache[i]);
    free(cache);
    cache = NULL;
    cache_cap = cache_len = 0;
    if (dwfl) dwfl_end(dwfl);
    dwfl = NULL;
}
