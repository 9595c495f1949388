/* encode.c: the flusher's wire encoding. See encode.h for the invariants. */
#include "encode.h"

#include "arena.h"
#include "event.h"
#include "go_wire.h"
#include "invariant.h"
#include "state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int reserve(struct gt_bytes *b, size_t n)
{
    if (b->len + n <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        state_fail("out of memory while writing a generation");
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void enc_put(struct gt_bytes *b, const void *src, size_t n)
{
    if (reserve(b, n) == 0) {
        memcpy(b->p + b->len, src, n);
        b->len += n;
    }
}

void enc_uv(struct gt_bytes *b, uint64_t v)
{
    uint8_t tmp[GO_MAX_UVARINT_LEN];
    enc_put(b, tmp, (size_t)(ev_put_uvarint(tmp, v) - tmp));
}

void enc_batch(struct gt_bytes *b, uint64_t gen, uint64_t m, uint64_t ts, const uint8_t *data,
               size_t len)
{
    uint8_t hdr[GT_BATCH_HEADER_MAX];
    enc_put(b, hdr, ev_batch_header(hdr, gen, m, ts, len));
    enc_put(b, data, len);
}

void enc_event(struct gt_bytes *b, uint8_t type, int n, const uint64_t *args)
{
    uint8_t tmp[GT_EV_MAX];
    enc_put(b, tmp, (size_t)(ev_encode(tmp, type, 0, n, args) - tmp));
}

/* The header's size is 3 bytes, patched by enc_struct_end. */
void enc_struct_begin(struct gt_bytes *b, uint64_t gen, uint8_t kind)
{
    enc_put(b, (uint8_t[]){GO_EV_EVENT_BATCH}, 1);
    enc_uv(b, gen);
    enc_uv(b, GO_NO_THREAD);
    enc_uv(b, 0);
    b->batch = b->len;
    enc_put(b, (uint8_t[]){0x80, 0x80, 0}, 3);
    enc_put(b, &kind, 1);
}

void enc_struct_end(struct gt_bytes *b)
{
    if (state_failed()) return;
    size_t size = b->len - b->batch - 3;
    GT_ASSERT(size <= GO_MAX_BATCH_PAYLOAD && size < (1u << 21)); /* fits its 3-byte size */
    uint8_t *p = b->p + b->batch;
    p[0] = (uint8_t)(0x80 | (size & 0x7f));
    p[1] = (uint8_t)(0x80 | ((size >> 7) & 0x7f));
    p[2] = (uint8_t)(size >> 14);
}

void enc_struct_room(struct gt_bytes *b, uint64_t gen, uint8_t kind, size_t item_max)
{
    if (b->len - b->batch - 3 + item_max > GO_MAX_BATCH_PAYLOAD) {
        enc_struct_end(b);
        enc_struct_begin(b, gen, kind);
    }
}

size_t enc_frames(uint8_t *out, const struct sym_frame *fr, int n)
{
    uint8_t *p = out;
    for (int i = 0; i < n; i++) {
        p = ev_put_uvarint(p, fr[i].pc);
        p = ev_put_uvarint(p, fr[i].func_str);
        p = ev_put_uvarint(p, fr[i].file_str);
        p = ev_put_uvarint(p, fr[i].line);
    }
    return (size_t)(p - out);
}

void enc_stack(struct gt_bytes *b, uint64_t gen, uint64_t id, int n, const uint8_t *frames,
               size_t len)
{
    size_t most = 1 + 2 * GO_MAX_UVARINT_LEN + len;
    enc_struct_room(b, gen, GO_EV_STACKS, most);
    if (reserve(b, most) != 0) return;
    uint8_t *p = b->p + b->len; /* room for the largest encoding: varints written in place */
    *p++ = GO_EV_STACK;
    p = ev_put_uvarint(p, id);
    p = ev_put_uvarint(p, (uint64_t)n);
    memcpy(p, frames, len);
    b->len = (size_t)(p + len - b->p);
}

void enc_string(struct gt_bytes *b, uint64_t gen, uint64_t id, const char *s, size_t len)
{
    enc_struct_room(b, gen, GO_EV_STRINGS, 3 * 10 + len);
    enc_put(b, (uint8_t[]){GO_EV_STRING}, 1);
    enc_uv(b, id);
    enc_uv(b, len);
    enc_put(b, s, len);
}

void enc_frequency(struct gt_bytes *b, uint64_t gen, uint64_t ticks_per_sec)
{
    enc_struct_begin(b, gen, GO_EV_FREQUENCY);
    enc_uv(b, ticks_per_sec);
    enc_struct_end(b);
}

void enc_cpu_sample(struct gt_bytes *b, uint64_t gen, const uint64_t rec[5], int *open)
{
    if (!*open) enc_struct_begin(b, gen, GO_EV_CPU_SAMPLES);
    *open = 1;
    enc_struct_room(b, gen, GO_EV_CPU_SAMPLES, 1 + 5 * GO_MAX_UVARINT_LEN);
    enc_put(b, (uint8_t[]){GO_EV_CPU_SAMPLE}, 1);
    for (int i = 0; i < 5; i++)
        enc_uv(b, rec[i]);
}

static char proc_name[GT_PROC_NAME_MAX + 1]; /* enc_process_name_keep's copy */

void enc_process_name_keep(void)
{
    /* program_invocation_short_name: argv[0]'s last part, set by glibc before any constructor,
     * so it names the image that runs (after exec, the new one). */
    const char *name = program_invocation_short_name ? program_invocation_short_name : "";
    size_t n = strnlen(name, GT_PROC_NAME_MAX);
    memcpy(proc_name, name, n);
    proc_name[n] = 0;
}

void enc_process(struct gt_bytes *b, uint64_t gen)
{
    const char *name = proc_name;
    size_t n = strlen(name);
    uint8_t payload[4 * GO_MAX_UVARINT_LEN + GT_PROC_NAME_MAX], *q = payload;
    /* The process's pid is the live file's: the last generation of a process dying of a fatal
     * signal is written by a child it forks for that (docs/robustness.md), whose own pid is
     * not the process's; its parent is then not known (0). */
    struct gt_live_head *h = arena_head();
    pid_t self = getpid(), pid = h ? (pid_t)h->pid : self;
    q = ev_put_uvarint(q, (uint64_t)pid);
    q = ev_put_uvarint(q, pid == self ? (uint64_t)getppid() : 0);
    q = ev_put_uvarint(q, n);
    memcpy(q, name, n);
    q += n;
    q = ev_put_uvarint(q, (uint64_t)getpgrp()); /* (a dying process's child shares its group) */
    enc_put(b, (uint8_t[]){GO_EV_EXPERIMENTAL_BATCH, GT_EXP_PROC}, 2);
    enc_uv(b, gen);
    enc_uv(b, GO_NO_THREAD);
    enc_uv(b, 0);
    enc_uv(b, (uint64_t)(q - payload));
    enc_put(b, payload, (size_t)(q - payload));
}
