/* test_decoder_core.c: unit tests of the decoder's building blocks: uvarints (Go's rules),
 * the hash map (including backward-shift deletion), error formatting, the reader and
 * ordering engine on hand-built byte traces, whether a live file's process still runs, and
 * the JSON strings of export and report.
 * Invariant: each test builds its own input. */
#include <criterion/criterion.h>

#include "decode.h"
#include "hmap.h"
#include "input.h"
#include "live.h"
#include "out.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

Test(decoder_uvarint, go_rules)
{
    uint64_t v = 0;
    const uint8_t one[] = {0x01};
    cr_assert_eq(gd_uvarint(one, 1, &v), 1);
    cr_assert_eq(v, 1);
    const uint8_t padded[] = {0x80 | 5, 0x80, 0x00}; /* zero padding is accepted */
    cr_assert_eq(gd_uvarint(padded, 3, &v), 3);
    cr_assert_eq(v, 5);
    const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    cr_assert_eq(gd_uvarint(max, 10, &v), 10);
    cr_assert_eq(v, UINT64_MAX);
    const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    cr_assert_eq(gd_uvarint(over, 10, &v), -1);
    const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0};
    cr_assert_eq(gd_uvarint(eleven, 11, &v), -1);
    cr_assert_eq(gd_uvarint(padded, 2, &v), 0, "short input");
}

Test(decoder_hmap, put_get_delete_many)
{
    struct gd_hmap m = {0};
    for (uint64_t k = 0; k < 5000; k++)
        cr_assert_eq(gd_hm_put(&m, k * 7919 + (k & 1 ? UINT64_MAX - 100000 : 0), (uint32_t)k), 0);
    cr_assert_eq(m.len, 5000);
    for (uint64_t k = 0; k < 5000; k += 2)
        gd_hm_del(&m, k * 7919);
    for (uint64_t k = 0; k < 5000; k++) {
        uint32_t *v = gd_hm_get(&m, k * 7919 + (k & 1 ? UINT64_MAX - 100000 : 0));
        if (k & 1) {
            cr_assert(v != NULL, "key %lu lost after deletions", (unsigned long)k);
            cr_assert_eq(*v, k);
        } else {
            cr_assert(v == NULL);
        }
    }
    gd_hm_free(&m);
}

Test(decoder_err, format_names_location)
{
    struct gd_err e;
    char buf[512];
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    gd_errf(&e, 3, 1, 1234, "GoBlock", 77, "boom %d", 5);
    gd_err_print(&e, "t.trace", f);
    fclose(f);
    cr_assert_str_eq(buf, "gotrace: t.trace: generation 3, thread 1234, event GoBlock at byte "
                          "offset 77: boom 5\n");
}

/* Appends uvarint v to p. */
static size_t put_uv(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        p[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) p[n] |= 0x80;
        n++;
    } while (v);
    return n;
}

struct tb {
    uint8_t b[4096];
    size_t n;
};

static void raw(struct tb *t, const void *p, size_t n)
{
    memcpy(t->b + t->n, p, n);
    t->n += n;
}

/* A batch of generation gen on thread m with payload p. */
static void batch(struct tb *t, uint64_t gen, uint64_t m, const uint8_t *p, size_t n)
{
    t->b[t->n++] = 1;
    t->n += put_uv(t->b + t->n, gen);
    t->n += put_uv(t->b + t->n, m);
    t->n += put_uv(t->b + t->n, 100);
    t->n += put_uv(t->b + t->n, n);
    raw(t, p, n);
}

/* Events: type byte then uvarints. */
static size_t ev(uint8_t *p, uint8_t type, int nargs, const uint64_t *args)
{
    size_t n = 0;
    p[n++] = type;
    for (int i = 0; i < nargs; i++)
        n += put_uv(p + n, args[i]);
    return n;
}

static void freq(struct tb *t, uint64_t gen)
{
    uint8_t p[16];
    size_t n = ev(p, 8, 1, (uint64_t[]){1000000000});
    batch(t, gen, UINT64_MAX, p, n);
}

/* Decodes t: returns the number of events, or -1 with *msg set to the error message. */
static int decode(const struct tb *t, char *msg, size_t msgn)
{
    int fd = memfd_create("t", 0);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, t->b, t->n), (ssize_t)t->n);
    lseek(fd, 0, SEEK_SET);
    struct gd_dec d;
    int n = 0, rc;
    if (gd_dec_fdopen(&d, fd, 1 << 20) == 0) {
        struct gd_tev e;
        while ((rc = gd_dec_next(&d, &e)) > 0)
            n++;
        if (rc < 0) n = -1;
    } else {
        n = -1;
    }
    if (n < 0) snprintf(msg, msgn, "%s", d.err.msg);
    gd_dec_close(&d);
    return n;
}

static void header(struct tb *t)
{
    raw(t, "go 1.23 trace\0\0\0", 16);
}

Test(decoder_reader, minimal_valid_trace)
{
    struct tb t = {.n = 0};
    header(&t);
    freq(&t, 1);
    uint8_t p[64];
    size_t n = ev(p, 13, 3, (uint64_t[]){0, 0, 1});  /* ProcStatus p=0 Running */
    n += ev(p + n, 25, 4, (uint64_t[]){0, 1, 7, 2}); /* GoStatus g=1 m=7 Running */
    n += ev(p + n, 20, 3, (uint64_t[]){5, 0, 0});    /* GoBlock */
    batch(&t, 1, 7, p, n);
    char msg[512] = "";
    cr_assert_eq(decode(&t, msg, sizeof(msg)), 4, "%s", msg); /* 3 events + Sync */
}

Test(decoder_reader, rejects_generation_zero_and_bad_header)
{
    struct tb t = {.n = 0};
    char msg[512];
    raw(&t, "go 1.23 trace\0\0\0", 16);
    freq(&t, 0);
    cr_assert_eq(decode(&t, msg, sizeof(msg)), -1);
    cr_assert(strstr(msg, "invalid generation number 0"), "%s", msg);
    t.n = 0;
    raw(&t, "go 1.2x trace\0\0\0", 16);
    cr_assert_eq(decode(&t, msg, sizeof(msg)), -1);
    cr_assert(strstr(msg, "not a Go execution trace"), "%s", msg);
}

Test(decoder_order, sequence_numbers_must_follow)
{
    struct tb t = {.n = 0};
    header(&t);
    freq(&t, 1);
    uint8_t p[64];
    size_t n = ev(p, 13, 3, (uint64_t[]){0, 0, 1});  /* ProcStatus p=0 Running */
    n += ev(p + n, 25, 4, (uint64_t[]){0, 1, 7, 1}); /* GoStatus g=1 Runnable */
    n += ev(p + n, 16, 3, (uint64_t[]){1, 1, 2});    /* GoStart g=1 seq=2: skips 1 */
    batch(&t, 1, 7, p, n);
    char msg[512] = "";
    cr_assert_eq(decode(&t, msg, sizeof(msg)), -1);
    cr_assert(strstr(msg, "failed to advance"), "%s", msg);
}

Test(decoder_order, block_needs_a_running_goroutine)
{
    struct tb t = {.n = 0};
    header(&t);
    freq(&t, 1);
    uint8_t p[64];
    size_t n = ev(p, 13, 3, (uint64_t[]){0, 0, 1}); /* ProcStatus p=0 Running */
    n += ev(p + n, 20, 3, (uint64_t[]){5, 0, 0});   /* GoBlock with no G */
    batch(&t, 1, 7, p, n);
    char msg[512] = "";
    cr_assert_eq(decode(&t, msg, sizeof(msg)), -1);
    cr_assert(strstr(msg, "expected a goroutine but didn't have one"), "%s", msg);
}

Test(decoder_reader, generation_memory_cap)
{
    struct tb t = {.n = 0};
    header(&t);
    freq(&t, 1);
    uint8_t p[2048];
    memset(p, 0, sizeof(p));
    p[0] = 13;
    batch(&t, 1, 7, p, sizeof(p)); /* any event batch: 2 KiB of payload */
    int fd = memfd_create("t", 0);
    cr_assert_eq(write(fd, t.b, t.n), (ssize_t)t.n);
    lseek(fd, 0, SEEK_SET);
    struct gd_dec d;
    cr_assert_eq(gd_dec_fdopen(&d, fd, 1024), 0);
    struct gd_tev e;
    cr_assert_eq(gd_dec_next(&d, &e), -1);
    cr_assert(strstr(d.err.msg, "max-gen-mem"), "%s", d.err.msg);
    gd_dec_close(&d);
}

/* A live file's process is running when a process with its pid runs that started no later than
 * the file's tracer began (gt_live.h): this test's own pid with a head begun now is running; the
 * same pid with a head begun before this process started is a dead process's (the pid reused);
 * a pid that no process has is not running. */
Test(live, a_pid_runs_the_file_only_if_it_started_before_the_tracer)
{
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    struct gt_live_head h = {
        .pid = getpid(), .began_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec};
    struct gd_live l = {.h = &h};
    cr_assert(gd_live_running(&l), "this process, begun now");
    h.began_ns = 1; /* long before this process started */
    cr_assert_not(gd_live_running(&l), "a pid reused since");
    h.pid = 0x7ffffff0; /* above any pid_max */
    h.began_ns = (uint64_t)now.tv_sec * 1000000000ull;
    cr_assert_not(gd_live_running(&l), "no such process");
}

/* The JSON text of s (n bytes) as gd_out_json writes it (html: the report's form). */
static char *json_of(const char *s, size_t n, int html)
{
    char path[] = "/tmp/gt_json_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    unlink(path);
    struct gd_out o;
    cr_assert_eq(gd_out_init(&o, fd), 0);
    gd_out_json(&o, s, n, html);
    cr_assert_eq(gd_out_flush(&o), 0);
    gd_out_free(&o);
    static char buf[256];
    ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    cr_assert(got >= 0);
    buf[got] = 0;
    return buf;
}

#define JSON_OF(lit, html) json_of(lit, sizeof(lit) - 1, html)

/* Well-formed UTF-8 passes (a thread named in another script reads as named in Perfetto), any
 * other byte from 0x80 up is U+FFFD (overlong, surrogate, cut short, above U+10FFFF), and
 * quotes, backslashes and control characters are escaped; the html form escapes < > & too. */
Test(decoder_out, json_strings)
{
    cr_assert_str_eq(JSON_OF("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0),
                     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    cr_assert_str_eq(JSON_OF("a\"b\\c\n\x7f", 0), "a\\\"b\\\\c\\u000a\\u007f");
    cr_assert_str_eq(JSON_OF("\xc0\xaf|\xed\xa0\x80|\xe2\x82|\xf4\x90\x80\x80|\xff", 0),
                     "\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd|"
                     "\\ufffd\\ufffd\\ufffd\\ufffd|\\ufffd");
    cr_assert_str_eq(JSON_OF("</script>&", 1), "\\u003c/script\\u003e\\u0026");
    cr_assert_str_eq(JSON_OF("</script>&", 0), "</script>&");
}
