/* evspec.c: the event table (see evspec.h).
 * Structural events (batch headers, tables, frequency) have no dt and are not timed: one of
 * them inside an event batch is refused as Go refuses it ("found event without a timestamp").
 * Argument counts must match Go's exactly: an event's length on the wire is only known from
 * them, so one argument too many or too few desynchronises the rest of its batch. */
#include "evspec.h"

#include "go_wire.h"

/* T: a timed event and its argument names; S1/S2: which arguments are stack ids, R1/R2: which
 * are string ids; TX/TX2 add one or two of those to T. */
#define T(n, ...)                                                                                  \
    {                                                                                              \
        .name = n, .timed = 1, .nargs = NARGS(__VA_ARGS__), .argn = { __VA_ARGS__ }                \
    }
#define NARGS(...) (sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *))
#define S1(a) .nstk = 1, .stk = {a}
#define S2(a, b) .nstk = 2, .stk = {a, b}
#define R1(a) .nstr = 1, .str = {a}
#define R2(a, b) .nstr = 2, .str = {a, b}
#define TX(n, extra, ...)                                                                          \
    {                                                                                              \
        .name = n, .timed = 1, .nargs = NARGS(__VA_ARGS__), .argn = {__VA_ARGS__}, extra           \
    }
#define TX2(n, e1, e2, ...)                                                                        \
    {                                                                                              \
        .name = n, .timed = 1, .nargs = NARGS(__VA_ARGS__), .argn = {__VA_ARGS__}, e1, e2          \
    }

const struct gd_evspec gd_specs[GD_NSPECS] = {
    [GO_EV_EVENT_BATCH] = {.name = "EventBatch"},
    [GO_EV_STACKS] = {.name = "Stacks"},
    [GO_EV_STACK] = {.name = "Stack"},
    [GO_EV_STRINGS] = {.name = "Strings"},
    [GO_EV_STRING] = {.name = "String"},
    [GO_EV_CPU_SAMPLES] = {.name = "CPUSamples"},
    /* Not timed (its absolute time is read by reader.c); the names serve the dump. */
    [GO_EV_CPU_SAMPLE] = {.name = "CPUSample", .nargs = 4, .argn = {"m", "p", "g", "stack"}},
    [GO_EV_FREQUENCY] = {.name = "Frequency"},
    [GO_EV_PROCS_CHANGE] = TX("ProcsChange", S1(1), "procs", "stack"),
    [GO_EV_PROC_START] = T("ProcStart", "p", "p_seq"),
    [GO_EV_PROC_STOP] = {.name = "ProcStop", .timed = 1},
    [GO_EV_PROC_STEAL] = T("ProcSteal", "p", "p_seq", "m"),
    [GO_EV_PROC_STATUS] = T("ProcStatus", "p", "pstatus"),
    [GO_EV_GO_CREATE] = TX("GoCreate", S2(2, 1), "new_g", "new_stack", "stack"),
    [GO_EV_GO_CREATE_SYSCALL] = T("GoCreateSyscall", "new_g"),
    [GO_EV_GO_START] = T("GoStart", "g", "g_seq"),
    [GO_EV_GO_DESTROY] = {.name = "GoDestroy", .timed = 1},
    [GO_EV_GO_DESTROY_SYSCALL] = {.name = "GoDestroySyscall", .timed = 1},
    [GO_EV_GO_STOP] = TX2("GoStop", S1(1), R1(0), "reason", "stack"),
    [GO_EV_GO_BLOCK] = TX2("GoBlock", S1(1), R1(0), "reason", "stack"),
    [GO_EV_GO_UNBLOCK] = TX("GoUnblock", S1(2), "g", "g_seq", "stack"),
    [GO_EV_GO_SYSCALL_BEGIN] = TX("GoSyscallBegin", S1(1), "p_seq", "stack"),
    [GO_EV_GO_SYSCALL_END] = {.name = "GoSyscallEnd", .timed = 1},
    [GO_EV_GO_SYSCALL_END_BLOCKED] = {.name = "GoSyscallEndBlocked", .timed = 1},
    [GO_EV_GO_STATUS] = T("GoStatus", "g", "m", "gstatus"),
    [GO_EV_STW_BEGIN] = TX2("STWBegin", S1(1), R1(0), "kind", "stack"),
    [GO_EV_STW_END] = {.name = "STWEnd", .timed = 1},
    [GO_EV_GC_ACTIVE] = T("GCActive", "gc_seq"),
    [GO_EV_GC_BEGIN] = TX("GCBegin", S1(1), "gc_seq", "stack"),
    [GO_EV_GC_END] = T("GCEnd", "gc_seq"),
    [GO_EV_GC_SWEEP_ACTIVE] = T("GCSweepActive", "p"),
    [GO_EV_GC_SWEEP_BEGIN] = TX("GCSweepBegin", S1(0), "stack"),
    [GO_EV_GC_SWEEP_END] = T("GCSweepEnd", "swept", "reclaimed"),
    [GO_EV_GC_MARK_ASSIST_ACTIVE] = T("GCMarkAssistActive", "g"),
    [GO_EV_GC_MARK_ASSIST_BEGIN] = TX("GCMarkAssistBegin", S1(0), "stack"),
    [GO_EV_GC_MARK_ASSIST_END] = {.name = "GCMarkAssistEnd", .timed = 1},
    [GO_EV_HEAP_ALLOC] = T("HeapAlloc", "bytes"),
    [GO_EV_HEAP_GOAL] = T("HeapGoal", "bytes"),
    [GO_EV_GO_LABEL] = TX("GoLabel", R1(0), "label"),
    [GO_EV_USER_TASK_BEGIN] = TX2("UserTaskBegin", S1(3), R1(2), "task", "parent", "name", "stack"),
    [GO_EV_USER_TASK_END] = TX("UserTaskEnd", S1(1), "task", "stack"),
    [GO_EV_USER_REGION_BEGIN] = TX2("UserRegionBegin", S1(2), R1(1), "task", "name", "stack"),
    [GO_EV_USER_REGION_END] = TX2("UserRegionEnd", S1(2), R1(1), "task", "name", "stack"),
    [GO_EV_USER_LOG] = TX2("UserLog", S1(3), R2(1, 2), "task", "key", "value", "stack"),
    [GO_EV_GO_SWITCH] = T("GoSwitch", "g", "g_seq"),
    [GO_EV_GO_SWITCH_DESTROY] = T("GoSwitchDestroy", "g", "g_seq"),
    [GO_EV_GO_CREATE_BLOCKED] = TX("GoCreateBlocked", S2(2, 1), "new_g", "new_stack", "stack"),
    [GO_EV_GO_STATUS_STACK] = TX("GoStatusStack", S1(3), "g", "m", "gstatus", "stack"),
    [GO_EV_EXPERIMENTAL_BATCH] = {.name = "ExperimentalBatch"},
    /* Go 1.23's AllocFree experiment: timed events of ordinary form, so a trace that has them
     * decodes; their experimental batches are not read (reader.c). */
    [128] = T("Span", "id", "npages", "kindclass"),
    [129] = T("SpanAlloc", "id", "npages", "kindclass"),
    [130] = T("SpanFree", "id"),
    [131] = T("HeapObject", "id", "type"),
    [132] = T("HeapObjectAlloc", "id", "type"),
    [133] = T("HeapObjectFree", "id"),
    [134] = T("GoroutineStack", "id", "order"),
    [135] = T("GoroutineStackAlloc", "id", "order"),
    [136] = T("GoroutineStackFree", "id"),
};

const char *gd_ev_name(unsigned typ)
{
    if (typ == GD_EV_SYNC) return "Sync";
    if (typ < GD_NSPECS && gd_specs[typ].name) return gd_specs[typ].name;
    return "Invalid";
}
