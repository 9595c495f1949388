/* syncobj_encode.c: sync objects' names and records, written by the flusher. See
 * syncobj_encode.h. An object in a shared mapping (a process-shared mutex, rwlock, condvar,
 * semaphore or futex word in a file, /dev/shm or shared anonymous memory) is named by the
 * mapping and offset, not its address, so every process's trace names it alike
 * (docs/blocking.md "Across processes"). */
#include "syncobj_encode.h"

#include "event.h"
#include "go_wire.h"
#include "lockorder.h"
#include "pages.h"
#include "stack.h"
#include "strtab.h"
#include "symbolize.h"
#include "syncobj.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOT_STATIC UINT64_MAX /* an object's name word: it has no static name */

/* The text of string id (NULL if unknown). */
static const char *text_of(uint64_t id)
{
    size_t len;
    return id ? str_get(id, &len) : NULL;
}

/* "func (file:line)" of frame f into buf. */
static int frame_text(const struct sym_frame *f, char *buf, size_t cap)
{
    const char *fn = text_of(f->func_str), *file = text_of(f->file_str);
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : file;
    if (base && f->line)
        return snprintf(buf, cap, "%s (%s:%llu)", fn ? fn : "?", base, (unsigned long long)f->line);
    return snprintf(buf, cap, "%s", fn ? fn : "?");
}

/* "func (file:line)" of return address pc into buf: the call's own line (inlined frames
 * follow). */
static int site_text(uintptr_t pc, char *buf, size_t cap)
{
    struct sym_frame fr[8];
    if (sym_lookup(pc, fr, 8) < 1) return snprintf(buf, cap, "%#lx", (unsigned long)pc);
    return frame_text(&fr[0], buf, cap);
}

/* Whether function fn belongs to a language's runtime library that a wait passes through
 * before the program's own code: Rust's std, core and alloc, C++'s std (also as an impl's type,
 * "<std::sys::sync::mutex::futex::Mutex>::lock") and libstdc++'s gthreads wrappers
 * (__gthread_mutex_lock, inlined in std::mutex::lock). */
static int runtime_fn(const char *fn)
{
    static const char *const libs[] = {"std::", "core::", "alloc::", "__gthread_"};
    fn += fn[0] == '<';
    for (size_t k = 0; k < sizeof libs / sizeof *libs; k++)
        if (!strncmp(fn, libs[k], strlen(libs[k]))) return 1;
    return 0;
}

/* The kind of lock a runtime frame fn waits for, from its type (Rust's std locks on futex
 * words: "<std::sys::sync::mutex::futex::Mutex>::lock_contended"), NULL if none. */
static const char *runtime_kind(const char *fn)
{
    static const char *const kinds[][2] = {
        {"::Mutex", "mutex"}, {"::RwLock", "rwlock"}, {"::Condvar", "condvar"}};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (strstr(fn, kinds[k][0])) return kinds[k][1];
    return NULL;
}

/* Where a wait with return addresses pcs[0, np) (pcs[0]: the waiting call) was made, into buf:
 * the first frame outside the runtime libraries (runtime_fn), inlined frames included, else
 * the caller of the waiting call. *kind: the lock type of the innermost runtime frame that
 * names one (runtime_kind), else unchanged. Returns the length. */
static int wait_site(const uintptr_t *pcs, int np, char *buf, size_t cap, const char **kind)
{
    const char *k = NULL;
    for (int i = 1; i < np; i++) {
        struct sym_frame fr[8];
        int n = sym_lookup(pcs[i], fr, 8);
        for (int j = 0; j < n; j++) {
            const char *fn = text_of(fr[j].func_str);
            if (fn && !runtime_fn(fn)) {
                if (k && kind) *kind = k;
                return frame_text(&fr[j], buf, cap);
            }
            if (fn && !k && kind) k = runtime_kind(fn);
        }
    }
    return site_text(pcs[np > 1 ? 1 : 0], buf, cap);
}

/* ---- objects in shared memory: named by the mapping's file and offset ---- */

/* The process's shared mappings (MAP_SHARED: a file, POSIX shared memory in /dev/shm, shared
 * anonymous memory), read from /proc/self/maps at most once a generation, when an object not
 * named yet is looked up (maps_stale: so_encode sets it at each generation's end). */
#define MAX_SHARED 128
static struct shared_map {
    uintptr_t lo, hi;
    unsigned long long off, ino;
    unsigned dev_major, dev_minor;
    char path[96]; /* the file mapped, "" for anonymous memory */
} shared_maps[MAX_SHARED];
static int nshared, maps_stale = 1;

/* One line of /proc/self/maps as *m: 1 if its mapping is shared, else 0. */
static int parse_shared(const char *line, struct shared_map *out)
{
    struct shared_map m;
    char perms[8];
    int pos = 0;
    if (sscanf(line, "%lx-%lx %7s %llx %x:%x %llu %n", &m.lo, &m.hi, perms, &m.off, &m.dev_major,
               &m.dev_minor, &m.ino, &pos) < 7 ||
        perms[3] != 's')
        return 0;
    const char *path = line + pos;
    size_t len = strcspn(path, "\n");
    const char *del = strstr(path, " (deleted)"); /* unlinked since: still the same inode */
    if (del && del < path + len) len = (size_t)(del - path);
    if (*path != '/' || len >= sizeof m.path ||
        (m.dev_major == 0 && m.dev_minor == 1 && del && !strncmp(path, "/dev/zero", len)))
        len = 0; /* shared anonymous memory (or a path too long) */
    snprintf(m.path, sizeof m.path, "%.*s", (int)len, path);
    *out = m;
    return 1;
}

/* One line of /proc/self/maps into shared_maps if its mapping is shared. */
static void shared_line(const char *line)
{
    if (nshared < MAX_SHARED && parse_shared(line, &shared_maps[nshared])) nshared++;
}

/* m's name for the object at addr in it (shared_name's form); its length. */
static int map_name(const struct shared_map *m, uintptr_t addr, char *buf, size_t cap)
{
    unsigned long long off = m->off + (addr - m->lo);
    int n = snprintf(buf, cap, "shared %s+0x%llx [%02x:%02x %llu]", m->path[0] ? m->path : "anon",
                     off, m->dev_major, m->dev_minor, m->ino);
    return n < 0 ? 0 : n >= (int)cap ? (int)cap - 1 : n;
}

int so_shared_name_now(uintptr_t addr, char *buf, size_t cap)
{
    char chunk[1024], line[512];
    size_t ll = 0;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC), k = 0;
    if (fd < 0) return 0;
    ssize_t n;
    while (!k && (n = syscall(SYS_read, fd, chunk, sizeof chunk)) > 0)
        for (ssize_t i = 0; i < n && !k; i++) {
            if (ll < sizeof line - 1) line[ll++] = chunk[i];
            if (chunk[i] != '\n') continue;
            line[ll] = 0;
            ll = 0;
            struct shared_map m;
            if (parse_shared(line, &m) && addr >= m.lo && addr < m.hi)
                k = map_name(&m, addr, buf, cap);
        }
    syscall(SYS_close, fd);
    return k;
}

/* Reads the shared mappings anew (the flusher's own read: no hook traces it). */
static void shared_read(void)
{
    static char chunk[8192];
    char line[512];
    size_t ll = 0;
    nshared = 0;
    maps_stale = 0;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (ll < sizeof line - 1) line[ll++] = chunk[i];
            if (chunk[i] != '\n') continue;
            line[ll] = 0;
            shared_line(line);
            ll = 0;
        }
    close(fd);
}

/* The name of the object at addr if it lies in a shared mapping, "shared FILE+0xOFFSET
 * [MAJ:MIN INODE]" ("anon" for shared anonymous memory; FILE as it was mapped, even if
 * unlinked since), the same in every process that maps the object: the device, inode and
 * offset identify it; its length, 0 if not shared. */
static int shared_name(uintptr_t addr, char *buf, size_t cap)
{
    if (maps_stale) shared_read();
    for (int i = 0; i < nshared; i++)
        if (addr >= shared_maps[i].lo && addr < shared_maps[i].hi)
            return map_name(&shared_maps[i], addr, buf, cap);
    return 0;
}

/* The object's name (no reason) into buf; its length. *kind (kind not NULL): the lock type its
 * first wait's runtime frames name (wait_site), else unchanged. */
static int name_of(uintptr_t addr, char *buf, size_t cap, const char **kind)
{
    struct so_object o = so_object_at(addr);
    uint64_t st = o.name;
    if (!st) { /* once per object: a shared mapping's place, else the module's DWARF */
        int k = shared_name(addr, buf, cap);
        if (!k) k = sym_data(addr, buf, cap);
        st = k > 0 ? str_intern(buf, (size_t)k) : 0;
        so_set_name(addr, st ? st : NOT_STATIC);
    }
    uintptr_t init = o.init_pc;
    uint64_t stk = o.wait_stk;
    const uintptr_t *pcs;
    int np = stk ? stack_pcs(stk, &pcs) : 0;
    const char *text = st && st != NOT_STATIC ? text_of(st) : NULL;
    char site[512];
    int sn = np && (kind || (!text && !init)) ? wait_site(pcs, np, site, sizeof site, kind) : 0;
    int n = text ? snprintf(buf, cap, "%s", text) : 0;
    if (text) return n < 0 ? 0 : n >= (int)cap ? (int)cap - 1 : n;
    n = snprintf(buf, cap, "%#lx", (unsigned long)addr);
    if (n < 0 || (size_t)n >= cap) return n < 0 ? 0 : (int)cap - 1;
    const char *how = init ? " from " : np ? " first waited in " : "";
    int k = snprintf(buf + n, cap - (size_t)n, "%s", how);
    if (k > 0 && (size_t)(n + k) < cap) {
        n += k;
        if (init) /* the caller of pthread_*_init, or where the program waited */
            k = site_text(init, buf + n, cap - (size_t)n);
        else
            k = sn > 0 ? snprintf(buf + n, cap - (size_t)n, "%s", site) : 0;
        if (k > 0) n += k;
    }
    return n >= (int)cap ? (int)cap - 1 : n;
}

int so_text(const char *s, size_t len, char *buf, size_t cap)
{
    uint64_t base;
    uintptr_t addr;
    if (!so_placeholder(s, len, &base, &addr)) return -1;
    const char *b = text_of(base), *kind = NULL;
    int futex = b && !strcmp(b, "sync: futex"); /* maybe the word of a runtime's lock */
    char name[1024];
    name_of(addr, name, sizeof name, futex ? &kind : NULL);
    int n = kind ? snprintf(buf, cap, "sync: %s %s", kind, name)
                 : snprintf(buf, cap, "%s %s", b ? b : "sync:", name);
    return n < 0 ? 0 : n >= (int)cap ? (int)cap - 1 : n;
}

/* The batch being filled (one generation's records at a time: the flusher's alone). */
static struct {
    struct gt_bytes *out;
    uint64_t fg;
    size_t len;
    uint8_t payload[GO_MAX_BATCH_PAYLOAD];
} B GT_BIG;

/* Writes the batch filled so far, if any. */
static void batch_flush(void)
{
    if (!B.len) return;
    enc_put(B.out, (uint8_t[]){GO_EV_EXPERIMENTAL_BATCH, GT_EXP_SYNC}, 2);
    enc_uv(B.out, B.fg);
    enc_uv(B.out, GO_NO_THREAD);
    enc_uv(B.out, 0);
    enc_uv(B.out, B.len);
    enc_put(B.out, B.payload, B.len);
    B.len = 0;
}

/* Appends one record: type, then n values. */
static void put(uint8_t type, const uint64_t *v, int n)
{
    if (B.len + (size_t)(n + 1) * GO_MAX_UVARINT_LEN > sizeof B.payload) batch_flush();
    B.payload[B.len++] = type;
    for (int k = 0; k < n; k++)
        B.len = (size_t)(ev_put_uvarint(B.payload + B.len, v[k]) - B.payload);
}

/* The values a record of type holds (go_wire.h). */
static int nvalues(uint8_t type)
{
    return type == GT_SYNC_ORDER ? 9 : type == GT_SYNC_RELEASE ? 4 : 5;
}

/* A hold statistic of lockorder.h as a GT_SYNC_HOLD record, timed ts. */
static void put_hold(void *ctx, const uint64_t h[7])
{
    uint64_t ts = *(const uint64_t *)ctx;
    const uint64_t v[9] = {ts, 0, h[0], h[1], h[2], h[3], h[4], h[5], h[6]};
    put(GT_SYNC_HOLD, v, 9);
}

void so_encode(struct gt_bytes *out, uint64_t gen, uint64_t fg)
{
    unsigned n;
    const struct so_rec *recs = so_records(gen, &n);
    B.out = out;
    B.fg = fg;
    B.len = 0;
    for (int pass = 0; pass < 2; pass++) /* waits and releases first: go_wire.h */
        for (unsigned i = 0; i < n; i++) {
            const struct so_rec *r = &recs[i];
            int ext = r->type != GT_SYNC_WAIT && r->type != GT_SYNC_RELEASE;
            if (ext != pass) continue;
            const uint64_t v[9] = {r->ts,   r->m,    r->addr, r->a,   r->b,
                                   r->v[0], r->v[1], r->v[2], r->v[3]};
            put(r->type, v, nvalues(r->type));
        }
    if (lo__on & LO_HOLDS) {
        uint64_t ts = gt_now();
        lo_foreach_changed(gen, put_hold, &ts);
    }
    batch_flush();
    so_drop_records(gen);
    maps_stale = 1; /* mappings may change before the next generation's new objects */
}
