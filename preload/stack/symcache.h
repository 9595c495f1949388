/* symcache.h: the machine's cache of resolved frames, one file per module and debug state
 * (docs/stacks.md, "The symbol cache"), so that a big module's DWARF is read once per machine,
 * not once per process.
 * Invariants: flusher only (single-threaded, as symbolize.c); a module is cached only when it
 * is a file with a GNU build ID; its cache file is named by that build ID and by the identity
 * (inode, size, mtime) of every local debug file symbolize.c could read for it, so a debug
 * file installed, replaced or removed later gives a new file, never a stale answer; entries
 * are whole lines appended with one write each (O_APPEND), so processes that share a cache
 * file never interleave, and a line that does not parse is skipped; a process that makes a
 * new cache file removes the directory's cache files that no run added to for 30 days (and no
 * other file). Off (every call a miss or a no-op) until symcache_dir names a directory. */
#ifndef GOTRACE_SYMCACHE_H
#define GOTRACE_SYMCACHE_H
#include <stddef.h>
#include <stdint.h>

/* One frame of a pc (symbolize.h). */
struct sym_frame {
    uintptr_t pc;      /* identity of the frame in the Stacks batch */
    uint64_t func_str; /* string id, 0 if unknown */
    uint64_t file_str; /* string id, 0 if unknown */
    uint64_t line;
};

/* The cache's directory (created when first written, mode 0700); "" turns the cache off.
 * Called once, before the first lookup. */
void symcache_dir(const char *dir);

struct symcache_module;
/* The loaded module holding pc when it can be cached, else NULL. */
struct symcache_module *symcache_module(uintptr_t pc);
/* The cached frames of pc (a real return address in m) into out (at most max, the k-th with
 * .pc == pc | k << 56) and their runtime bits: how many, 0 on a miss. */
int symcache_get(struct symcache_module *m, uintptr_t pc, struct sym_frame *out, int max,
                 uint32_t *runtime);
/* Records the frames that symbolize.c resolved for pc in m (their strings' text). modpath:
 * the only frame's file is the module's own path (the ELF-symbol fallback), which is stored
 * as such and given back as the module's path in this process. */
void symcache_put(struct symcache_module *m, uintptr_t pc, const struct sym_frame *f, int n,
                  uint32_t runtime, int modpath);
/* The cached name of the static object at data address addr in m (sym_data) into buf (cap
 * bytes, NUL-terminated): its length, 0 for "no name", -1 on a miss. */
int symcache_get_data(struct symcache_module *m, uintptr_t addr, char *buf, size_t cap);
/* Records sym_data's answer for addr: name (len bytes; 0: none). */
void symcache_put_data(struct symcache_module *m, uintptr_t addr, const char *name, size_t len);
/* Forgets the module table and every loaded cache file (after code was unloaded). */
void symcache_forget(void);
#endif
