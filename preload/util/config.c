/* config.c: GOTRACE_* environment variables -> struct gt_config (see config.h).
 * Invariants:
 *  - config_parse never fails: every field ends up either the parsed value or its default.
 *  - An unset or empty variable means the default, silently. A bad value (garbage, out of
 *    range, too long) produces exactly one warning through the warn callback, naming the
 *    variable and the bad value and saying which default is used. The message carries no
 *    "gotrace: " prefix: the callback is expected to print it through gt_log, which adds it.
 *  - Integers are plain decimal digits (no sign, no spaces), ranges are inclusive. Booleans
 *    accept 0/1/true/false/yes/no/on/off, ASCII case-insensitive.
 *  - Nothing here allocates or depends on the locale: it runs in the library constructor,
 *    before the program's main and possibly before malloc is usable. Strings are copied into
 *    the fixed arrays of struct gt_config; messages are built in stack buffers. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_OUT "gotrace.%p.trace"
#define SHOWN_VALUE_MAX 64 /* bytes of a bad value quoted in a warning */

void config_defaults(struct gt_config *c)
{
    memset(c, 0, offsetof(struct gt_config, out_pattern));
    memcpy(c->out_pattern, DEFAULT_OUT, sizeof DEFAULT_OUT);
    c->symcache[0] = '\0';
    c->waits[0] = '\0';
    c->pipes = -1; /* decided by GOTRACE_WAITS */
    c->period_ms = 1000;
    c->stacks = 1;
    c->stack_depth = 32;
    c->buf_kb = 64;
    c->flush_mb = 2;
    c->cpu_hz = 0;
    c->tsc = 1;
    c->debug = 0;
    c->disable = 0;
    c->flight = 0;
    c->flight_s = 10;
    c->flight_mb = 64;
    c->flight_signal = 12; /* SIGUSR2 on Linux */
    c->live = 1;
    c->flight_at_exit = 0;
    c->hang_ms = 0;
    c->lock_order = 0;
    c->lock_holds = 0;
}

/* Copies at most SHOWN_VALUE_MAX bytes of v into out, non-printable bytes as '?', "..." if
 * cut. out must hold SHOWN_VALUE_MAX + 4 bytes. */
static void show_value(const char *v, char *out)
{
    size_t i = 0;
    for (; v[i] != '\0' && i < SHOWN_VALUE_MAX; i++)
        out[i] = (v[i] >= 0x20 && v[i] < 0x7f) ? v[i] : '?';
    if (v[i] != '\0') {
        memcpy(out + i, "...", 3);
        i += 3;
    }
    out[i] = '\0';
}

static void warn_bad(config_warn_fn warn, const char *name, const char *value, const char *why,
                     const char *dflt)
{
    if (warn == NULL) return;
    char shown[SHOWN_VALUE_MAX + 4];
    char msg[384];
    show_value(value, shown);
    snprintf(msg, sizeof msg, "%s=\"%s\" %s; using the default %s", name, shown, why, dflt);
    warn(msg);
}

/* Returns the variable's value, or NULL when it is unset or empty (= use the default). */
static const char *lookup(config_getenv_fn getenv_fn, const char *name)
{
    const char *v = getenv_fn ? getenv_fn(name) : NULL;
    return (v == NULL || v[0] == '\0') ? NULL : v;
}

/* Decimal digits only. 0 = ok, -1 = not a decimal integer, -2 = too large for uint64. */
static int parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    int overflow = 0;
    if (*s == '\0') return -1;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9') return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = 1;
        else
            v = v * 10 + d;
    }
    if (overflow) return -2;
    *out = v;
    return 0;
}

static void parse_range(config_getenv_fn getenv_fn, config_warn_fn warn, const char *name,
                        uint32_t lo, uint32_t hi, uint32_t *field)
{
    const char *v = lookup(getenv_fn, name);
    if (v == NULL) return;
    uint64_t n = 0;
    int rc = parse_u64(v, &n);
    if (rc == 0 && n >= lo && n <= hi) {
        *field = (uint32_t)n;
        return;
    }
    char why[96], dflt[24];
    if (rc == -1)
        snprintf(why, sizeof why, "is not a decimal integer in %u..%u", (unsigned)lo, (unsigned)hi);
    else
        snprintf(why, sizeof why, "is out of range %u..%u", (unsigned)lo, (unsigned)hi);
    snprintf(dflt, sizeof dflt, "%u", (unsigned)*field);
    warn_bad(warn, name, v, why, dflt);
}

/* ASCII case-insensitive equality, locale-free. */
static int word_eq(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b) return 0;
    }
    return *a == *b;
}

static void parse_bool(config_getenv_fn getenv_fn, config_warn_fn warn, const char *name,
                       int *field)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    const char *v = lookup(getenv_fn, name);
    if (v == NULL) return;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (word_eq(v, yes[i])) {
            *field = 1;
            return;
        }
        if (word_eq(v, no[i])) {
            *field = 0;
            return;
        }
    }
    warn_bad(warn, name, v, "is not a boolean (0/1, true/false, yes/no, on/off)",
             *field ? "1" : "0");
}

static void parse_out(config_getenv_fn getenv_fn, config_warn_fn warn, struct gt_config *c)
{
    const char *v = lookup(getenv_fn, "GOTRACE_OUT");
    if (v == NULL) return;
    size_t n = strnlen(v, GT_PATH_MAX);
    if (n >= GT_PATH_MAX) {
        char why[64];
        snprintf(why, sizeof why, "is too long (limit %d bytes)", GT_PATH_MAX - 1);
        warn_bad(warn, "GOTRACE_OUT", v, why, "\"" DEFAULT_OUT "\"");
        return;
    }
    memcpy(c->out_pattern, v, n + 1);
}

/* GOTRACE_SYMCACHE: a directory, or 0 for none; unset: under the XDG cache directory. */
static void parse_symcache(config_getenv_fn getenv_fn, config_warn_fn warn, struct gt_config *c)
{
    const char *v = lookup(getenv_fn, "GOTRACE_SYMCACHE"), *base = NULL, *tail = "";
    if (v == NULL) {
        base = lookup(getenv_fn, "XDG_CACHE_HOME");
        tail = "/gotrace";
        if (base == NULL || base[0] != '/') {
            base = lookup(getenv_fn, "HOME");
            tail = "/.cache/gotrace";
        }
        if (base == NULL) return;
    }
    if (v != NULL && strcmp(v, "0") == 0) return;
    int n = snprintf(c->symcache, sizeof c->symcache, "%s%s", v ? v : base, tail);
    if (n < 0 || (size_t)n >= sizeof c->symcache) {
        c->symcache[0] = 0;
        if (v) warn_bad(warn, "GOTRACE_SYMCACHE", v, "is too long", "no symbol cache");
    }
}

static void parse_mode(config_getenv_fn getenv_fn, config_warn_fn warn, struct gt_config *c)
{
    const char *v = lookup(getenv_fn, "GOTRACE_MODE");
    if (v == NULL || strcmp(v, "file") == 0) return;
    if (strcmp(v, "flight") == 0)
        c->flight = 1;
    else
        warn_bad(warn, "GOTRACE_MODE", v, "is not \"file\" or \"flight\"", "\"file\"");
}

void config_parse(struct gt_config *c, config_getenv_fn getenv_fn, config_warn_fn warn)
{
    config_defaults(c);
    parse_out(getenv_fn, warn, c);
    parse_symcache(getenv_fn, warn, c);
    const char *w = lookup(getenv_fn, "GOTRACE_WAITS");
    if (w && snprintf(c->waits, sizeof c->waits, "%s", w) >= (int)sizeof c->waits) {
        c->waits[0] = 0;
        warn_bad(warn, "GOTRACE_WAITS", w, "is too long", "nothing shared");
    }
    parse_bool(getenv_fn, warn, "GOTRACE_PIPES", &c->pipes);
    if (c->pipes < 0) c->pipes = c->waits[0] != 0;
    parse_range(getenv_fn, warn, "GOTRACE_PERIOD_MS", 10, 3600000, &c->period_ms);
    parse_bool(getenv_fn, warn, "GOTRACE_STACKS", &c->stacks);
    parse_range(getenv_fn, warn, "GOTRACE_STACK_DEPTH", 1, 128, &c->stack_depth);
    parse_range(getenv_fn, warn, "GOTRACE_BUF_KB", 4, 64, &c->buf_kb);
    parse_range(getenv_fn, warn, "GOTRACE_FLUSH_MB", 1, 4096, &c->flush_mb);
    parse_range(getenv_fn, warn, "GOTRACE_CPU_HZ", 0, 1000, &c->cpu_hz);
    parse_range(getenv_fn, warn, "GOTRACE_HANG_MS", 0, 3600000, &c->hang_ms);
    parse_bool(getenv_fn, warn, "GOTRACE_TSC", &c->tsc);
    parse_bool(getenv_fn, warn, "GOTRACE_DEBUG", &c->debug);
    parse_bool(getenv_fn, warn, "GOTRACE_DISABLE", &c->disable);
    parse_bool(getenv_fn, warn, "GOTRACE_LOCK_ORDER", &c->lock_order);
    parse_bool(getenv_fn, warn, "GOTRACE_LOCK_HOLDS", &c->lock_holds);
    parse_mode(getenv_fn, warn, c);
    parse_range(getenv_fn, warn, "GOTRACE_FLIGHT_S", 1, 3600, &c->flight_s);
    parse_range(getenv_fn, warn, "GOTRACE_FLIGHT_MB", 1, 4096, &c->flight_mb);
    parse_range(getenv_fn, warn, "GOTRACE_FLIGHT_SIGNAL", 0, 64, &c->flight_signal);
    parse_bool(getenv_fn, warn, "GOTRACE_FLIGHT_AT_EXIT", &c->flight_at_exit);
    parse_bool(getenv_fn, warn, "GOTRACE_LIVE", &c->live);
}

/* Appends len bytes of s at out[*pos]; -1 if that leaves no room for the final NUL. */
static int put(char *out, size_t outsz, size_t *pos, const char *s, size_t len)
{
    if (len >= outsz - *pos) return -1;
    memcpy(out + *pos, s, len);
    *pos += len;
    return 0;
}

int config_expand_path(const char *pattern, long pid, char *out, size_t outsz)
{
    if (out == NULL || outsz == 0) return -1;
    size_t pos = 0;
    int rc = 0;
    for (const char *p = pattern; *p != '\0' && rc == 0; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            char num[24];
            int k = snprintf(num, sizeof num, "%ld", pid);
            rc = put(out, outsz, &pos, num, (size_t)k);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            rc = put(out, outsz, &pos, "%", 1);
            p++;
        } else {
            rc = put(out, outsz, &pos, p, 1); /* other %x and a trailing % stay literal */
        }
    }
    out[rc == 0 ? pos : 0] = '\0';
    return rc;
}

int config_path_has_pid(const char *pattern)
{
    for (const char *p = pattern; *p != '\0'; p++) {
        if (p[0] == '%' && p[1] == 'p') return 1;
        if (p[0] == '%' && p[1] == '%') p++;
    }
    return 0;
}
