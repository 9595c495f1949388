/* test_demangle.c: C++ and Rust (legacy, v0) names made readable (demangle.h), others kept. */
#include "demangle.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

struct row {
    const char *in, *out;
};

static const struct row rows[] = {
    {"_ZN3app6workerEi", "app::worker(int)"},
    {"_ZNSt6thread4joinEv", "std::thread::join()"},
    {"_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const"},
    /* Rust legacy: the hash is dropped */
    {"_ZN2mt4main17hc76aa1cd9b35508bE", "mt::main"},
    {"_ZN3std3sys9backtrace28__rust_begin_short_backtrace17h51d9893085fb1583E",
     "std::sys::backtrace::__rust_begin_short_backtrace"},
    /* Rust v0 */
    {"_RNvNvMs0_NtNtNtCsjrHSEGnQ3l9_3std3sys6thread4unixNtB7_6Thread3new12thread_start",
     "<std::sys::thread::unix::Thread>::new::thread_start"},
    {"_RNvCs1234_7mycrate4main", "mycrate::main"},
    /* not mangled, or not well formed: unchanged */
    {"main", "main"},
    {"main._omp_fn.0", "main._omp_fn.0"},
    {"_Z", "_Z"},
    {"_Zfoo", "_Zfoo"},
    {"_R", "_R"},
    {"_dl_start_user", "_dl_start_user"},
    {"", ""},
};

Test(demangle, table)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_expect_str_eq(demangle_name(rows[i].in), rows[i].out, "row %zu: %s", i, rows[i].in);
    cr_expect_null(demangle_name(NULL));
}

Test(demangle, long_name_cut_not_overflowed)
{
    /* f(std::vector<int>, ...) with 300 such parameters, the later ones substitutions (S1_):
     * a short mangled name whose demangled form (~12 KB) is far beyond the buffer */
    static char in[2048];
    size_t n = (size_t)snprintf(in, sizeof in, "_Z1fSt6vectorIiSaIiEE");
    for (int i = 1; i < 300; i++)
        n += (size_t)snprintf(in + n, sizeof in - n, "S1_");
    const char *out = demangle_name(in);
    cr_assert_neq(out, in);
    cr_assert_eq(strlen(out), 4095, "cut at the buffer's size");
    cr_assert_eq(strncmp(out, "f(std::vector<int, std::allocator<int> >, ", 42), 0, "%.60s", out);
}
