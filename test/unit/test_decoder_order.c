/* test_decoder_order.c: the ordering engine's rules (decoder/order.c, a port of Go's
 * internal/trace/order.go), one table row each way: a trace that keeps the rule is valid, one
 * that breaks it gives the rule's error. An event that may not happen yet, and never becomes
 * possible, ends in "failed to advance". Traces are in decoder_traces.h's text form.
 * Invariant: each row is a whole trace; rows share only the string macros below. */
#include "decoder_traces.h"

/* Thread 1 holds P 0 and runs G 1 (statuses opening its stream). */
#define RUN1 "M 1: ProcStatus 0 Running; GoStatus 1 1 Running"
/* Thread 1 holds P 0; G 2 is Waiting / Runnable, in the M-less stream. */
#define P1 "M 1: ProcStatus 0 Running"
#define G2WAIT "M -: GoStatus 2 - Waiting\n"
#define G2RUNNABLE "M -: GoStatus 2 - Runnable\n"
#define STUCK "failed to advance"

static const struct dt_case procs[] = {
    /* ProcStatus */
    {"ProcStatus of a new P", "M 1: ProcStatus 0 Idle", NULL},
    {"ProcStatus with a bad status", "M 1: ProcStatus 0 5", "invalid status for proc 0: 5"},
    {"ProcStatus repeating the state", P1 "; ProcStatus 0 Running", NULL},
    {"ProcStatus changing the state", P1 "; ProcStatus 0 Idle",
     "inconsistent status for proc 0: old Running vs. new Idle"},
    {"ProcStatus of a new P in a later generation",
     RUN1 "\ngen 2\n" RUN1 "\nM 2: ProcStatus 5 Idle", NULL},
    {"ProcStatus Abandoned of a P in Syscall (gen boundary)",
     "M 0: ProcStatus 1 Running; GoStatus 1 0 Syscall; GoSyscallEndBlocked\n"
     "M 1: ProcStatus 2 Running; GoStatus 2 1 Running; ProcStatus 0 Abandoned; ProcSteal 0 1 0",
     NULL},
    {"ProcStatus Abandoned of a P in Syscall on another thread",
     RUN1 "; GoSyscallBegin 1\ngen 2\nM 1: ProcStatus 0 Syscall; GoStatus 1 1 Syscall\n"
          "M 2: ProcStatus 0 Abandoned",
     NULL},
    /* ProcStart */
    {"ProcStart of an Idle P", "M 1: ProcStatus 0 Idle; ProcStart 0 1", NULL},
    {"ProcStart skipping a sequence number", "M 1: ProcStatus 0 Idle; ProcStart 0 2", STUCK},
    {"ProcStart of a Running P", P1 "\nM 2: ProcStart 0 1", STUCK},
    {"ProcStart on a thread that holds a P", P1 "; ProcStatus 1 Idle; ProcStart 1 1", STUCK},
    {"ProcStart of an unknown P", "M 1: ProcStart 3 1", STUCK},
    {"ProcStart without a thread", "M -: ProcStatus 0 Idle; ProcStart 0 1",
     "expected a thread but didn't have one"},
    {"ProcStart in a new generation after a status",
     "M 1: ProcStatus 0 Idle; ProcStart 0 1; ProcStop\ngen 2\nM 1: ProcStatus 0 Idle; ProcStart 0 "
     "1",
     NULL},
    {"ProcStart in a new generation without a status",
     "M 1: ProcStatus 0 Idle; ProcStart 0 1; ProcStop\ngen 2\nM 1: ProcStart 0 2", STUCK},
    /* ProcStop */
    {"ProcStop of the thread's P", P1 "; ProcStop", NULL},
    {"ProcStop without a P", "M 1: ProcStop", "event ProcStop for proc (-1) that doesn't exist"},
    {"ProcStop of a P stopped by another thread",
     P1 "\nM 2: ProcStatus 0 Running\nM 1: ProcStop\nM 2: ProcStop",
     "ProcStop event for proc that's not Running or Syscall"},
    /* ProcSteal */
    {"ProcSteal of a P in Syscall",
     "M 0: ProcStatus 0 Running; GoStatus 1 0 Running; GoSyscallBegin 1; GoSyscallEndBlocked\n"
     "M 1: ProcStatus 2 Running; GoStatus 2 1 Running; ProcSteal 0 2 0",
     NULL},
    {"ProcSteal by the thread itself",
     "M 0: ProcStatus 0 Running; GoStatus 1 0 Running; GoSyscallBegin 1; ProcSteal 0 2 0;"
     " ProcStart 0 3; GoSyscallEndBlocked",
     NULL},
    {"ProcSteal of an Abandoned P",
     "M 0: ProcStatus 0 Abandoned; ProcSteal 0 1 1; GoStatus 1 1 Syscall", NULL},
    {"ProcSteal of a Running P", RUN1 "\nM 2: ProcStatus 2 Running; ProcSteal 0 1 1", STUCK},
    {"ProcSteal with a wrong sequence number",
     RUN1 "; GoSyscallBegin 1\nM 2: ProcStatus 2 Running; ProcSteal 0 5 1", STUCK},
    {"ProcSteal without a thread", RUN1 "; GoSyscallBegin 1\nM -: ProcSteal 0 2 1",
     "expected a thread but didn't have one"},
    {"ProcSteal from a thread never seen", RUN1 "; GoSyscallBegin 1\nM 2: ProcSteal 0 2 9",
     "stole proc from non-existent thread 9"},
    {"ProcSteal naming the wrong thread",
     RUN1 "; GoSyscallBegin 1\nM 3: ProcStatus 3 Running\nM 2: ProcSteal 0 2 3",
     "tried to steal proc 0 from thread 3, but got proc 3 instead"},
    {"ProcSteal by itself of another P",
     RUN1 "; GoSyscallBegin 1\nM 2: ProcStatus 2 Running; ProcSteal 0 2 2",
     "tried to self-steal proc 0 (thread 2), but got proc 2 instead"},
};
DT_TABLE_TEST(order, procs, procs)

static const struct dt_case goroutines[] = {
    /* GoStatus */
    {"GoStatus of a new G in the first generation", RUN1, NULL},
    {"GoStatus with a bad status", "M -: GoStatus 1 - 7", "invalid status for goroutine 1: 7"},
    {"GoStatus repeating the state", G2WAIT "M -: GoStatus 2 - Waiting", NULL},
    {"GoStatus changing the state", G2WAIT RUN1 "; GoStatus 2 1 Running",
     "inconsistent status for goroutine 2: old Waiting vs. new Running"},
    {"GoStatus of a known G in a later generation", G2WAIT "gen 2\n" G2WAIT, NULL},
    {"GoStatus of a new G after the first generation",
     G2WAIT "gen 2\n" G2WAIT "M -: GoStatus 7 - Waiting",
     "found goroutine status for new goroutine after the first generation: id=7 status=Waiting"},
    {"GoStatus Syscall on its thread", "M 1: ProcStatus 0 Syscall; GoStatus 1 1 Syscall", NULL},
    {"GoStatus Syscall without a thread", "M -: GoStatus 1 - Syscall",
     "found goroutine 1 in syscall without a thread"},
    {"GoStatus Syscall naming the thread it is on, in another stream",
     RUN1 "; GoSyscallBegin 1\ngen 2\nM 3: GoStatus 1 1 Syscall\n"
          "M 1: ProcStatus 0 Syscall; GoStatus 1 1 Syscall; GoSyscallEnd",
     NULL},
    {"GoStatus Syscall on a thread running another G",
     RUN1 "; GoSyscallBegin 1\nM 3: ProcStatus 1 Syscall; GoStatus 2 3 Syscall\ngen 2\n"
          "M 1: GoStatus 2 1 Syscall",
     "inconsistent thread for syscalling goroutine 2: thread has goroutine 1"},
    {"GoStatus Syscall naming a thread that runs another G",
     RUN1 "; GoSyscallBegin 1\nM 3: ProcStatus 1 Syscall; GoStatus 2 3 Syscall\ngen 2\n"
          "M 3: GoStatus 2 1 Syscall",
     "inconsistent thread for syscalling goroutine 2: thread has goroutine 1"},
    /* GoCreate, GoCreateBlocked */
    {"GoCreate by a running G", RUN1 "; GoCreate 2", NULL},
    {"GoCreate on a P without a G", P1 "; GoCreate 5; GoStart 5 1; GoStop", NULL},
    {"GoCreate without a P", "M 1: GoCreate 2", "expected a proc but didn't have one"},
    {"GoCreate without a thread", "M -: GoCreate 2", "expected a thread but didn't have one"},
    {"GoCreate by a G in a syscall", RUN1 "; GoSyscallBegin 1; GoCreate 2",
     "GoCreate event for goroutine that's not Running"},
    {"GoCreate of an existing G", RUN1 "; GoCreate 1",
     "tried to create goroutine (1) that already exists"},
    {"GoCreateBlocked, then woken", RUN1 "; GoCreateBlocked 2; GoUnblock 2 1", NULL},
    {"GoCreateBlocked, then started unwoken",
     RUN1 "; GoCreateBlocked 2\nM 2: ProcStatus 1 Running; GoStart 2 1", STUCK},
    /* GoCreateSyscall */
    {"GoCreateSyscall on a bare thread",
     "M 1: GoCreateSyscall 4; ProcStatus 0 Idle; ProcStart 0 1; GoSyscallEndBlocked; GoStart 4 1",
     NULL},
    {"GoCreateSyscall on a thread running a G", RUN1 "; GoCreateSyscall 4",
     "expected no goroutine but had one"},
    {"GoCreateSyscall without a thread", "M -: GoCreateSyscall 4",
     "expected a thread but didn't have one"},
    {"GoCreateSyscall of an existing G", "M -: GoStatus 4 - Waiting\nM 1: GoCreateSyscall 4",
     "tried to create goroutine (4) in syscall that already exists"},
    /* GoStart */
    {"GoStart of a Runnable G", G2RUNNABLE P1 "; GoStart 2 1", NULL},
    {"GoStart skipping a sequence number", G2RUNNABLE P1 "; GoStart 2 2", STUCK},
    {"GoStart of a Waiting G", G2WAIT P1 "; GoStart 2 1", STUCK},
    {"GoStart of an unknown G", P1 "; GoStart 9 1", STUCK},
    {"GoStart on a thread running a G", G2RUNNABLE RUN1 "; GoStart 2 1",
     "expected no goroutine but had one"},
    {"GoStart without a P", G2RUNNABLE "M 1: GoStart 2 1", "expected a proc but didn't have one"},
    {"GoStart in a new generation after a status",
     G2RUNNABLE P1 "; GoStart 2 1; GoStop\ngen 2\n" G2RUNNABLE P1 "; GoStart 2 1", NULL},
    {"GoStart in a new generation without a status",
     G2RUNNABLE P1 "; GoStart 2 1; GoStop\ngen 2\n" P1 "; GoStart 2 2", STUCK},
    {"GoStart with the sequence of another generation (Go's confuse-seq test)",
     "str 1 whatever\n" RUN1 "; GoStop 1\nM 2: ProcStatus 1 Running; GoStart 1 1; GoStop 1\n"
     "gen 2\nstr 1 whatever\nM 2: ProcStatus 1 Running; GoStart 1 2\n"
     "M 1: ProcStatus 0 Running; GoStatus 1 1 Runnable; GoStart 1 1; GoStop 1",
     NULL},
    /* GoStop, GoBlock, GoDestroy */
    {"GoStop of the running G", RUN1 "; GoStop", NULL},
    {"GoBlock of the running G", RUN1 "; GoBlock", NULL},
    {"GoDestroy of the running G", RUN1 "; GoDestroy", NULL},
    {"GoBlock without a G", P1 "; GoBlock", "expected a goroutine but didn't have one"},
    {"GoStop without a P", "M 1: GoStatus 1 1 Running; GoStop",
     "expected a proc but didn't have one"},
    {"GoBlock of a G in a syscall", RUN1 "; GoSyscallBegin 1; GoBlock",
     "GoBlock event for goroutine that's not Running"},
    {"GoDestroy twice", RUN1 "; GoDestroy; GoDestroy", "expected a goroutine but didn't have one"},
    {"GoBlock of a G another thread destroyed",
     RUN1 "\nM 2: ProcStatus 1 Running; GoStatus 1 2 Running; GoDestroy\nM 1: GoBlock",
     "event GoBlock for goroutine (1) that doesn't exist"},
    {"GoBlock in a new generation without statuses", RUN1 "\ngen 2\nM 1: GoBlock", NULL},
    /* GoUnblock */
    {"GoUnblock of a blocked G, by itself", RUN1 "; GoBlock; GoUnblock 1 1; GoStart 1 2", NULL},
    {"GoUnblock in the M-less stream", G2WAIT "M -: GoUnblock 2 1", NULL},
    {"GoUnblock of a Runnable G", G2RUNNABLE "M -: GoUnblock 2 1", STUCK},
    {"GoUnblock skipping a sequence number", G2WAIT "M -: GoUnblock 2 2", STUCK},
    {"GoUnblock twice for one block", RUN1 "; GoBlock; GoUnblock 1 1; GoUnblock 1 2", STUCK},
    /* GoSwitch, GoSwitchDestroy */
    {"GoSwitch to a Waiting G, and back", G2WAIT RUN1 "; GoSwitch 2 1; GoSwitchDestroy 1 1", NULL},
    {"GoSwitch to a Runnable G", G2RUNNABLE RUN1 "; GoSwitch 2 1", STUCK},
    {"GoSwitch without a G", G2WAIT P1 "; GoSwitch 2 1",
     "expected a goroutine but didn't have one"},
    {"GoSwitch from a G in a syscall", G2WAIT RUN1 "; GoSyscallBegin 1; GoSwitch 2 1",
     "GoSwitch event for goroutine that's not Running"},
};
DT_TABLE_TEST(order, goroutines, goroutines)

static const struct dt_case syscalls[] = {
    /* GoSyscallBegin */
    {"GoSyscallBegin and End", RUN1 "; GoSyscallBegin 1; GoSyscallEnd; GoSyscallBegin 2", NULL},
    {"GoSyscallBegin with a wrong P sequence number", RUN1 "; GoSyscallBegin 5",
     "failed to advance GoSyscallBegin: can't make sequence: 0 (gen=1) -> 5 (gen=1)"},
    {"GoSyscallBegin in a syscall", RUN1 "; GoSyscallBegin 1; GoSyscallBegin 2",
     "GoSyscallBegin event for goroutine that's not Running"},
    {"GoSyscallBegin without a G", P1 "; GoSyscallBegin 1",
     "expected a goroutine but didn't have one"},
    /* GoSyscallEnd */
    {"GoSyscallEnd outside a syscall", RUN1 "; GoSyscallEnd",
     "GoSyscallEnd event for goroutine that's not Syscall"},
    {"GoSyscallEnd with the P not in Syscall", P1 "; GoStatus 1 1 Syscall; GoSyscallEnd",
     "expected proc 0 in state Syscall, but got Running instead"},
    {"GoSyscallEnd without a P", "M 1: GoStatus 1 1 Syscall; GoSyscallEnd",
     "expected a proc but didn't have one"},
    /* GoSyscallEndBlocked */
    {"GoSyscallEndBlocked after a steal", /* Go's syscall-steal-proc-simple */
     "M 0: ProcStatus 0 Running; GoStatus 1 0 Running; GoSyscallBegin 1; GoSyscallEndBlocked\n"
     "M 1: ProcStatus 2 Running; GoStatus 2 1 Running; ProcSteal 0 2 0",
     NULL},
    {"GoSyscallEndBlocked while the P is still in Syscall",
     RUN1 "; GoSyscallBegin 1; GoSyscallEndBlocked", STUCK},
    {"GoSyscallEndBlocked outside a syscall", "M 1: GoStatus 1 1 Running; GoSyscallEndBlocked",
     "GoSyscallEndBlocked event for goroutine that's not Syscall"},
    {"GoSyscallEndBlocked without a G", "M 1: GoSyscallEndBlocked",
     "expected a goroutine but didn't have one"},
    /* GoDestroySyscall */
    {"GoDestroySyscall on a bare thread", "M 1: GoCreateSyscall 4; GoDestroySyscall", NULL},
    {"GoDestroySyscall with the P in Syscall", RUN1 "; GoSyscallBegin 1; GoDestroySyscall", NULL},
    {"GoDestroySyscall outside a syscall", RUN1 "; GoDestroySyscall",
     "GoDestroySyscall event for goroutine that's not Syscall"},
    {"GoDestroySyscall with the P not in Syscall", P1 "; GoStatus 1 1 Syscall; GoDestroySyscall",
     "proc 0 in unexpected state Running during GoDestroySyscall"},
    {"GoDestroySyscall without a G", "M 1: GoDestroySyscall",
     "expected a goroutine but didn't have one"},
    {"GoSyscallEnd after GoDestroySyscall took the P (Go's create-syscall-with-p test)",
     "M 0: GoCreateSyscall 4; ProcStatus 0 Idle; ProcStart 0 1; GoSyscallEndBlocked; GoStart 4 1;"
     " GoSyscallBegin 2; GoDestroySyscall; GoCreateSyscall 4; GoSyscallEnd",
     "expected a proc but didn't have one"},
};
DT_TABLE_TEST(order, syscalls, syscalls)

static const struct dt_case gc[] = {
    {"GCBegin, GCEnd", RUN1 "; GCBegin 1; GCEnd 2", NULL},
    {"GCEnd skipping a sequence number", RUN1 "; GCBegin 1; GCEnd 3", STUCK},
    {"GCBegin during a GC", RUN1 "; GCBegin 1; GCBegin 2",
     "encountered GCBegin while GC was already in progress"},
    {"GCEnd after the end", RUN1 "; GCBegin 1; GCEnd 2; GCEnd 3",
     "encountered GCEnd when GC was not in progress"},
    {"GCEnd first", RUN1 "; GCEnd 1", "encountered GCEnd when GC was in an undetermined state"},
    {"GCEnd without a G", P1 "; GCBegin 1; GCEnd 2", "expected a goroutine but didn't have one"},
    {"GCActive first in the first generation", RUN1 "; GCActive 5; GCEnd 6", NULL},
    {"GCActive after other GC events in the first generation",
     RUN1 "; GCBegin 1; GCEnd 2; GCActive 3",
     "GCActive in the first generation isn't first GC event"},
    {"GCActive in a later generation during a GC", RUN1 "; GCBegin 1\ngen 2\n" RUN1 "; GCActive 2",
     NULL},
    {"GCActive in a later generation after the GC",
     RUN1 "; GCBegin 1; GCEnd 2\ngen 2\n" RUN1 "; GCActive 3",
     "encountered GCActive while GC was not in progress"},
};
DT_TABLE_TEST(order, gc, gc)

static const struct dt_case ranges[] = {
    {"STWBegin, STWEnd", "str 1 stw\n" RUN1 "; STWBegin 1; STWEnd", NULL},
    {"STWEnd without a begin", RUN1 "; STWEnd", "tried to end event STWBegin, but not in-flight"},
    {"STWBegin twice", "str 1 stw\n" RUN1 "; STWBegin 1; STWBegin 1",
     "discovered event already in-flight for when starting event STWBegin"},
    {"STWBegin without a G", "str 1 stw\n" P1 "; STWBegin 1",
     "expected a goroutine but didn't have one"},
    {"GCSweepBegin, GCSweepEnd on a P", P1 "; GCSweepBegin; GCSweepEnd", NULL},
    {"GCSweepBegin without a P", "M 1: GCSweepBegin", "expected a proc but didn't have one"},
    {"GCSweepEnd without a begin", P1 "; GCSweepEnd",
     "tried to end event GCSweepBegin, but not in-flight"},
    {"GCSweepActive in the first generation", P1 "; GCSweepActive 0; GCSweepEnd", NULL},
    {"GCSweepActive of an unknown P", P1 "; GCSweepActive 7",
     "encountered GCSweepActive for unknown proc 7"},
    {"GCSweepActive twice in the first generation", P1 "; GCSweepActive 0; GCSweepActive 0",
     "found named active range already in first gen: GCSweepBegin"},
    {"GCSweepActive in a later generation, begun before",
     P1 "; GCSweepBegin\ngen 2\n" P1 "; GCSweepActive 0; GCSweepEnd", NULL},
    {"GCSweepActive in a later generation, never begun", P1 "\ngen 2\n" P1 "; GCSweepActive 0",
     "resource is missing active range: GCSweepBegin"},
    {"GCMarkAssistBegin, GCMarkAssistEnd", RUN1 "; GCMarkAssistBegin; GCMarkAssistEnd", NULL},
    {"GCMarkAssistActive in the first generation", RUN1 "; GCMarkAssistActive 1; GCMarkAssistEnd",
     NULL},
    {"GCMarkAssistActive of an unknown G", RUN1 "; GCMarkAssistActive 9",
     "uninitialized goroutine 9 found during GCMarkAssistActive"},
};
DT_TABLE_TEST(order, ranges, ranges)

static const struct dt_case user[] = {
    /* Events that need a thread, a P and a G, or a thread and a P */
    {"GoLabel on a running G", "str 1 worker\n" RUN1 "; GoLabel 1", NULL},
    {"GoLabel without a P", "str 1 worker\nM 1: GoStatus 1 1 Running; GoLabel 1",
     "expected a proc but didn't have one"},
    {"UserLog without a G", P1 "; UserLog", "expected a goroutine but didn't have one"},
    {"UserLog without a thread", "M -: UserLog", "expected a thread but didn't have one"},
    {"ProcsChange on a running G", RUN1 "; ProcsChange 4", NULL},
    {"ProcsChange without a G", P1 "; ProcsChange 4", "expected a goroutine but didn't have one"},
    {"HeapAlloc on a P without a G", P1 "; HeapAlloc 4096; HeapGoal 8192", NULL},
    {"HeapAlloc without a P", "M 1: HeapAlloc 4096", "expected a proc but didn't have one"},
    {"An experimental event on a thread", "M 1: 128 1 2 3; 136 1", NULL},
    {"An experimental event without a thread", "M -: 130 1",
     "expected a thread but didn't have one"},
    /* Tasks */
    {"UserTaskBegin, UserTaskEnd", "str 1 req\n" RUN1 "; UserTaskBegin 5 0 1; UserTaskEnd 5", NULL},
    {"UserTaskBegin twice while active",
     "str 1 req\n" RUN1 "; UserTaskBegin 5 0 1; UserTaskBegin 5 0 1", "task ID conflict: 5"},
    {"UserTaskBegin again after its end",
     "str 1 req\n" RUN1 "; UserTaskBegin 5 0 1; UserTaskEnd 5; UserTaskBegin 5 0 1", NULL},
    {"UserTaskBegin with an undefined name", RUN1 "; UserTaskBegin 5 0 9",
     "invalid string ID 9 for UserTaskBegin event"},
    {"UserTaskBegin without a G", "str 1 req\n" P1 "; UserTaskBegin 5 0 1",
     "expected a goroutine but didn't have one"},
    {"UserTaskEnd without a begin", RUN1 "; UserTaskEnd 7", NULL},
    {"UserTaskEnd without a G", P1 "; UserTaskEnd 7", "expected a goroutine but didn't have one"},
    {"A task across generations", /* Go's task-across-generations */
     "str 1 my task\n" RUN1 "; UserTaskBegin 2 0 1\ngen 2\n" RUN1 "; UserTaskEnd 2", NULL},
    /* Regions */
    {"Nested regions",
     "str 1 outer\nstr 2 inner\n" RUN1 "; UserRegionBegin 0 1; UserRegionBegin 0 2;"
     " UserRegionEnd 0 2; UserRegionEnd 0 1",
     NULL},
    {"Regions ended out of order",
     "str 1 outer\nstr 2 inner\n" RUN1
     "; UserRegionBegin 0 1; UserRegionBegin 0 2; UserRegionEnd 0 1",
     "misuse of region in goroutine 1"},
    {"A region ended with another task",
     "str 1 r\n" RUN1 "; UserRegionBegin 1 1; UserRegionEnd 2 1",
     "misuse of region in goroutine 1"},
    {"UserRegionEnd without a begin", "str 1 r\n" RUN1 "; UserRegionEnd 0 1", NULL},
    {"A region across generations, by name",
     "str 1 r\n" RUN1 "; UserRegionBegin 0 1\ngen 2\nstr 3 r\n" RUN1 "; UserRegionEnd 0 3", NULL},
    {"A region across generations, another name",
     "str 1 r\n" RUN1 "; UserRegionBegin 0 1\ngen 2\nstr 1 s\n" RUN1 "; UserRegionEnd 0 1",
     "misuse of region in goroutine 1"},
    {"UserRegionBegin with an undefined name", RUN1 "; UserRegionBegin 0 9",
     "invalid string ID 9 for UserRegionBegin event"},
    {"UserRegionBegin without a G", "str 1 r\n" P1 "; UserRegionBegin 0 1",
     "expected a goroutine but didn't have one"},
};
DT_TABLE_TEST(order, user, user)
