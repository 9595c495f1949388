/* reader.h: reads a Go 1.22/1.23 trace one generation at a time (Go's generation.go and
 * batch.go): the file header, the batches, and per generation its event batches, its string,
 * stack and frame tables, its CPU samples and its frequency.
 * A generation has no end marker: it ends where a batch of the next one starts, or at the end
 * of the file. So the reader must read one batch too far to know a generation is complete; that
 * batch is kept (the spill) and opens the next generation on the next call.
 * Invariants: only one generation (plus one look-ahead batch) is in memory; every length and
 * count from the file is checked before it is used; a generation whose memory would exceed
 * max_gen_mem is refused. A read error after a generation's first batch is deferred: the
 * generation read so far is returned and the error comes with the next call (as Go does). */
#ifndef GOTRACE_DECODER_READER_H
#define GOTRACE_DECODER_READER_H

#include "gderr.h"
#include "hmap.h"
#include "input.h"

#include "go_wire.h"

#include <stddef.h>
#include <stdint.h>

/* An event batch: one piece of thread m's stream, events in order from base time ts (ticks). */
struct gd_batch {
    uint64_t m, ts;
    size_t off;   /* payload offset in gen->data */
    uint32_t len; /* payload length */
    int64_t foff; /* file offset of the payload */
};

struct gd_str {
    size_t off; /* in gen->data: the strings batch's payload is kept there */
    uint32_t len;
};

struct gd_stk {
    size_t first; /* index in gen->pcs */
    uint32_t n;
};

/* A pc's frame: func and file are string ids of the same generation (checked when it ends). */
struct gd_frame {
    uint64_t pc, func, file, line;
};

/* A CPU sample: when (ticks on reading, ns once the generation is complete), where it was
 * taken (thread, proc or GD_NONE, goroutine or GD_NONE for the wire's 0, as Go reads it), and
 * the sampled stack. */
struct gd_cpu {
    int64_t time;
    uint64_t m, p, g, stack;
};

/* One generation, self-contained: ids of strings and stacks and the pc -> frame map mean
 * something only within it. The arrays are reused from one generation to the next. */
struct gd_gen {
    uint64_t num;
    uint64_t freq;      /* ticks per second */
    double ns_per_tick; /* 1 / (freq / 1e9), computed as Go computes it */
    int has_freq;
    uint8_t *data; /* all event/strings batch payloads */
    size_t dlen, dcap;
    struct gd_batch *b; /* event batches, file order */
    size_t nb, bcap;
    struct gd_hmap strmap; /* string id -> index in strs */
    struct gd_str *strs;
    size_t nstr, strcap;
    struct gd_hmap stkmap; /* stack id -> index in stks */
    struct gd_stk *stks;
    size_t nstk, stkcap;
    uint64_t *pcs;
    size_t npcs, pcscap;
    struct gd_hmap pcmap; /* pc -> index in frames (first definition wins) */
    struct gd_frame *frames;
    size_t nfr, frcap;
    struct gd_cpu *cpu; /* sorted by time */
    size_t ncpu, cpucap;
    uint8_t *sync; /* payloads of gotrace's experimental batches (GT_EXP_SYNC, go_wire.h) */
    size_t nsync, synccap;
    /* gotrace's process batch (GT_EXP_PROC, go_wire.h), if the generation has one: which
     * process wrote it. A malformed one is ignored, as Go ignores experimental data. */
    int has_proc;
    uint64_t pid, ppid;
    uint64_t pgid; /* its process group at the generation's end; 0 not known (older tracers) */
    char pname[GT_PROC_NAME_MAX + 1]; /* NUL-terminated */
    uint8_t *procs; /* payloads of a merged trace's process records (GT_EXP_PROCS, go_wire.h) */
    size_t nprocs, procscap;
    size_t mem;
    int64_t foff; /* file offset of the generation's first batch */
};

struct gd_reader {
    struct gd_in in;
    int fd;
    size_t max_gen_mem;
    int started, ended; /* a generation was asked for; nothing more will be read */
    int have_spill;
    /* The look-ahead batch, header and payload, read while looking for the end of the current
     * generation; its payload is at most 64 KiB (Go's limit), so one fixed buffer holds any. */
    struct {
        uint64_t gen, m, ts;
        uint8_t exp;
        uint32_t len;
        int64_t foff, hoff;
        uint8_t data[65536];
    } spill;
    int has_pending; /* an error that ended the last generation early, for the next call */
    struct gd_err pending;
    /* Set when a table entry ended exactly at its batch's end: Go's reader then reports a
     * clean end of trace (and drops that generation); we do the same and keep why. */
    int has_go_eof;
    struct gd_err go_eof;
};

/* Opens path ("-" = stdin) and checks the header; 0 or -1 with err set. A generation needing
 * more than max_gen_mem bytes is refused with an error. r is closable whatever the result. */
int gd_reader_open(struct gd_reader *r, const char *path, size_t max_gen_mem, struct gd_err *err);
/* Reads from an already open descriptor (the fuzzer uses a pipe or memfd), which the reader
 * then owns; 0 or -1 as gd_reader_open. */
int gd_reader_fdopen(struct gd_reader *r, int fd, size_t max_gen_mem, struct gd_err *err);
/* Frees the input buffer and closes the descriptor (never standard input). */
void gd_reader_close(struct gd_reader *r);
/* Reads the next generation into g (reusing its memory): 1 = read, 0 = end, -1 = error. At 0,
 * has_go_eof says whether the end was Go's early end (go_eof tells why). After 0 or -1 every
 * call returns 0. */
int gd_reader_next(struct gd_reader *r, struct gd_gen *g, struct gd_err *err);

/* Frees g's tables; g is then empty again. */
void gd_gen_free(struct gd_gen *g);
/* String id -> bytes (not NUL-terminated) or NULL if undefined; id 0 is "". */
const char *gd_gen_str(const struct gd_gen *g, uint64_t id, uint32_t *len);
/* gd_gen_str, with "" (and *len 0) for an undefined string; len must not be NULL. */
const char *gd_str(const struct gd_gen *g, uint64_t id, uint32_t *len);
/* Stack id -> pcs (leaf first); 0 if undefined. Id 0 is the empty stack. */
int gd_gen_stack(const struct gd_gen *g, uint64_t id, const uint64_t **pcs, uint32_t *n);
/* The frame of pc (the first one the generation gave it), or NULL if no stack has pc. */
const struct gd_frame *gd_gen_frame(const struct gd_gen *g, uint64_t pc);
/* Ticks -> ns with Go's float64 arithmetic and amd64 conversion of out-of-range values. */
int64_t gd_ticks_to_ns(const struct gd_gen *g, uint64_t ticks);

#endif
