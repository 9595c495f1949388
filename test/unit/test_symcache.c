/* test_symcache.c: the machine's symbol cache (symcache.h), on this test program's own module.
 * Invariants checked: frames put for an address come back after the module table and every
 * loaded file were forgotten (so from the file), strings, lines, inlined pcs and runtime bits
 * alike; the module-path file is this process's path of the module; a name holding a tab is
 * not cached; the cache is off without a directory; an address in no module is not cached;
 * a static object's name (sym_data) comes back, "no name" too, and is told from a miss; a new
 * cache file removes the cache files not added to for 30 days, and nothing else. */
#include "strtab.h"
#include "symcache.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static const char *str(uint64_t id)
{
    size_t len;
    const char *s = str_get(id, &len);
    return s ? s : "";
}

static void init(void)
{
    cr_assert_eq(str_init(), 0);
    snprintf(dir, sizeof dir, "/tmp/gotrace-symcache-test.%ld/sub", (long)getpid());
    symcache_dir(dir);
}

static void fini(void)
{
    symcache_forget();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %.*s", (int)(strrchr(dir, '/') - dir), dir);
    if (system(cmd) != 0) cr_log_warn("cannot remove %s", dir);
    symcache_dir("");
}

__attribute__((noipa)) static int here(void)
{
    return 1;
}

Test(symcache, round_trip_through_the_file, .init = init, .fini = fini)
{
    uintptr_t pc = (uintptr_t)&here + 1;
    struct symcache_module *m = symcache_module(pc - 1);
    cr_assert_not_null(m, "this test program has a build ID");
    struct sym_frame out[4];
    uint32_t rt = 0;
    cr_assert_eq(symcache_get(m, pc, out, 4, &rt), 0, "an empty cache");
    struct sym_frame f[2] = {{pc, str_intern_cstr("inner(int)"), str_intern_cstr("/src/a.c"), 7},
                             {pc | 1ull << 56, str_intern_cstr("outer"), 0, 0}};
    symcache_put(m, pc, f, 2, 2, 0);
    symcache_forget(); /* read back from the file */
    m = symcache_module(pc - 1);
    cr_assert_not_null(m);
    cr_assert_eq(symcache_get(m, pc, out, 4, &rt), 2);
    cr_assert_eq(rt, 2);
    cr_assert_eq(out[0].pc, pc);
    cr_assert_str_eq(str(out[0].func_str), "inner(int)");
    cr_assert_str_eq(str(out[0].file_str), "/src/a.c");
    cr_assert_eq(out[0].line, 7);
    cr_assert_eq(out[1].pc, pc | 1ull << 56);
    cr_assert_str_eq(str(out[1].func_str), "outer");
    cr_assert_eq(out[1].file_str, 0);
    cr_assert_eq(symcache_get(m, pc, out, 1, &rt), 0, "more frames than max: a miss");
}

Test(symcache, module_path_and_bad_names, .init = init, .fini = fini)
{
    uintptr_t pc = (uintptr_t)&here + 2;
    struct symcache_module *m = symcache_module(pc - 1);
    cr_assert_not_null(m);
    struct sym_frame f = {pc, str_intern_cstr("here+0x1"), str_intern_cstr("/old/path"), 0};
    symcache_put(m, pc, &f, 1, 0, 1);
    struct sym_frame tab = {pc + 1, str_intern_cstr("a\tb"), 0, 0};
    symcache_put(m, pc + 1, &tab, 1, 0, 0);
    symcache_forget();
    m = symcache_module(pc - 1);
    struct sym_frame out[2];
    uint32_t rt;
    cr_assert_eq(symcache_get(m, pc, out, 2, &rt), 1);
    char exe[PATH_MAX];
    cr_assert_not_null(realpath("/proc/self/exe", exe));
    cr_assert_str_eq(str(out[0].file_str), exe, "the module's path in this process");
    cr_assert_eq(symcache_get(m, pc + 1, out, 2, &rt), 0, "a name with a tab is not cached");
}

Test(symcache, off_and_outside_modules, .init = init, .fini = fini)
{
    cr_assert_null(symcache_module(16), "no module at address 16");
    symcache_dir("");
    cr_assert_null(symcache_module((uintptr_t)&here), "off without a directory");
}

static int object_here[4];

Test(symcache, object_names, .init = init, .fini = fini)
{
    uintptr_t a = (uintptr_t)&object_here[1], b = (uintptr_t)&object_here[2];
    struct symcache_module *m = symcache_module(a);
    cr_assert_not_null(m);
    char buf[64];
    cr_assert_eq(symcache_get_data(m, a, buf, sizeof buf), -1, "a miss");
    symcache_put_data(m, a, "object_here+0x4", 15);
    symcache_put_data(m, b, "", 0);
    symcache_forget();
    m = symcache_module(a);
    cr_assert_eq(symcache_get_data(m, a, buf, sizeof buf), 15);
    cr_assert_str_eq(buf, "object_here+0x4");
    cr_assert_eq(symcache_get_data(m, b, buf, sizeof buf), 0, "cached: no name");
    cr_assert_eq(symcache_get_data(m, a, buf, 7), 6, "cut to the buffer");
    cr_assert_str_eq(buf, "object");
}

/* A file of several read sizes (the reader's buffer starts at 16 KiB and grows): every line comes
 * back, the last as well as the first. */
Test(symcache, a_large_file_is_read_whole, .init = init, .fini = fini)
{
    uintptr_t pc = (uintptr_t)&here + 3;
    struct symcache_module *m = symcache_module(pc - 1);
    cr_assert_not_null(m);
    enum { N = 1500 }; /* about 100 KB of lines */
    char name[80];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "function_%04d_with_a_name_long_enough_to_fill_lines", i);
        struct sym_frame f = {pc + 16 * (uintptr_t)i, str_intern_cstr(name), 0, 0};
        symcache_put(m, pc + 16 * (uintptr_t)i, &f, 1, 1, 0);
    }
    symcache_forget();
    m = symcache_module(pc - 1);
    cr_assert_not_null(m);
    struct sym_frame out[1];
    uint32_t rt = 0;
    for (int i = 0; i < N; i += N - 1) {
        cr_assert_eq(symcache_get(m, pc + 16 * (uintptr_t)i, out, 1, &rt), 1, "line %d", i);
        snprintf(name, sizeof name, "function_%04d_with_a_name_long_enough_to_fill_lines", i);
        cr_assert_str_eq(str(out[0].func_str), name);
    }
}

/* A file in the cache's directory, its modification time days ago. */
static void file_aged(const char *name, int days)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0, "cannot create %s", p);
    cr_assert_eq(write(fd, "x\n", 2), 2);
    close(fd);
    time_t t = time(NULL) - (time_t)days * 24 * 3600;
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
}

static int present(const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

Test(symcache, a_new_file_prunes_old_ones, .init = init, .fini = fini)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    cr_assert_eq(system(cmd), 0);
    file_aged("00aa11bb.0123456789abcdef.sym", 40); /* a replaced build's */
    file_aged("22cc.fedcba9876543210.sym", 10);     /* in use lately */
    file_aged("33dd.0123456789abcdef.sym.tmp", 40); /* not of the cache's form */
    file_aged("notes.txt", 40);
    file_aged("44ee.0123.sym", 40);
    uintptr_t pc = (uintptr_t)&here + 4;
    struct symcache_module *m = symcache_module(pc - 1);
    cr_assert_not_null(m);
    struct sym_frame f = {pc, str_intern_cstr("here"), 0, 0};
    symcache_put(m, pc, &f, 1, 0, 0); /* makes this module's file */
    cr_assert(!present("00aa11bb.0123456789abcdef.sym"), "a file unused for 40 days is removed");
    cr_assert(present("22cc.fedcba9876543210.sym"), "a file used 10 days ago stays");
    cr_assert(present("33dd.0123456789abcdef.sym.tmp"));
    cr_assert(present("notes.txt"));
    cr_assert(present("44ee.0123.sym"), "only names of the cache's form are removed");
    symcache_forget();
    m = symcache_module(pc - 1);
    struct sym_frame out[1];
    uint32_t rt;
    cr_assert_eq(symcache_get(m, pc, out, 1, &rt), 1, "the new file itself stays");
}
