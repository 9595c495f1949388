/* merge.h: `gotrace merge`: the traces of several processes of one machine as ONE Go trace
 * (docs/processes.md). Each input is decoded in Go's order (decode.h); the inputs are merged by
 * time (every process times its events in ns on CLOCK_MONOTONIC, or on the TSC anchored to it)
 * and re-encoded as new generations, time windows of the merged run, each with its own string
 * and stack tables and the status of every live goroutine and proc at its start.
 * Invariants: goroutine, proc and task ids are renumbered so that processes never share one; a
 * thread keeps its TID unless another live process holds the same one; a goroutine first seen
 * after the first output generation is introduced by a creation event, never by a status; a
 * process's goroutines and procs end when its trace ends; every gotrace sync record is carried
 * (one of a type not known stops the merge), and with more than one input a sync object
 * private to a process is named with it ("mutex ledger_lock in locks[1234]"); memory holds the open inputs' current
 * generations and the live goroutines, procs and threads, never the whole trace: an input is
 * opened when the merge reaches its first event and closed at its last. */
#ifndef GOTRACE_DECODER_MERGE_H
#define GOTRACE_DECODER_MERGE_H

#include "gderr.h"

#include <stddef.h>
#include <stdint.h>

/* Where the merged trace goes: write(ctx, bytes, n) returns 0, or -1 on a failed write. */
struct gd_merge_out {
    int (*write)(void *ctx, const void *p, size_t n);
    void *ctx;
};

/* Merges the n traces at paths into one written through out. rename: prefix each thread's name
 * with its process ("sort[8541] main"), as when there is more than one process. window_ns: the
 * longest output generation (0: 1 s). Returns 0, or -1 with err set and *bad the index of the
 * input at fault (n when the output failed). */
int gd_merge(const char *const *paths, size_t n, int rename, int64_t window_ns,
             const struct gd_merge_out *out, struct gd_err *err, size_t *bad);

#endif
