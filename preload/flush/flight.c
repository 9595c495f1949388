/* flight.c: the flight recorder's ring of encoded generations. See flight.h. */
#include "flight.h"

#include "clock.h"
#include "config.h"
#include "event.h"
#include "go_wire.h"
#include "log.h"
#include "pages.h"
#include "real.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kept {
    uint8_t *p;
    size_t len;
    uint64_t start_ns, end_ns; /* the span the generation covers (about) */
};

static struct {
    int on;
    uint64_t window_ns;
    size_t cap, bytes;
    struct kept *ring; /* oldest first */
    size_t n, size;
    uint64_t number, last_end_ns;
    unsigned dumps;
} L;
/* The path dumps are named after, apart from L: every process reads L.on. */
static char dump_base[GT_PATH_MAX] GT_BIG;

void flight_init(uint32_t window_s, uint32_t cap_mb, const char *path)
{
    L.on = window_s > 0;
    L.window_ns = (uint64_t)window_s * 1000000000ull;
    L.cap = (size_t)cap_mb << 20;
    L.last_end_ns = gt_now_ns();
    snprintf(dump_base, sizeof dump_base, "%s", path);
    if (L.on) state_set_output_name(dump_base);
}

int flight_on(void)
{
    return L.on;
}

uint64_t flight_next_number(void)
{
    return ++L.number;
}

static void drop_oldest(void)
{
    L.bytes -= L.ring[0].len;
    free(L.ring[0].p);
    memmove(L.ring, L.ring + 1, (L.n - 1) * sizeof *L.ring);
    L.n--;
}

/* The oldest goes while the next one still begins inside the window, or while over the cap. */
static void trim(void)
{
    uint64_t cutoff = L.ring[L.n - 1].end_ns - L.window_ns;
    while (L.n > 1 && (L.ring[1].start_ns <= cutoff || L.bytes > L.cap))
        drop_oldest();
}

void flight_keep(const uint8_t *p, size_t len)
{
    uint64_t now = gt_now_ns();
    if (L.n == L.size) {
        size_t size = L.size ? L.size * 2 : 16;
        struct kept *r = realloc(L.ring, size * sizeof *r);
        if (!r) return; /* this generation is not kept: the older ones still are */
        L.ring = r;
        L.size = size;
    }
    uint8_t *copy = malloc(len);
    if (!copy) return;
    memcpy(copy, p, len);
    L.ring[L.n++] = (struct kept){copy, len, L.last_end_ns, now};
    L.bytes += len;
    L.last_end_ns = now;
    trim();
}

/* Copies one kept generation to out with every batch's generation set to gen; its length. */
static size_t renumber(const struct kept *k, uint64_t gen, uint8_t *out)
{
    size_t at = 0, o = 0;
    while (at < k->len) {
        const uint8_t *b = k->p + at;
        size_t h = b[0] == GO_EV_EXPERIMENTAL_BATCH ? 2 : 1, used;
        memcpy(out + o, b, h);
        o += h;
        uint64_t v[4];
        used = h;
        for (int i = 0; i < 4; i++)
            used += ev_get_uvarint(b + used, k->len - at - used, &v[i]);
        o = (size_t)(ev_put_uvarint(ev_put_uvarint(out + o, gen), v[1]) - out);
        o = (size_t)(ev_put_uvarint(ev_put_uvarint(out + o, v[2]), v[3]) - out);
        memcpy(out + o, b + used, v[3]);
        o += v[3];
        at += used + v[3];
    }
    return o;
}

/* Dump n's path: the output path, then <stem>-dump<n>.trace. */
static void dump_path(char *out, size_t size, unsigned n)
{
    size_t len = strlen(dump_base);
    const char *ext = len >= 6 && strcmp(dump_base + len - 6, ".trace") == 0 ? ".trace" : "";
    if (n == 1)
        snprintf(out, size, "%s", dump_base);
    else
        snprintf(out, size, "%.*s-dump%u%s", (int)(len - strlen(ext)), dump_base, n, ext);
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        p += k;
        n -= (size_t)k;
    }
    int e = errno;
    if (REAL(close)(fd) != 0 || n) {
        unlink(path); /* complete or nothing */
        errno = n ? e : errno;
        return -1;
    }
    return 0;
}

int flight_dump(void)
{
    if (!L.on || !L.n) return -1;
    size_t total = GO_TRACE_HEADER_LEN; /* kept i had number >= i + 1: never longer */
    for (size_t i = 0; i < L.n; i++)
        total += L.ring[i].len;
    uint8_t *buf = malloc(total);
    if (!buf) return -1;
    memcpy(buf, GO_TRACE_HEADER, GO_TRACE_HEADER_LEN);
    size_t o = GO_TRACE_HEADER_LEN;
    for (size_t i = 0; i < L.n; i++)
        o += renumber(&L.ring[i], i + 1, buf + o);
    char path[GT_PATH_MAX + 32];
    dump_path(path, sizeof path, ++L.dumps);
    int r = write_file(path, buf, o);
    free(buf);
    if (r != 0)
        gt_log("cannot write the flight recorder's dump %s: %s", path, strerror(errno));
    else
        gt_debug("flight recorder: %zu generation(s) written to %s", L.n, path);
    return r;
}

void flight_fork_child(const char *path)
{
    while (L.n)
        drop_oldest();
    L.dumps = 0;
    L.last_end_ns = gt_now_ns();
    snprintf(dump_base, sizeof dump_base, "%s", path);
}
