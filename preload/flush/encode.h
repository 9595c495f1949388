/* encode.h: the flusher's side of the wire encoding (event.h holds the writers' side): a growable
 * byte area, event batches, untimed status events, and the structural batches of a generation
 * (stacks, strings, frequency, CPU samples), each behind an EventBatch header whose size is
 * patched when it ends.
 * Invariants: used by the flusher only (may allocate: never on the event path); allocation
 * failure stops tracing (state_fail) and leaves the area short, never corrupt: the caller must
 * check state_failed() before writing it out; a structural batch never exceeds
 * GO_MAX_BATCH_PAYLOAD (enc_struct_room opens the next one first). */
#ifndef GOTRACE_ENCODE_H
#define GOTRACE_ENCODE_H
#include "go_wire.h"
#include "symbolize.h"

#include <stddef.h>
#include <stdint.h>

struct gt_bytes {
    uint8_t *p;
    size_t len, cap;
    size_t batch; /* offset of the open structural batch's size field */
};

void enc_put(struct gt_bytes *b, const void *src, size_t n);
/* The frames of a Stack on the wire into out, at most ENC_FRAME_MAX bytes a frame: the length.
 * Pure: the same frames always give the same bytes (symbolize.h keeps them so). */
#define ENC_FRAME_MAX (4 * GO_MAX_UVARINT_LEN)
_Static_assert(ENC_FRAME_MAX <= SYM_MAX_WIRE_FRAME, "symbolize.c keeps a frame's wire form");
size_t enc_frames(uint8_t *out, const struct sym_frame *fr, int n);
void enc_uv(struct gt_bytes *b, uint64_t v);
/* An event batch of thread m (GO_NO_THREAD: none) holding len bytes of events from ts. */
void enc_batch(struct gt_bytes *b, uint64_t gen, uint64_t m, uint64_t ts, const uint8_t *data,
               size_t len);
/* One event with dt 0 (the statuses written at a switch). */
void enc_event(struct gt_bytes *b, uint8_t type, int n, const uint64_t *args);

/* Structural batches of kind (GO_EV_STACKS, GO_EV_STRINGS, ...) of file generation gen. */
void enc_struct_begin(struct gt_bytes *b, uint64_t gen, uint8_t kind);
void enc_struct_end(struct gt_bytes *b);
/* Starts a new batch of the same kind when an item of item_max bytes might not fit. */
void enc_struct_room(struct gt_bytes *b, uint64_t gen, uint8_t kind, size_t item_max);
/* Items of the open structural batch. */
/* A Stack of n frames, already on the wire (len bytes: enc_frames). */
void enc_stack(struct gt_bytes *b, uint64_t gen, uint64_t id, int n, const uint8_t *frames,
               size_t len);
void enc_string(struct gt_bytes *b, uint64_t gen, uint64_t id, const char *s, size_t len);
void enc_frequency(struct gt_bytes *b, uint64_t gen, uint64_t ticks_per_sec);
/* One CPU sample {ts, m, p, g, stack}; *open: the sample batch was begun (the first opens it). */
void enc_cpu_sample(struct gt_bytes *b, uint64_t gen, const uint64_t rec[5], int *open);
/* Keeps the process's short name (argv[0]'s last part) as it is at the tracer's start, before
 * main: a server may write its status over argv later (PostgreSQL's "postgres: checkpointer"
 * over argv[0]'s bytes). A forked child inherits the copy, an exec'd image makes its own. */
void enc_process_name_keep(void);
/* gotrace's process batch (GT_EXP_PROC, go_wire.h) of generation gen: this process's pid,
 * its parent's, read now (a forked child has its own pid), its kept name and its process group,
 * read now. Three system calls a generation, on the flusher. */
void enc_process(struct gt_bytes *b, uint64_t gen);
#endif
