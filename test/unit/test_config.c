/* test_config.c: unit tests of preload/config.c.
 * Invariants checked: every GOTRACE_* variable has its documented default; valid values are
 * taken; empty means default without a warning; a bad value (garbage, out of range, too long)
 * gives exactly one warning that names the variable and the value and the default used, and
 * leaves the default; %p/%% expansion and its overflow (-1). The environment is a fake table
 * passed through the getenv callback, so the process environment is never touched. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

#define MAX_VARS 16
#define MAX_WARNS 16

static const char *env_names[MAX_VARS];
static const char *env_values[MAX_VARS];
static int env_n;
static char warns[MAX_WARNS][512];
static int warn_n;

static const char *fake_getenv(const char *name)
{
    for (int i = 0; i < env_n; i++)
        if (strcmp(env_names[i], name) == 0) return env_values[i];
    return NULL;
}

static void fake_warn(const char *msg)
{
    if (warn_n < MAX_WARNS) snprintf(warns[warn_n], sizeof warns[0], "%s", msg);
    warn_n++;
}

static void reset(void)
{
    env_n = 0;
    warn_n = 0;
    memset(warns, 0, sizeof warns);
}

static void setvar(const char *name, const char *value)
{
    cr_assert_lt(env_n, MAX_VARS);
    env_names[env_n] = name;
    env_values[env_n] = value;
    env_n++;
}

/* Parses a config from a single variable. */
static struct gt_config parse1(const char *name, const char *value)
{
    struct gt_config c;
    reset();
    setvar(name, value);
    memset(&c, 0xAB, sizeof c); /* parse must not depend on prior contents */
    config_parse(&c, fake_getenv, fake_warn);
    return c;
}

/* Exactly one warning, mentioning every given substring. */
static void expect_one_warning(const char *a, const char *b, const char *c)
{
    cr_assert_eq(warn_n, 1, "expected exactly one warning, got %d", warn_n);
    const char *parts[] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (parts[i] != NULL)
            cr_assert(strstr(warns[0], parts[i]) != NULL, "warning \"%s\" lacks \"%s\"", warns[0],
                      parts[i]);
}

static void expect_no_warning(void)
{
    cr_assert_eq(warn_n, 0, "unexpected warning: %s", warns[0]);
}

static void expect_defaults(const struct gt_config *c)
{
    cr_assert_str_eq(c->out_pattern, "gotrace.%p.trace");
    cr_assert_eq(c->period_ms, 1000);
    cr_assert_eq(c->stacks, 1);
    cr_assert_eq(c->stack_depth, 32);
    cr_assert_eq(c->buf_kb, 64);
    cr_assert_eq(c->flush_mb, 2);
    cr_assert_eq(c->cpu_hz, 0);
    cr_assert_eq(c->tsc, 1);
    cr_assert_eq(c->debug, 0);
    cr_assert_eq(c->disable, 0);
    cr_assert_eq(c->lock_order, 0);
    cr_assert_eq(c->lock_holds, 0);
}

Test(config, defaults_function)
{
    struct gt_config c;
    memset(&c, 0x5A, sizeof c);
    config_defaults(&c);
    expect_defaults(&c);
}

Test(config, unset_means_defaults)
{
    struct gt_config c;
    reset();
    config_parse(&c, fake_getenv, fake_warn);
    expect_defaults(&c);
    expect_no_warning();
}

Test(config, empty_means_default_silently)
{
    const char *vars[] = {"GOTRACE_OUT",         "GOTRACE_PERIOD_MS", "GOTRACE_STACKS",
                          "GOTRACE_STACK_DEPTH", "GOTRACE_BUF_KB",    "GOTRACE_FLUSH_MB",
                          "GOTRACE_TSC",         "GOTRACE_DEBUG",     "GOTRACE_DISABLE"};
    struct gt_config c;
    reset();
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        setvar(vars[i], "");
    config_parse(&c, fake_getenv, fake_warn);
    expect_defaults(&c);
    expect_no_warning();
}

Test(config, null_callbacks_tolerated)
{
    struct gt_config c;
    config_parse(&c, NULL, NULL);
    expect_defaults(&c);
}

Test(config, all_valid_together)
{
    struct gt_config c;
    reset();
    setvar("GOTRACE_OUT", "/tmp/x.%p.trace");
    setvar("GOTRACE_PERIOD_MS", "250");
    setvar("GOTRACE_STACKS", "0");
    setvar("GOTRACE_STACK_DEPTH", "8");
    setvar("GOTRACE_BUF_KB", "16");
    setvar("GOTRACE_FLUSH_MB", "100");
    setvar("GOTRACE_TSC", "off");
    setvar("GOTRACE_DEBUG", "1");
    setvar("GOTRACE_DISABLE", "yes");
    config_parse(&c, fake_getenv, fake_warn);
    expect_no_warning();
    cr_assert_str_eq(c.out_pattern, "/tmp/x.%p.trace");
    cr_assert_eq(c.period_ms, 250);
    cr_assert_eq(c.stacks, 0);
    cr_assert_eq(c.stack_depth, 8);
    cr_assert_eq(c.buf_kb, 16);
    cr_assert_eq(c.flush_mb, 100);
    cr_assert_eq(c.tsc, 0);
    cr_assert_eq(c.debug, 1);
    cr_assert_eq(c.disable, 1);
}

Test(config, several_bad_values_one_warning_each)
{
    struct gt_config c;
    reset();
    setvar("GOTRACE_PERIOD_MS", "x");
    setvar("GOTRACE_STACKS", "maybe");
    setvar("GOTRACE_BUF_KB", "1");
    config_parse(&c, fake_getenv, fake_warn);
    cr_assert_eq(warn_n, 3);
    expect_defaults(&c);
}

/* ---- integer variables: boundaries, out of range, garbage ---- */

struct int_var {
    const char *name;
    uint32_t lo, hi, dflt;
    size_t off;
};

static const struct int_var int_vars[] = {
    {"GOTRACE_PERIOD_MS", 10, 3600000, 1000, offsetof(struct gt_config, period_ms)},
    {"GOTRACE_STACK_DEPTH", 1, 128, 32, offsetof(struct gt_config, stack_depth)},
    {"GOTRACE_BUF_KB", 4, 64, 64, offsetof(struct gt_config, buf_kb)},
    {"GOTRACE_FLUSH_MB", 1, 4096, 2, offsetof(struct gt_config, flush_mb)},
    {"GOTRACE_CPU_HZ", 0, 1000, 0, offsetof(struct gt_config, cpu_hz)},
    {"GOTRACE_FLIGHT_S", 1, 3600, 10, offsetof(struct gt_config, flight_s)},
    {"GOTRACE_FLIGHT_MB", 1, 4096, 64, offsetof(struct gt_config, flight_mb)},
    {"GOTRACE_FLIGHT_SIGNAL", 0, 64, 12, offsetof(struct gt_config, flight_signal)},
};

static uint32_t field_of(const struct gt_config *c, const struct int_var *v)
{
    uint32_t x;
    memcpy(&x, (const char *)c + v->off, sizeof x);
    return x;
}

static void check_int_ok(const struct int_var *v, const char *text, uint32_t want)
{
    struct gt_config c = parse1(v->name, text);
    cr_assert_eq(warn_n, 0, "%s=%s warned: %s", v->name, text, warns[0]);
    cr_assert_eq(field_of(&c, v), want, "%s=%s gave %u", v->name, text, field_of(&c, v));
}

static void check_int_bad(const struct int_var *v, const char *text)
{
    char dflt[16];
    snprintf(dflt, sizeof dflt, "%u", v->dflt);
    struct gt_config c = parse1(v->name, text);
    cr_assert_eq(warn_n, 1, "%s=\"%s\": %d warnings", v->name, text, warn_n);
    cr_assert(strstr(warns[0], v->name) != NULL, "warning lacks the name: %s", warns[0]);
    cr_assert(strstr(warns[0], text) != NULL, "warning lacks the value: %s", warns[0]);
    cr_assert(strstr(warns[0], "default") != NULL && strstr(warns[0], dflt) != NULL,
              "warning does not say default %s: %s", dflt, warns[0]);
    cr_assert(strncmp(warns[0], "gotrace:", 8) != 0, "gt_log adds the prefix: %s", warns[0]);
    cr_assert_eq(field_of(&c, v), v->dflt, "%s=\"%s\" did not fall back to the default", v->name,
                 text);
}

Test(config, integers_valid_and_boundaries)
{
    for (size_t i = 0; i < sizeof int_vars / sizeof int_vars[0]; i++) {
        const struct int_var *v = &int_vars[i];
        char t[32];
        snprintf(t, sizeof t, "%u", v->lo);
        check_int_ok(v, t, v->lo);
        snprintf(t, sizeof t, "%u", v->hi);
        check_int_ok(v, t, v->hi);
        snprintf(t, sizeof t, "%u", (v->lo + v->hi) / 2);
        check_int_ok(v, t, (v->lo + v->hi) / 2);
        snprintf(t, sizeof t, "000%u", v->lo); /* leading zeros are still decimal */
        check_int_ok(v, t, v->lo);
    }
}

Test(config, integers_out_of_range)
{
    for (size_t i = 0; i < sizeof int_vars / sizeof int_vars[0]; i++) {
        const struct int_var *v = &int_vars[i];
        char t[32];
        snprintf(t, sizeof t, "%u", v->lo - 1);
        check_int_bad(v, t);
        snprintf(t, sizeof t, "%u", v->hi + 1);
        check_int_bad(v, t);
        check_int_bad(v, "99999999999999999999999999"); /* overflows uint64 */
        check_int_bad(v, "4294967296");                 /* overflows uint32 */
    }
}

Test(config, integers_garbage)
{
    static const char *bad[] = {"abc", "12ms", " 100", "100 ", "-5", "+50", "0x20", "1e3", "3.5"};
    for (size_t i = 0; i < sizeof int_vars / sizeof int_vars[0]; i++)
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++)
            check_int_bad(&int_vars[i], bad[j]);
}

Test(config, period_message_text)
{
    parse1("GOTRACE_PERIOD_MS", "abc");
    expect_one_warning("GOTRACE_PERIOD_MS", "abc", "default 1000");
}

/* ---- booleans ---- */

struct bool_var {
    const char *name;
    int dflt;
    size_t off;
};

static const struct bool_var bool_vars[] = {
    {"GOTRACE_STACKS", 1, offsetof(struct gt_config, stacks)},
    {"GOTRACE_TSC", 1, offsetof(struct gt_config, tsc)},
    {"GOTRACE_DEBUG", 0, offsetof(struct gt_config, debug)},
    {"GOTRACE_DISABLE", 0, offsetof(struct gt_config, disable)},
    {"GOTRACE_FLIGHT_AT_EXIT", 0, offsetof(struct gt_config, flight_at_exit)},
    {"GOTRACE_LOCK_ORDER", 0, offsetof(struct gt_config, lock_order)},
    {"GOTRACE_LOCK_HOLDS", 0, offsetof(struct gt_config, lock_holds)},
};

static int bool_of(const struct gt_config *c, const struct bool_var *v)
{
    int x;
    memcpy(&x, (const char *)c + v->off, sizeof x);
    return x;
}

Test(config, booleans_valid)
{
    static const char *on[] = {"1", "true", "TRUE", "yes", "Yes", "on", "ON"};
    static const char *off[] = {"0", "false", "False", "no", "NO", "off", "oFF"};
    for (size_t i = 0; i < sizeof bool_vars / sizeof bool_vars[0]; i++) {
        const struct bool_var *v = &bool_vars[i];
        for (size_t j = 0; j < sizeof on / sizeof on[0]; j++) {
            struct gt_config c = parse1(v->name, on[j]);
            expect_no_warning();
            cr_assert_eq(bool_of(&c, v), 1, "%s=%s", v->name, on[j]);
            c = parse1(v->name, off[j]);
            expect_no_warning();
            cr_assert_eq(bool_of(&c, v), 0, "%s=%s", v->name, off[j]);
        }
    }
}

Test(config, booleans_bad)
{
    static const char *bad[] = {"2", "-1", "maybe", "truex", "yess", "o", " 1", "01"};
    for (size_t i = 0; i < sizeof bool_vars / sizeof bool_vars[0]; i++) {
        const struct bool_var *v = &bool_vars[i];
        char dflt[24];
        snprintf(dflt, sizeof dflt, "default %d", v->dflt);
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
            struct gt_config c = parse1(v->name, bad[j]);
            expect_one_warning(v->name, bad[j], dflt);
            cr_assert_eq(bool_of(&c, v), v->dflt, "%s=%s", v->name, bad[j]);
        }
    }
}

/* ---- GOTRACE_MODE ---- */

Test(config, mode_file_or_flight)
{
    struct gt_config c = parse1("GOTRACE_MODE", "flight");
    expect_no_warning();
    cr_assert_eq(c.flight, 1);
    c = parse1("GOTRACE_MODE", "file");
    expect_no_warning();
    cr_assert_eq(c.flight, 0);
    c = parse1("GOTRACE_MODE", "Flight");
    expect_one_warning("GOTRACE_MODE", "Flight", "\"file\"");
    cr_assert_eq(c.flight, 0, "a bad mode falls back to the file");
}

/* ---- GOTRACE_OUT ---- */

Test(config, out_valid)
{
    struct gt_config c = parse1("GOTRACE_OUT", "run-%p-%%.trace");
    expect_no_warning();
    cr_assert_str_eq(c.out_pattern, "run-%p-%%.trace");
}

Test(config, out_longest_accepted)
{
    static char v[GT_PATH_MAX];
    memset(v, 'a', GT_PATH_MAX - 1);
    v[GT_PATH_MAX - 1] = '\0';
    struct gt_config c = parse1("GOTRACE_OUT", v);
    expect_no_warning();
    cr_assert_eq(strlen(c.out_pattern), GT_PATH_MAX - 1);
}

Test(config, out_too_long)
{
    static char v[GT_PATH_MAX + 10];
    memset(v, 'b', sizeof v - 1);
    v[sizeof v - 1] = '\0';
    struct gt_config c = parse1("GOTRACE_OUT", v);
    expect_one_warning("GOTRACE_OUT", "bbbbbbbb", "gotrace.%p.trace");
    cr_assert(strstr(warns[0], "long") != NULL, "%s", warns[0]);
    cr_assert_lt(strlen(warns[0]), 400, "the warning quotes the whole value");
    cr_assert_str_eq(c.out_pattern, "gotrace.%p.trace");
}

Test(config, bad_value_shown_sanitized)
{
    parse1("GOTRACE_PERIOD_MS", "1\n2\x1b");
    cr_assert_eq(warn_n, 1);
    cr_assert(strchr(warns[0], '\n') == NULL && strchr(warns[0], '\x1b') == NULL, "%s", warns[0]);
}

/* ---- GOTRACE_SYMCACHE ---- */

Test(config, symcache_default_follows_xdg_then_home)
{
    struct gt_config c = parse1("HOME", "/home/u");
    cr_assert_str_eq(c.symcache, "/home/u/.cache/gotrace");
    reset();
    setvar("HOME", "/home/u");
    setvar("XDG_CACHE_HOME", "/var/cache/u");
    config_parse(&c, fake_getenv, fake_warn);
    cr_assert_str_eq(c.symcache, "/var/cache/u/gotrace");
    reset();
    setvar("HOME", "/home/u");
    setvar("XDG_CACHE_HOME", "relative"); /* not absolute: ignored, as the XDG spec says */
    config_parse(&c, fake_getenv, fake_warn);
    cr_assert_str_eq(c.symcache, "/home/u/.cache/gotrace");
    expect_no_warning();
    c = parse1("GOTRACE_OUT", "x.trace"); /* neither variable: no cache */
    cr_assert_str_eq(c.symcache, "");
}

Test(config, symcache_set_or_off)
{
    struct gt_config c = parse1("GOTRACE_SYMCACHE", "/tmp/sc");
    cr_assert_str_eq(c.symcache, "/tmp/sc");
    reset();
    setvar("HOME", "/home/u");
    setvar("GOTRACE_SYMCACHE", "0");
    config_parse(&c, fake_getenv, fake_warn);
    cr_assert_str_eq(c.symcache, "");
    expect_no_warning();
}

Test(config, symcache_too_long)
{
    static char v[GT_PATH_MAX + 10];
    memset(v, 'c', sizeof v - 1);
    v[sizeof v - 1] = '\0';
    struct gt_config c = parse1("GOTRACE_SYMCACHE", v);
    expect_one_warning("GOTRACE_SYMCACHE", "cccccccc", "no symbol cache");
    cr_assert_str_eq(c.symcache, "");
}

/* ---- config_expand_path ---- */

static void expand_ok(const char *pat, long pid, const char *want)
{
    char out[256];
    memset(out, 'Z', sizeof out);
    cr_assert_eq(config_expand_path(pat, pid, out, sizeof out), 0, "%s", pat);
    cr_assert_str_eq(out, want, "pattern \"%s\"", pat);
}

Test(config, expand_basic)
{
    expand_ok("gotrace.%p.trace", 1234, "gotrace.1234.trace");
    expand_ok("plain", 7, "plain");
    expand_ok("", 7, "");
    expand_ok("%p", 42, "42");
    expand_ok("%p-%p", 42, "42-42");
    expand_ok("100%%", 1, "100%");
    expand_ok("%%p", 9, "%p");
    expand_ok("%%%p", 9, "%9");
    expand_ok("a%xb%d", 9, "a%xb%d");
    expand_ok("end%", 9, "end%");
    expand_ok("%p", 4194304, "4194304");
}

/* has_pid says whether the expansion depends on the pid: it agrees with two expansions. */
Test(config, path_has_pid_agrees_with_the_expansion)
{
    const char *pats[] = {"gotrace.%p.trace", "plain", "",  "%p", "%%p",    "%%%p",    "100%%",
                          "a%xb%d",           "end%",  "%", "%%", "x%%%%p", "x%%%%%p", "%pp"};
    for (size_t i = 0; i < sizeof pats / sizeof *pats; i++) {
        char a[64], b[64];
        cr_assert_eq(config_expand_path(pats[i], 1, a, sizeof a), 0);
        cr_assert_eq(config_expand_path(pats[i], 2, b, sizeof b), 0);
        cr_assert_eq(config_path_has_pid(pats[i]), strcmp(a, b) != 0, "pattern \"%s\"", pats[i]);
    }
}

Test(config, expand_exact_fit_and_overflow)
{
    char out[8];
    cr_assert_eq(config_expand_path("1234567", 1, out, sizeof out), 0);
    cr_assert_str_eq(out, "1234567");
    cr_assert_eq(config_expand_path("12345678", 1, out, sizeof out), -1);
    cr_assert_eq(config_expand_path("a%p", 1234567, out, sizeof out), -1);
    cr_assert_eq(config_expand_path("ab%p", 12345, out, sizeof out), 0);
    cr_assert_str_eq(out, "ab12345");
    cr_assert_eq(config_expand_path("x", 1, out, 0), -1);
    cr_assert_eq(config_expand_path("", 1, out, 1), 0);
    cr_assert_str_eq(out, "");
}

Test(config, expand_too_long_for_path_max)
{
    static char pat[GT_PATH_MAX];
    static char out[GT_PATH_MAX];
    memset(pat, 'c', GT_PATH_MAX - 3);
    memcpy(pat + GT_PATH_MAX - 3, "%p", 3); /* fits as a pattern, not once expanded */
    cr_assert_eq(config_expand_path(pat, 123456, out, sizeof out), -1);
    cr_assert_eq(out[0], '\0', "a failed expansion leaves an empty string");
}
