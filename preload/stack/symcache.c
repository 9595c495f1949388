/* symcache.c: resolved frames kept on disk, by module build ID and debug state. See symcache.h.
 * A cache file holds one line per return address:
 *   OFFSET RUNTIME N(\tFUNC\tFILE\tLINE){N}\n
 * OFFSET (hex) is the address minus the module's load bias, RUNTIME (hex) the frames' runtime
 * bits (symbolize.c), FILE is empty (none), "m" (the module's own path) or "f" and a path.
 * Names are stored demangled; a name holding a tab or a newline is not cached. The name of a
 * static object (sym_data) is a line "~OFFSET\tNAME" (NAME empty: none). The modules
 * come from dl_iterate_phdr and their build IDs from their PT_NOTE segments in memory: a hit
 * reads no ELF file and never starts libdwfl. */
#include "symcache.h"

#include "config.h"
#include "fds.h"
#include "modules.h"
#include "pages.h"
#include "real.h"
#include "strtab.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_BUILD_ID 64
#define MAX_FILE_BYTES (64u << 20) /* a cache file is neither read nor grown past this */
#define DATA_KEY (1ull << 63)      /* the key of a "~" line: its offset | DATA_KEY */
#define KEEP_DAYS 30               /* a cache file no run added to for this long is removed */

struct slot {
    uint64_t off;   /* address - bias */
    const char *at; /* its line in buf, NULL: empty slot */
};

struct symcache_module {
    uintptr_t lo, hi, bias;
    const Elf64_Ehdr *ehdr; /* its ELF header as mapped (the segment at file offset 0), or NULL */
    unsigned char id[MAX_BUILD_ID];
    size_t idlen;
    char *name;   /* the loader's name; "" for the program */
    char *path;   /* its real path (the "m" file), when first needed */
    int loaded;   /* the cache file was read (or found missing, or cannot be) */
    int writable; /* lines may be appended */
    size_t size;  /* bytes in the file as far as this process knows */
    char *file;   /* the cache file's path, when loaded */
    char *buf;    /* the file's lines when loaded */
    struct slot *tab;
    size_t cap; /* power of two; at most half full */
};

static char dir[GT_PATH_MAX] GT_BIG;
static int dir_made;
static struct symcache_module *mods;
static size_t nmods, cap_mods; /* mods grows by doubling */
static int scanned;

void symcache_dir(const char *d)
{
    snprintf(dir, sizeof dir, "%s", d ? d : "");
}

/* ---- the loaded modules ---- */

static size_t note_build_id(const unsigned char *p, size_t size, size_t align, unsigned char *id)
{
    size_t at = 0;
    while (at + sizeof(Elf64_Nhdr) <= size) {
        const Elf64_Nhdr *n = (const Elf64_Nhdr *)(p + at);
        size_t name = (n->n_namesz + align - 1) & ~(align - 1);
        size_t desc = (n->n_descsz + align - 1) & ~(align - 1);
        size_t data = at + sizeof *n;
        if (data + name + desc > size) return 0;
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(p + data, "GNU", 4) &&
            n->n_descsz > 0 && n->n_descsz <= MAX_BUILD_ID) {
            memcpy(id, p + data + name, n->n_descsz);
            return n->n_descsz;
        }
        at = data + name + desc;
    }
    return 0;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    size_t *index = ctx;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    int program = (*index)++ == 0 && !*name;
    if (!program && name[0] != '/') return 0; /* the vDSO, or a name the loader did not keep */
    struct symcache_module m = {.lo = UINTPTR_MAX, .bias = info->dlpi_addr};
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            if (info->dlpi_addr + ph->p_vaddr < m.lo) m.lo = info->dlpi_addr + ph->p_vaddr;
            if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > m.hi)
                m.hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            if (ph->p_offset == 0) m.ehdr = (const Elf64_Ehdr *)(info->dlpi_addr + ph->p_vaddr);
        } else if (ph->p_type == PT_NOTE && !m.idlen) {
            m.idlen = note_build_id((const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
                                    ph->p_filesz, ph->p_align == 8 ? 8 : 4, m.id);
        }
    }
    if (!m.idlen || m.lo >= m.hi) return 0;
    if (nmods == cap_mods) {
        size_t cap = cap_mods ? 2 * cap_mods : 16;
        struct symcache_module *grown = realloc(mods, cap * sizeof *mods);
        if (!grown) return 0;
        mods = grown;
        cap_mods = cap;
    }
    if (!(m.name = strdup(name))) return 0;
    mods[nmods++] = m;
    return 0;
}

static void drop_modules(void)
{
    for (size_t i = 0; i < nmods; i++) {
        free(mods[i].name);
        free(mods[i].path);
        free(mods[i].file);
        free(mods[i].buf);
        free(mods[i].tab);
    }
    free(mods);
    mods = NULL;
    nmods = cap_mods = 0;
    scanned = 0;
}

static struct symcache_module *module_of(uintptr_t addr)
{
    for (size_t i = 0; i < nmods; i++)
        if (addr >= mods[i].lo && addr < mods[i].hi) return &mods[i];
    return NULL;
}

/* The loader's count of objects loaded and unloaded so far (dlpi_adds + dlpi_subs). */
static int loads_of(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    *(unsigned long long *)ctx = info->dlpi_adds + info->dlpi_subs;
    return 1;
}

struct symcache_module *symcache_module(uintptr_t addr)
{
    if (!dir[0]) return NULL;
    struct symcache_module *m = scanned ? module_of(addr) : NULL;
    if (m) return m;
    static unsigned long long seen; /* loads_of at the last scan */
    unsigned long long now = 0;
    dl_iterate_phdr(loads_of, &now);
    if (scanned && now == seen) return NULL; /* no module there (the vDSO, JIT code) */
    drop_modules(); /* first use, or objects were loaded or unloaded since */
    size_t index = 0;
    dl_iterate_phdr(add_module, &index);
    scanned = 1;
    seen = now;
    return module_of(addr);
}

/* ---- the debug state: which local debug files symbolize.c could read ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xff)) * 0x100000001b3ull;
    return h;
}

static uint64_t mix_file(uint64_t h, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return mix(h, 0);
    h = mix(mix(h, (uint64_t)st.st_dev), (uint64_t)st.st_ino);
    h = mix(mix(h, (uint64_t)st.st_size), (uint64_t)st.st_mtim.tv_sec);
    return mix(h, (uint64_t)st.st_mtim.tv_nsec);
}

/* A file read whole and closed within the call: opened by the real open, not moved to a high
 * number as the hook moves the tracer's descriptors (fds.h: that is for the ones kept open;
 * the move, a dup and a close, cannot shorten the moment a low number is in use anyway). */
static int open_brief(const char *path)
{
    return REAL(open)(path, O_RDONLY | O_CLOEXEC);
}

static int read_at(int fd, void *p, size_t n, uint64_t off)
{
    return pread(fd, p, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

#define SHDR_LEAD 4096 /* bytes before the section headers read with them */

/* [off, off + n) of the file, from buf (the file's bytes from `from`, len of them) when it holds
 * them, else read into *own (freed by the caller); NULL if it cannot be read. */
static const char *bytes_at(const unsigned char *buf, uint64_t from, size_t len, uint64_t off,
                            size_t n, int fd, char **own)
{
    if (off >= from && off - from <= len && n <= len - (off - from))
        return (const char *)buf + (off - from);
    if (n > (1u << 20) || !(*own = malloc(n)) || read_at(fd, *own, n, off) != 0) return NULL;
    return *own;
}

/* The .gnu_debuglink name of the ELF file open on fd into link; 0 if it has none. Its header is
 * mem (the module's as mapped) when not NULL. The section headers are read with the SHDR_LEAD
 * bytes before them, where linkers and objcopy put the section names and the debug link: one
 * read, where a read each took three system calls. */
static int debuglink(int fd, const Elf64_Ehdr *mem, char *link, size_t cap)
{
    Elf64_Ehdr eh;
    if (mem)
        eh = *mem;
    else if (read_at(fd, &eh, sizeof eh, 0) != 0)
        return 0;
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > 4096 ||
        eh.e_shstrndx >= eh.e_shnum)
        return 0;
    uint64_t from = eh.e_shoff > SHDR_LEAD ? eh.e_shoff - SHDR_LEAD : 0;
    size_t len = (size_t)(eh.e_shoff - from) + eh.e_shnum * sizeof(Elf64_Shdr);
    unsigned char *buf = malloc(len);
    Elf64_Shdr *sh = malloc(eh.e_shnum * sizeof *sh);
    char *names_own = NULL, *link_own = NULL;
    int found = 0;
    if (!buf || !sh || read_at(fd, buf, len, from) != 0) goto out;
    memcpy(sh, buf + (eh.e_shoff - from), eh.e_shnum * sizeof *sh); /* (aligned) */
    const Elf64_Shdr *ns = &sh[eh.e_shstrndx];
    const char *names =
        ns->sh_size ? bytes_at(buf, from, len, ns->sh_offset, ns->sh_size, fd, &names_own) : NULL;
    if (!names) goto out;
    for (size_t i = 0; i < eh.e_shnum && !found; i++) {
        static const char want[] = ".gnu_debuglink"; /* compared with its NUL */
        if (sh[i].sh_name >= ns->sh_size || ns->sh_size - sh[i].sh_name < sizeof want ||
            memcmp(names + sh[i].sh_name, want, sizeof want) != 0 || sh[i].sh_size < 2)
            continue;
        size_t n = sh[i].sh_size < cap ? sh[i].sh_size : cap - 1;
        const char *at = bytes_at(buf, from, len, sh[i].sh_offset, n, fd, &link_own);
        if (!at) break;
        memcpy(link, at, n);
        link[n] = 0;
        found = link[0] != 0 && strlen(link) < n;
    }
out:
    free(link_own);
    free(names_own);
    free(sh);
    free(buf);
    return found;
}

/* The path the module is opened by: the program's as its file was named when recording began
 * (modules.h), opened at once where /proc/self/exe costs a procfs lookup (28 us at a cold exit),
 * else through /proc/self/exe. */
static const char *open_name(const struct symcache_module *m)
{
    if (m->name[0]) return m->name;
    const char *exe = modules_program();
    return exe ? exe : "/proc/self/exe";
}

/* m's real path (as /proc/self/maps names it), found once; NULL if unknown. */
static const char *real_path(struct symcache_module *m)
{
    if (m->path || m->name[0]) return m->path ? m->path : (m->path = realpath(m->name, NULL));
    const char *exe = modules_program();
    if (exe) return m->path = strdup(exe);
    char buf[GT_PATH_MAX]; /* the program: one readlink, not realpath's one per component */
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return NULL;
    buf[n] = 0;
    return m->path = strdup(buf);
}

/* A hash of the identity of every debug file symbolize.c's find_debuginfo would try for m:
 * by build ID under /usr/lib/debug, and by .gnu_debuglink beside the file, in its .debug/ and
 * under /usr/lib/debug. */
static uint64_t debug_state(struct symcache_module *m, const char *hex)
{
    char p[GT_PATH_MAX], link[256];
    uint64_t h = 0xcbf29ce484222325ull;
    snprintf(p, sizeof p, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
    h = mix_file(h, p);
    int fd = open_brief(open_name(m));
    if (fd < 0 && !m->name[0]) fd = open_brief("/proc/self/exe"); /* renamed or removed */
    if (fd < 0) return h;
    int has = debuglink(fd, m->ehdr, link, sizeof link);
    REAL(close)(fd);
    if (!has || strchr(link, '/')) return h;
    const char *file = real_path(m) ? m->path : open_name(m);
    const char *slash = strrchr(file, '/');
    int d = slash ? (int)(slash - file) : 0;
    static const char *const forms[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        snprintf(p, sizeof p, forms[i], d, file, link);
        h = mix_file(h, p);
    }
    return h;
}

/* ---- the cache file ---- */

static size_t slot_of(const struct symcache_module *m, uint64_t off)
{
    size_t i = (size_t)(off * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1);
    while (m->tab[i].at && m->tab[i].off != off)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* The number written at *p in base 10 or 16 (lowercase, as symcache_put writes it) into *v,
 * *p moved past its digits; 0 when there is none or it does not fit 64 bits. */
static int number(const char **p, unsigned base, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    for (;; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (d > 9 && base == 16) d = *s >= 'a' && *s <= 'f' ? (unsigned)(*s - 'a' + 10) : base;
        if (d >= base) break;
        if (x > (UINT64_MAX - d) / base) return 0;
        x = x * base + d;
    }
    if (s == *p) return 0;
    *p = s;
    *v = x;
    return 1;
}

/* Indexes the whole lines of m->buf (len bytes) by offset; the first line of an offset wins. */
static void index_lines(struct symcache_module *m, size_t len)
{
    size_t lines = 0;
    for (const char *at = m->buf, *end = at + len; (at = memchr(at, '\n', (size_t)(end - at)));
         at++)
        lines++;
    for (m->cap = 16; m->cap < 2 * lines;)
        m->cap *= 2;
    if (!(m->tab = calloc(m->cap, sizeof *m->tab))) return;
    for (char *at = m->buf, *nl; (nl = memchr(at, '\n', len - (size_t)(at - m->buf))) != NULL;
         at = nl + 1) {
        int data = *at == '~';
        const char *p = at + data;
        uint64_t off;
        if (!number(&p, 16, &off) || *p != (data ? '\t' : ' ') || off >= DATA_KEY) continue;
        off |= data ? DATA_KEY : 0;
        size_t i = slot_of(m, off);
        if (!m->tab[i].at) m->tab[i] = (struct slot){off, at};
    }
}

/* The file open on fd, read whole into *buf (NUL-terminated: freed by the caller) by reads of a
 * growing buffer until one comes back short (no fstat: a system call less); its length. *buf is
 * NULL when it is larger than MAX_FILE_BYTES or memory ran out. */
static size_t read_whole(int fd, char **buf)
{
    size_t len = 0, cap = 16u << 10;
    char *b = malloc(cap + 1);
    for (ssize_t k; b && (k = pread(fd, b + len, cap - len, (off_t)len)) > 0;) {
        len += (size_t)k;
        if (len < cap) break; /* the end (a line being appended meanwhile is cut: skipped) */
        char *grown = cap < MAX_FILE_BYTES ? realloc(b, 4 * cap + 1) : NULL;
        if (!grown) free(b);
        b = grown;
        cap *= 4;
    }
    if (b) b[len] = 0;
    *buf = b;
    return len;
}

static void load(struct symcache_module *m)
{
    m->loaded = 1;
    static const char digits[] = "0123456789abcdef";
    char hex[2 * MAX_BUILD_ID + 1];
    for (size_t i = 0; i < m->idlen; i++) {
        hex[2 * i] = digits[m->id[i] >> 4];
        hex[2 * i + 1] = digits[m->id[i] & 15];
    }
    hex[2 * m->idlen] = 0;
    char file[GT_PATH_MAX];
    int n = snprintf(file, sizeof file, "%s/%s.%016llx.sym", dir, hex,
                     (unsigned long long)debug_state(m, hex));
    if (n < 0 || (size_t)n >= sizeof file || !(m->file = strdup(file))) return;
    m->writable = 1;
    int fd = open_brief(m->file); /* read with pread: never a stream's data */
    if (fd < 0) return;
    size_t len = read_whole(fd, &m->buf);
    REAL(close)(fd);
    if (!m->buf) {
        m->writable = 0; /* too big, or no memory */
        return;
    }
    m->size = len;
    index_lines(m, len);
}

/* The next tab-separated field of a line at *p (up to end): its start and length. */
static const char *field(const char **p, const char *end, size_t *len)
{
    if (*p >= end || **p != '\t') return NULL;
    const char *s = ++*p;
    while (*p < end && **p != '\t')
        ++*p;
    *len = (size_t)(*p - s);
    return s;
}

int symcache_get(struct symcache_module *m, uintptr_t pc, struct sym_frame *out, int max,
                 uint32_t *runtime)
{
    if (!m->loaded) load(m);
    if (!m->tab) return 0;
    const char *at = m->tab[slot_of(m, pc - m->bias)].at;
    if (!at) return 0;
    const char *end = strchr(at, '\n'), *p = at;
    uint64_t off, bits, n, line;
    if (!number(&p, 16, &off) || *p++ != ' ' || !number(&p, 16, &bits) || *p++ != ' ' ||
        !number(&p, 10, &n) || n < 1 || n > (uint64_t)max)
        return 0;
    for (int k = 0; k < (int)n; k++) {
        size_t flen = 0, plen = 0, llen = 0;
        const char *func = field(&p, end, &flen), *file = field(&p, end, &plen);
        const char *at_line = field(&p, end, &llen), *line_end = at_line;
        if (!func || !file || !at_line || !flen || (plen && *file != 'm' && *file != 'f') ||
            !number(&line_end, 10, &line) || line_end != at_line + llen)
            return 0;
        uint64_t file_str = 0;
        if (plen && *file == 'f') {
            file_str = str_intern(file + 1, plen - 1);
        } else if (plen) {
            file_str = real_path(m) ? str_intern_cstr(m->path) : 0;
        }
        out[k] =
            (struct sym_frame){pc | (uintptr_t)k << 56, str_intern(func, flen), file_str, line};
    }
    if (p != end) return 0;
    *runtime = (uint32_t)bits;
    return (int)n;
}

/* mkdir -p dir, mode 0700; 0 when it exists. */
static int make_dir(void)
{
    char p[GT_PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s) continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) return -1;
        if (!(*s = c)) return 0;
    }
}

/* Appends a field: prefix and the text of string id (nothing for id 0) to buf at *len; -1 if
 * it does not fit or the text holds a tab or a newline. */
static int put_field(char *buf, size_t cap, size_t *len, const char *prefix, uint64_t id)
{
    size_t n = 0;
    const char *s = id ? str_get(id, &n) : "";
    if (!s || memchr(s, '\t', n) || memchr(s, '\n', n)) return -1;
    int k = snprintf(buf + *len, cap - *len, "\t%s%.*s", id ? prefix : "", (int)n, s);
    if (k < 0 || (size_t)k >= cap - *len) return -1;
    *len += (size_t)k;
    return 0;
}

/* The hex digits at *p (at least min, at most max) skipped; 0 if there are not that many. */
static int skip_hex(const char **p, size_t min, size_t max)
{
    size_t n = strspn(*p, "0123456789abcdef");
    *p += n;
    return n >= min && n <= max;
}

/* Whether name is a cache file's: BUILDID.STATE.sym (load). */
static int cache_name(const char *name)
{
    return skip_hex(&name, 2, 2 * MAX_BUILD_ID) && *name++ == '.' && skip_hex(&name, 16, 16) &&
           strcmp(name, ".sym") == 0;
}

/* Removes the cache files that no run has added to for KEEP_DAYS: those of builds replaced
 * (each build of a program or library has a build ID of its own) or of a debug state gone.
 * Done when this process makes a new cache file, so a machine's runs scan the directory only
 * when something new is cached. A file removed that a later run needs is made again (libdw
 * once for its pcs). Only names of the cache's own form are looked at. */
static void prune(void)
{
    DIR *d = opendir(dir);
    if (!d) return;
    time_t cut = time(NULL) - (time_t)KEEP_DAYS * 24 * 3600;
    struct stat st;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (cache_name(e->d_name) && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode) && st.st_mtime < cut)
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

/* Appends one whole line (or several) to m's file, with one write. The first line of a file
 * this process makes prunes the directory (once a process). */
static void append(struct symcache_module *m, const char *buf, size_t len)
{
    static int pruned;
    if (m->size + len > MAX_FILE_BYTES || (!dir_made && make_dir() != 0)) return;
    dir_made = 1;
    int fd = open(m->file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        m->writable = 0;
        return;
    }
    fd = fds_high(fd);
    int made = m->size == 0;
    if (write(fd, buf, len) == (ssize_t)len)
        m->size += len;
    else
        m->writable = 0;
    close(fd);
    if (made && !pruned) {
        pruned = 1;
        prune();
    }
}

void symcache_put(struct symcache_module *m, uintptr_t pc, const struct sym_frame *f, int n,
                  uint32_t runtime, int modpath)
{
    if (!m->loaded) load(m);
    if (!m->writable || n < 1) return;
    size_t cap = 64 + (size_t)n * (2 * 4096 + 32), len = 0;
    char *buf = malloc(cap);
    if (!buf) return;
    int k = snprintf(buf, cap, "%llx %x %d", (unsigned long long)(pc - m->bias), runtime, n);
    int ok = k > 0;
    len = ok ? (size_t)k : 0;
    for (int i = 0; ok && i < n; i++) {
        ok = f[i].func_str != 0 && put_field(buf, cap, &len, "", f[i].func_str) == 0;
        if (ok && modpath) { /* the path is this process's name of the module */
            ok = put_field(buf, cap, &len, "", 0) == 0 && len + 1 < cap;
            if (ok) buf[len++] = 'm';
        } else if (ok) {
            ok = put_field(buf, cap, &len, "f", f[i].file_str) == 0;
        }
        k = ok ? snprintf(buf + len, cap - len, "\t%llu", (unsigned long long)f[i].line) : -1;
        ok = k > 0 && (size_t)k < cap - len - 1;
        len += ok ? (size_t)k : 0;
    }
    if (ok) {
        buf[len++] = '\n';
        append(m, buf, len);
    }
    free(buf);
}

int symcache_get_data(struct symcache_module *m, uintptr_t addr, char *buf, size_t cap)
{
    if (!m->loaded) load(m);
    const char *at = m->tab ? m->tab[slot_of(m, (addr - m->bias) | DATA_KEY)].at : NULL;
    if (!at || cap == 0) return -1;
    const char *name = strchr(at, '\t') + 1;
    size_t n = (size_t)(strchr(name, '\n') - name);
    if (n >= cap) n = cap - 1;
    memcpy(buf, name, n);
    buf[n] = 0;
    return (int)n;
}

void symcache_put_data(struct symcache_module *m, uintptr_t addr, const char *name, size_t len)
{
    if (!m->loaded) load(m);
    if (!m->writable || memchr(name, '\t', len) || memchr(name, '\n', len)) return;
    char buf[64 + 1024];
    int n = snprintf(buf, sizeof buf, "~%llx\t%.*s\n", (unsigned long long)(addr - m->bias),
                     (int)len, name);
    if (n > 0 && (size_t)n < sizeof buf) append(m, buf, (size_t)n);
}

void symcache_forget(void)
{
    drop_modules();
}
