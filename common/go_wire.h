/* go_wire.h: constants of the Go 1.23 execution trace wire format, shared by the tracer
 * (preload/) and the decoder (decoder/). Values are fixed by Go's
 * src/internal/trace/event/go122/event.go; see docs/go-trace-format.md.
 * Invariant: nothing here allocates or has state; it is the single place these numbers live. */
#ifndef GOTRACE_GO_WIRE_H
#define GOTRACE_GO_WIRE_H

#define GO_TRACE_HEADER "go 1.23 trace\0\0\0"
#define GO_TRACE_HEADER_LEN 16

enum go_ev {
    GO_EV_NONE = 0,
    GO_EV_EVENT_BATCH = 1,
    GO_EV_STACKS = 2,
    GO_EV_STACK = 3,
    GO_EV_STRINGS = 4,
    GO_EV_STRING = 5,
    GO_EV_CPU_SAMPLES = 6,
    GO_EV_CPU_SAMPLE = 7,
    GO_EV_FREQUENCY = 8,
    GO_EV_PROCS_CHANGE = 9,
    GO_EV_PROC_START = 10,
    GO_EV_PROC_STOP = 11,
    GO_EV_PROC_STEAL = 12,
    GO_EV_PROC_STATUS = 13,
    GO_EV_GO_CREATE = 14,
    GO_EV_GO_CREATE_SYSCALL = 15,
    GO_EV_GO_START = 16,
    GO_EV_GO_DESTROY = 17,
    GO_EV_GO_DESTROY_SYSCALL = 18,
    GO_EV_GO_STOP = 19,
    GO_EV_GO_BLOCK = 20,
    GO_EV_GO_UNBLOCK = 21,
    GO_EV_GO_SYSCALL_BEGIN = 22,
    GO_EV_GO_SYSCALL_END = 23,
    GO_EV_GO_SYSCALL_END_BLOCKED = 24,
    GO_EV_GO_STATUS = 25,
    GO_EV_STW_BEGIN = 26,
    GO_EV_STW_END = 27,
    GO_EV_GC_ACTIVE = 28,
    GO_EV_GC_BEGIN = 29,
    GO_EV_GC_END = 30,
    GO_EV_GC_SWEEP_ACTIVE = 31,
    GO_EV_GC_SWEEP_BEGIN = 32,
    GO_EV_GC_SWEEP_END = 33,
    GO_EV_GC_MARK_ASSIST_ACTIVE = 34,
    GO_EV_GC_MARK_ASSIST_BEGIN = 35,
    GO_EV_GC_MARK_ASSIST_END = 36,
    GO_EV_HEAP_ALLOC = 37,
    GO_EV_HEAP_GOAL = 38,
    GO_EV_GO_LABEL = 39,
    GO_EV_USER_TASK_BEGIN = 40,
    GO_EV_USER_TASK_END = 41,
    GO_EV_USER_REGION_BEGIN = 42,
    GO_EV_USER_REGION_END = 43,
    GO_EV_USER_LOG = 44,
    GO_EV_GO_SWITCH = 45,
    GO_EV_GO_SWITCH_DESTROY = 46,
    GO_EV_GO_CREATE_BLOCKED = 47,
    GO_EV_GO_STATUS_STACK = 48,
    GO_EV_EXPERIMENTAL_BATCH = 49,
};

/* Goroutine statuses (GoStatus, GoStatusStack). */
enum go_gstatus {
    GO_G_BAD = 0,
    GO_G_RUNNABLE = 1,
    GO_G_RUNNING = 2,
    GO_G_SYSCALL = 3,
    GO_G_WAITING = 4
};
/* Proc statuses (ProcStatus). */
enum go_pstatus {
    GO_P_BAD = 0,
    GO_P_RUNNING = 1,
    GO_P_IDLE = 2,
    GO_P_SYSCALL = 3,
    GO_P_SYSCALL_ABANDONED = 4
};

/* gotrace's experimental batch (docs/locks.md): its id, and the records it holds, each
 * `type, uvarint ts, uvarint m, uvarint addr` then for a wait `uvarint object reason string,
 * uvarint holder TID (0 unknown; GT_SYNC_HOLDER_G | goroutine id)` and for a release `uvarint
 * stack`. Go's tools ignore it. */
#define GT_EXP_SYNC 7
enum { GT_SYNC_WAIT = 1, GT_SYNC_RELEASE = 2 };
/* Lock tracking's records (docs/locks.md section 7), written after a generation's waits and
 * releases, so a reader that stops at a type it does not know loses none of those:
 * an order edge (lock addr taken while lock c held) `uvarint addr's name, uvarint stack that
 * took it, uvarint c, uvarint c's name, uvarint c's acquisition site (a stack), uvarint modes
 * (addr's | c's << 4: 1 read, 2 write, 4 try)`; a hold statistic (cumulative since the start; m
 * 0) `uvarint name, acquisitions, owner changes, total ticks, longest ticks, uvarint stack of
 * the longest`; a lock held at its thread's end `uvarint name, uvarint acquisition site`. */
enum { GT_SYNC_ORDER = 3, GT_SYNC_HOLD = 4, GT_SYNC_EXIT_HELD = 5 };
#define GT_SYNC_HOLDER_G (1ull << 63) /* a holder that is a goroutine id (a thread not started) */

/* gotrace's process batch, one per generation: `uvarint pid, uvarint ppid, uvarint len, name`
 * (the program's short name, at most GT_PROC_NAME_MAX bytes), then `uvarint pgid` (the process
 * group when the generation was written; absent in traces of tracers before 2026-12-08 and in
 * generations `gotrace recover` rebuilt: not known), so that traces of several processes can be
 * merged into one, each thread shown with its process and a signal to a group linked to the
 * waits it ended (docs/processes.md). Readers ignore what follows the fields they know. */
#define GT_EXP_PROC 8
#define GT_PROC_NAME_MAX 64
/* The process of each goroutine of a merged trace (`gotrace merge`, docs/processes.md): records
 * `uvarint goroutine, uvarint pid, uvarint len, name`, in each generation for every goroutine
 * alive at its start or created in it. Go's tools ignore it. */
#define GT_EXP_PROCS 9
#define GO_NO_THREAD ((unsigned long long)-1) /* m = 2^64-1: the M-less stream */
#define GO_MAX_BATCH_PAYLOAD 65536
#define GO_MAX_STRING_LEN 1024
#define GO_MAX_STACK_FRAMES 128
#define GO_MAX_UVARINT_LEN 10

#endif
