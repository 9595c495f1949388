/* test_decoder_reader.c: the decoder's reader (decoder/input.h, input.c, reader.c): uvarints by
 * Go's rules (in memory and from a descriptor), the header, batch framing, generations, the
 * string / stack / CPU-sample tables and their limits, and a small valid trace cut at every byte
 * and with every byte flipped (an error, or the complete generations before the cut, never a
 * crash). Invariant: each test builds its own input. */
#include "decoder_traces.h"

#include "input.h"

/* One uvarint case: bytes in, then what gd_uvarint (n = bytes used, 0 short, -1 overflow) and
 * gd_in_uvarint (GD_UV_*) make of them. */
struct uv_case {
    const char *name;
    uint8_t b[12];
    size_t len;
    int n;
    int in_rc;
    uint64_t v;
};

static const struct uv_case uv_cases[] = {
    {"zero", {0x00}, 1, 1, GD_UV_OK, 0},
    {"largest one-byte", {0x7f}, 1, 1, GD_UV_OK, 127},
    {"smallest two-byte", {0x80, 0x01}, 2, 2, GD_UV_OK, 128},
    {"300", {0xac, 0x02}, 2, 2, GD_UV_OK, 300},
    {"2^63",
     {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
     10,
     10,
     GD_UV_OK,
     UINT64_C(1) << 63},
    {"2^64-1 in 10 bytes",
     {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
     10,
     10,
     GD_UV_OK,
     UINT64_MAX},
    {"zero-padded to 3 bytes", {0x85, 0x80, 0x00}, 3, 3, GD_UV_OK, 5},
    {"zero-padded to 10 bytes",
     {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
     10,
     10,
     GD_UV_OK,
     1},
    {"10th byte 2: overflow",
     {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
     10,
     -1,
     GD_UV_OVERFLOW,
     0},
    {"11 bytes: overflow",
     {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
     11,
     -1,
     GD_UV_OVERFLOW,
     0},
    {"continuation at the end", {0x80}, 1, 0, GD_UV_SHORT, 0},
    {"9 continuation bytes at the end",
     {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80},
     9,
     0,
     GD_UV_SHORT,
     0},
    {"nothing", {0}, 0, 0, GD_UV_EOF, 0},
};

Test(reader, uvarint_in_memory)
{
    for (size_t i = 0; i < DT_NROWS(uv_cases); i++) {
        const struct uv_case *c = &uv_cases[i];
        uint64_t v = 0;
        int n = gd_uvarint(c->b, c->len, &v);
        cr_expect_eq(n, c->n, "%s: %d bytes used, want %d", c->name, n, c->n);
        if (c->n > 0) cr_expect_eq(v, c->v, "%s: value %llu", c->name, (unsigned long long)v);
    }
}

Test(reader, uvarint_from_a_descriptor)
{
    for (size_t i = 0; i < DT_NROWS(uv_cases); i++) {
        const struct uv_case *c = &uv_cases[i];
        uint8_t b[16];
        memcpy(b, c->b, c->len);
        b[c->len] = 0x2a; /* the next byte, which must not be consumed */
        int fd = dt_memfd(b, c->len + 1);
        struct gd_in in;
        cr_assert_eq(gd_in_init(&in, fd), 0);
        uint64_t v = 0;
        int rc = gd_in_uvarint(&in, &v);
        int want = c->in_rc == GD_UV_SHORT || c->in_rc == GD_UV_EOF ? GD_UV_OK : c->in_rc;
        if (c->in_rc == GD_UV_OK) {
            cr_expect_eq(rc, GD_UV_OK, "%s: rc %d", c->name, rc);
            cr_expect_eq(v, c->v, "%s: value %llu", c->name, (unsigned long long)v);
            cr_expect_eq(in.off, (int64_t)c->len, "%s: offset %lld", c->name, (long long)in.off);
            cr_expect_eq(gd_in_byte(&in), 0x2a, "%s: next byte", c->name);
        } else if (c->in_rc == GD_UV_OVERFLOW) {
            cr_expect_eq(rc, want, "%s: rc %d", c->name, rc);
        }
        gd_in_free(&in);
        close(fd);
        /* Without the next byte: the end of input shows as EOF (nothing read) or SHORT. */
        fd = dt_memfd(c->b, c->len);
        cr_assert_eq(gd_in_init(&in, fd), 0);
        rc = gd_in_uvarint(&in, &v);
        cr_expect_eq(rc, c->in_rc, "%s: rc %d at the end of input, want %d", c->name, rc, c->in_rc);
        gd_in_free(&in);
        close(fd);
    }
}

/* Header checks, on bytes. */
struct hdr_case {
    const char *name;
    const char *b;
    size_t len;
    const char *want;
};

static const struct hdr_case headers[] = {
    {"empty file", "", 0, "bad file format: not a Go execution trace?"},
    {"header only", "go 1.23 trace\0\0\0", 16, "no frequency event found"},
    {"1.22 header only", "go 1.22 trace\0\0\0", 16, "no frequency event found"},
    {"1.21", "go 1.21 trace\0\0\0", 16, "unsupported trace version go 1.21"},
    {"1.24", "go 1.24 trace\0\0\0", 16, "unsupported trace version go 1.24"},
    {"not a number", "go 1.2x trace\0\0\0", 16, "bad file format"},
    {"one NUL missing", "go 1.23 trace\0\0", 15, "bad file format"},
    {"no version", "go 1. trace\0\0\0", 14, "bad file format"},
};

Test(reader, headers)
{
    for (size_t i = 0; i < DT_NROWS(headers); i++) {
        struct dt_verdict v = dt_run_bytes(headers[i].b, headers[i].len);
        cr_expect(!v.ok, "%s: accepted", headers[i].name);
        cr_expect(strstr(v.err.msg, headers[i].want), "%s: got \"%s\", want \"%s\"",
                  headers[i].name, v.err.msg, headers[i].want);
    }
}

/* One event batch of thread 1 with ProcStatus 0 Idle, as raw bytes after "raw". */
#define PIDLE "01 01 01 00 04 0d 00 00 02"

static const struct dt_case framing[] = {
    /* Batch headers */
    {"A raw batch", "raw " PIDLE, NULL},
    {"A batch with a zero-padded size", "raw 01 01 01 00 84 80 00 0d 00 00 02", NULL},
    {"A batch with a 10-byte thread id",
     "M 1: ProcStatus 0 Idle\nraw 01 01 ff ff ff ff ff ff ff ff ff 01 00 04 0d 00 01 02", NULL},
    {"An empty batch", "M 1: ProcStatus 0 Idle\nraw 01 01 05 00 00", NULL},
    {"Not a batch", "M 1: ProcStatus 0 Idle\nraw 02", "expected batch event, got Stacks"},
    {"A header cut after its type", "M 1: ProcStatus 0 Idle\nraw 01",
     "error reading batch gen: unexpected EOF"},
    {"A header cut in its size", "M 1: ProcStatus 0 Idle\nraw 01 01 01 00 80",
     "error reading batch size: unexpected EOF"},
    {"A generation number of 11 bytes",
     "M 1: ProcStatus 0 Idle\nraw 01 80 80 80 80 80 80 80 80 80 80 00",
     "error reading batch gen: varint overflows a 64-bit integer"},
    {"A thread id over 2^64-1", "M 1: ProcStatus 0 Idle\nraw 01 01 ff ff ff ff ff ff ff ff ff 02",
     "error reading batch M ID: varint overflows a 64-bit integer"},
    {"A batch of 65536 bytes announced, 1 there", "nofreq\nraw 01 01 01 00 80 80 04 0d",
     "failed to read full batch: read 1 but wanted 65536"},
    {"A batch of 65537 bytes", "nofreq\nraw 01 01 01 00 81 80 04 0d",
     "invalid batch size 65537, maximum is 65536"},
    {"A payload cut short", "M 1: ProcStatus 0 Idle\nraw 01 01 01 00 05 0d 00",
     "failed to read full batch: read 2 but wanted 5"},
    {"An experimental batch", "M 1: ProcStatus 0 Idle\nraw 31 07 01 01 00 02 aa bb", NULL},
    {"An experimental batch cut after its type", "M 1: ProcStatus 0 Idle\nraw 31", NULL},
    /* Generations */
    {"A first generation other than 1",
     "gen 5\nM 1: ProcStatus 0 Idle\ngen 6\nM 1: ProcStatus 0 Idle", NULL},
    {"Generation 0", "gen 0\nM 1: ProcStatus 0 Idle", "invalid generation number 0"},
    {"A generation skipped", "M 1: ProcStatus 0 Idle\ngen 3\nM 1: ProcStatus 0 Idle",
     "generations out of order (batch of generation 3)"},
    {"A generation going back", "M 1: ProcStatus 0 Idle\ngen 2\nM 1: ProcStatus 0 Idle\nraw " PIDLE,
     "generations out of order (batch of generation 1)"},
    {"A generation without a frequency", "nofreq\nM 1: ProcStatus 0 Idle",
     "no frequency event found"},
    {"Two frequencies",
     "M 1: ProcStatus 0 Idle\nraw 01 01 ff ff ff ff ff ff ff ff ff 01 00 02 08 01",
     "found multiple frequency events"},
    {"A Frequency batch without its value",
     "nofreq\nM 1: ProcStatus 0 Idle\nraw 01 01 ff ff ff ff ff ff ff ff ff 01 00 01 08",
     NULL}, /* Go's reader sees the end of the trace there, and drops the generation */
};
DT_TABLE_TEST(reader, framing, framing)

/* Batch header of a structural batch (no thread), up to its size. */
#define MLESS "raw 01 01 ff ff ff ff ff ff ff ff ff 01 00 "
#define P1IDLE "M 1: ProcStatus 0 Idle"

static const struct dt_case tables[] = {
    /* Strings */
    {"Strings", "str 1 a\nstr 2 bc\n" P1IDLE, NULL},
    {"String id 0", "str 0 a\n" P1IDLE, "multiple strings with the same ID: id=0"},
    {"A string id twice", "str 1 a\nstr 1 b\n" P1IDLE, "multiple strings with the same ID: id=1"},
    {"A string longer than its batch", P1IDLE "\n" MLESS "05 04 05 01 05 61",
     "failed to read full string: read 1 but wanted 5"},
    {"A Stack in a Strings batch", P1IDLE "\n" MLESS "04 04 03 01 00",
     "expected string event, got 3"},
    {"A String cut after its type (the end of the trace for Go)", P1IDLE "\n" MLESS "02 04 05",
     NULL},
    {"A String cut in its id", P1IDLE "\n" MLESS "03 04 05 81", "unexpected EOF"},
    /* Stacks */
    {"Stacks", "str 1 main\nstr 2 m.c\nstack 1 100 1 2 7\nstack 2 100 1 2 7 200 1 2 9\n" P1IDLE,
     NULL},
    {"Stack id 0", "stack 0 100 0 0 1\n" P1IDLE, "multiple stacks with the same ID: id=0"},
    {"A stack id twice", "stack 1 100 0 0 1\nstack 1 200 0 0 1\n" P1IDLE,
     "multiple stacks with the same ID: id=1"},
    {"A frame with an undefined function", "str 2 m.c\nstack 1 100 555 2 7\n" P1IDLE,
     "found invalid func string ID 555 for stack 1"},
    {"A frame with an undefined file", "str 1 main\nstack 1 100 1 556 7\n" P1IDLE,
     "found invalid file string ID 556 for stack 1"},
    {"A frame cut in its line", P1IDLE "\n" MLESS "07 02 03 01 01 64 00 00",
     "reading frame 1's line for stack 1: unexpected EOF"},
    {"A String in a Stacks batch", P1IDLE "\n" MLESS "04 02 05 01 00",
     "expected stack event, got 5"},
    /* CPU samples */
    {"CPU samples", "cpu 7 1 0 1 0\ncpu 3 1 - 0 0\n" P1IDLE, NULL},
    {"A String in a CPUSamples batch", P1IDLE "\n" MLESS "04 06 05 01 00",
     "expected CPU sample event, got 5"},
    {"A CPU sample cut in its goroutine", P1IDLE "\n" MLESS "06 06 07 01 01 01 81",
     "unexpected EOF"},
};
DT_TABLE_TEST(reader, tables, tables)

/* The limits: strings of 1024 bytes, stacks of 128 frames. */
static struct dt_verdict with_sizes(size_t strlen_, size_t frames)
{
    size_t cap = 2048 + frames * 16;
    char *t = malloc(cap);
    cr_assert(t != NULL);
    size_t n = (size_t)snprintf(t, cap, "str 1 ");
    memset(t + n, 'x', strlen_);
    n += strlen_;
    n += (size_t)snprintf(t + n, cap - n, "\nstack 1");
    for (size_t i = 0; i < frames; i++)
        n += (size_t)snprintf(t + n, cap - n, " %zu 1 0 %zu", i + 1, i);
    snprintf(t + n, cap - n, "\n" P1IDLE);
    struct dt_verdict v = dt_run(t);
    free(t);
    return v;
}

Test(reader, string_and_stack_limits)
{
    struct dt_verdict v = with_sizes(1024, 128);
    cr_expect(v.ok, "1024-byte string, 128 frames: %s", v.err.msg);
    v = with_sizes(1025, 1);
    cr_expect(!v.ok && strstr(v.err.msg, "invalid string size 1025, maximum is 1024"), "%s",
              v.err.msg);
    v = with_sizes(1, 129);
    cr_expect(!v.ok && strstr(v.err.msg, "invalid stack size 129, maximum is 128"), "%s",
              v.err.msg);
}

/* Within a generation the first frame given for a pc is the frame of every stack. */
Test(reader, first_frame_of_a_pc_wins)
{
    struct dt_buf t = {0};
    dt_build(&t, "str 1 f\nstr 2 g\nstack 1 100 1 0 7\nstack 2 100 2 0 9 200 2 0 3\n" P1IDLE);
    struct gd_dec d;
    cr_assert_eq(gd_dec_fdopen(&d, dt_memfd(t.b, t.n), 1 << 20), 0);
    struct gd_tev e;
    cr_assert_eq(gd_dec_next(&d, &e), 1);
    const uint64_t *pcs;
    uint32_t n;
    cr_assert(gd_gen_stack(&d.gen, 2, &pcs, &n));
    cr_assert_eq(n, 2);
    const struct gd_frame *f = gd_gen_frame(&d.gen, pcs[0]);
    cr_assert(f != NULL);
    cr_assert_eq(f->func, 1);
    cr_assert_eq(f->line, 7);
    cr_assert_eq(gd_gen_frame(&d.gen, pcs[1])->line, 3);
    cr_assert(!gd_gen_stack(&d.gen, 3, &pcs, &n), "stack 3 is not defined");
    gd_dec_close(&d);
    dt_free(&t);
}

/* A small trace of two generations with every kind of batch. */
static const char small[] = "str 1 sync\n"
                            "str 2 main\n"
                            "stack 1 100 2 0 7\n"
                            "cpu 3 1 0 1 1\n"
                            "M 1: ProcStatus 0 Running; GoStatus 1 1 Running; GoCreate 2 1 1\n"
                            "M 2: ProcStatus 1 Idle; ProcStart 1 1; GoStart 2 1; GoBlock 1 1\n"
                            "M 1: GoUnblock 2 2 1; GoSyscallBegin 1 1\n"
                            "gen 2\n"
                            "str 1 sync\n"
                            "M 1: ProcStatus 0 Syscall; GoStatus 1 1 Syscall; GoSyscallEnd\n"
                            "M 2: ProcStatus 1 Running; GoStatus 2 - Runnable; GoStart 2 1\n";

/* Cut at every byte: an error, except where the bytes before the cut are a valid trace by
 * themselves: the end of generation 1 (162), and the ends of the event batches after which
 * what is there still orders (108, 127, 148 in generation 1, 220 in generation 2: each cut
 * checked with gotracevalidate, which agrees at every byte). A cut in generation 2 still gives
 * every event of generation 1 first; nothing crashes. */
Test(reader, truncated_at_every_byte)
{
    static const size_t valid_cuts[] = {108, 127, 148, 162, 220};
    struct dt_buf t = {0}, g1 = {0};
    dt_build(&t, small);
    dt_build(&g1, "str 1 sync\nstr 2 main\nstack 1 100 2 0 7\ncpu 3 1 0 1 1\n"
                  "M 1: ProcStatus 0 Running; GoStatus 1 1 Running; GoCreate 2 1 1\n"
                  "M 2: ProcStatus 1 Idle; ProcStart 1 1; GoStart 2 1; GoBlock 1 1\n"
                  "M 1: GoUnblock 2 2 1; GoSyscallBegin 1 1\n");
    cr_assert(g1.n < t.n && !memcmp(g1.b, t.b, g1.n), "gen 1 is a prefix of the trace");
    cr_assert_eq(g1.n, 162);
    cr_assert_eq(t.n, 247);
    struct dt_verdict whole = dt_run_bytes(t.b, t.n), first = dt_run_bytes(g1.b, g1.n);
    cr_assert(whole.ok && first.ok, "%s %s", whole.err.msg, first.err.msg);
    cr_assert_eq(first.events, 11); /* 9 events, a CPU sample, Sync */
    cr_assert_eq(whole.events, first.events + 7);
    for (size_t len = 0, k = 0; len < t.n; len++) {
        struct dt_verdict v = dt_run_bytes(t.b, len);
        int valid = k < DT_NROWS(valid_cuts) && len == valid_cuts[k];
        k += valid;
        if (valid) {
            cr_expect(v.ok, "cut at %zu: %s", len, v.err.msg);
        } else {
            cr_expect(!v.ok, "cut at %zu of %zu is accepted", len, t.n);
            cr_expect(v.err.msg[0], "cut at %zu: no message", len);
        }
        if (len >= g1.n)
            cr_expect_geq(v.events, first.events, "cut at %zu: %llu events", len,
                          (unsigned long long)v.events);
    }
    dt_free(&t);
    dt_free(&g1);
}

/* Every byte flipped (each bit pattern inverted, then a single low bit): a verdict, never a
 * crash; the flips of the header's magic are refused. */
Test(reader, every_byte_flipped)
{
    struct dt_buf t = {0};
    dt_build(&t, small);
    for (size_t i = 0; i < t.n; i++) {
        for (int k = 0; k < 2; k++) {
            uint8_t mask = k ? 0x01 : 0xff, old = t.b[i];
            t.b[i] ^= mask;
            struct dt_verdict v = dt_run_bytes(t.b, t.n);
            if (i < 5) cr_expect(!v.ok, "flip of header byte %zu accepted", i);
            if (!v.ok) cr_expect(v.err.msg[0], "flip at %zu: no message", i);
            t.b[i] = old;
        }
    }
    dt_free(&t);
}
