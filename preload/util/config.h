/* config.h: the tracer's configuration, read once from GOTRACE_* environment variables.
 * Invariants: parsing never fails: a bad value produces one "gotrace: " warning (through the
 * warn callback) and the default; the parser takes its environment through a callback so it
 * can be unit-tested, and allocates nothing (strings are copied into fixed arrays). */
#ifndef GOTRACE_CONFIG_H
#define GOTRACE_CONFIG_H
#include <stddef.h>
#include <stdint.h>

#define GT_PATH_MAX 4096

/* The strings last: config_defaults zeroes the fields before them and writes each string's
 * first bytes, so a start-up touches two pages of it, not all three. */
struct gt_config {
    uint32_t period_ms;            /* GOTRACE_PERIOD_MS, default 1000, range 10..3600000 */
    int stacks;                    /* GOTRACE_STACKS, default 1 (0 or 1) */
    uint32_t stack_depth;          /* GOTRACE_STACK_DEPTH, default 32, range 1..128 */
    uint32_t buf_kb;               /* GOTRACE_BUF_KB: per-buffer size, default 64, range 4..64 */
    uint32_t flush_mb;             /* GOTRACE_FLUSH_MB: buffered data that forces an early
                                      generation, default 2, range 1..4096 */
    uint32_t cpu_hz;               /* GOTRACE_CPU_HZ: CPU samples per second of each thread's
                                      CPU time, default 0 (off), range 0..1000 */
    int tsc;                       /* GOTRACE_TSC, default 1: time events with the TSC where the
                                      kernel's clock does (clock.h); 0 = CLOCK_MONOTONIC */
    int debug;                     /* GOTRACE_DEBUG, default 0 (0 or 1): tracer log on stderr */
    int disable;                   /* GOTRACE_DISABLE, default 0: 1 = load but trace nothing */
    int flight;                    /* GOTRACE_MODE: "file" (default, 0) or "flight" (1): keep the
                                      last flight_s seconds in memory, write them when asked */
    uint32_t flight_s;             /* GOTRACE_FLIGHT_S: the window, default 10, range 1..3600 */
    uint32_t flight_mb;            /* GOTRACE_FLIGHT_MB: its cap, default 64, range 1..4096 */
    uint32_t flight_signal;        /* GOTRACE_FLIGHT_SIGNAL: the trigger, default SIGUSR2 (12),
                                      range 0..64, 0 = none */
    int flight_at_exit;            /* GOTRACE_FLIGHT_AT_EXIT, default 0: 1 = a dump at exit */
    int live;                      /* GOTRACE_LIVE, default 1: buffers in a live file on tmpfs,
                                      so a killed run can be recovered (util/arena.h); 0 = off */
    uint32_t hang_ms;              /* GOTRACE_HANG_MS: report threads stuck this long in a
                                      deadlock (flush/hang.h), default 0 (off), 0..3600000 */
    int lock_order;                /* GOTRACE_LOCK_ORDER, default 0: 1 = record lock order */
    int lock_holds;                /* GOTRACE_LOCK_HOLDS, default 0: 1 = time every lock hold */
    char out_pattern[GT_PATH_MAX]; /* GOTRACE_OUT, default "gotrace.%p.trace" */
    char symcache[GT_PATH_MAX];    /* GOTRACE_SYMCACHE: the symbol cache's directory, default
                                      $XDG_CACHE_HOME/gotrace or $HOME/.cache/gotrace; "" = off
                                      (GOTRACE_SYMCACHE=0, or neither variable set) */
    char waits[GT_PATH_MAX];       /* GOTRACE_WAITS: the file whose first page the processes of a
                                      recorded tree share (util/pipes.h), set by `gotrace
                                      record`; default "" (nothing shared) */
    int pipes; /* GOTRACE_PIPES: pipe and socket reads that wait as blocks (util/pipes.h); default
                  on with GOTRACE_WAITS (under record), else off */
};

typedef const char *(*config_getenv_fn)(const char *name);
typedef void (*config_warn_fn)(const char *msg);
void config_defaults(struct gt_config *c);
void config_parse(struct gt_config *c, config_getenv_fn getenv_fn, config_warn_fn warn);
/* Expand %p (pid) and %% in pattern into out (size outsz). Returns 0, or -1 if too long. */
int config_expand_path(const char *pattern, long pid, char *out, size_t outsz);
/* Whether config_expand_path puts the pid in pattern's expansion (it has a %p). */
int config_path_has_pid(const char *pattern);
#endif
