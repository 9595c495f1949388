/* test_decoder_validate.c: the rules checked after ordering, one table row each way: Go's test
 * validator (decoder/validate.c: state transitions, threads running one G and one P, ranges,
 * labels, tasks) and the event iterator's own checks (decoder/decode.c: event framing, table
 * ids, time, empty generations). Traces are in decoder_traces.h's text form.
 * Invariant: each row is a whole trace. Rules of validate.c that the ordering engine always
 * rejects first (an undetermined state after the first generation, an inactive range ended,
 * an active range begun again, a label for an unknown G) have no failing row here. */
#include "decoder_traces.h"

#define RUN1 "M 1: ProcStatus 0 Running; GoStatus 1 1 Running"
#define P1 "M 1: ProcStatus 0 Running"

static const struct dt_case validator[] = {
    {"GoStatus to a known state", "M -: GoStatus 5 - Waiting", NULL},
    {"GoStatus to an undetermined state", "M -: GoStatus 5 - 0",
     "transition to undetermined state for goroutine 5"},
    {"ProcStatus to an undetermined state", "M 1: ProcStatus 3 0",
     "transition to undetermined state for proc 3"},
    {"A G Running on a thread", RUN1, NULL},
    {"A G Running without a thread", "M -: GoStatus 1 - Running",
     "must have thread, but thread ID is none"},
    {"A P Running without a thread", "M -: ProcStatus 0 Running",
     "must have thread, but thread ID is none"},
    {"Two Gs running on one thread", RUN1 "; GoStatus 2 1 Running",
     "tried to run goroutine 2 when one was already executing (1) on thread 1"},
    {"Two Ps held by one thread", P1 "; ProcStatus 1 Running",
     "tried to run proc 1 when one was already executing (0) on thread 1"},
    {"A G moved to another thread, stopped there",
     RUN1 "\nM 2: ProcStatus 1 Running; GoStatus 1 2 Running\nM 1: GoBlock", NULL},
    {"A G stopped on a thread after it left it",
     RUN1 "\nM 2: ProcStatus 1 Running; GoStatus 1 2 Running\nM 1: GoBlock\nM 2: GoStop",
     "GoStop event for goroutine that's not Running"},
    {"A G ending with no range open", "str 1 stw\n" RUN1 "; STWBegin 1; STWEnd; GoDestroy", NULL},
    {"A G ending inside a range", "str 1 stw\n" RUN1 "; STWBegin 1; GoDestroy",
     "goroutine 1 died with active ranges"},
    {"GoLabel with a label", "str 1 worker\n" RUN1 "; GoLabel 1", NULL},
    {"GoLabel with an empty label", RUN1 "; GoLabel 0", "invalid label \"\""},
    {"A task with id 1", RUN1 "; UserTaskBegin 1", NULL},
    {"A task with id 0", RUN1 "; UserTaskBegin 0", "found invalid task ID for task"},
    {"A task with id 2^64-1", RUN1 "; UserTaskBegin -", "found invalid task ID for task"},
    {"STWBegin with a defined kind", "str 1 stw\n" RUN1 "; STWBegin 1; STWEnd", NULL},
    {"STWBegin with an undefined kind", RUN1 "; STWBegin 7", "found invalid string ID 7"},
};
DT_TABLE_TEST(validate, validator, validator)

static const struct dt_case iterator[] = {
    /* Event framing (decode.c's cursor) */
    {"An event of every argument width", RUN1 "; HeapAlloc 300; HeapAlloc 18446744073709551615",
     NULL},
    {"Event type 0", "M 1: 0", "found event without a timestamp: type=0"},
    {"An event type past the table", "M 1: 200", "found invalid event type: 200"},
    {"A structural event in an event batch", P1 "; 5", "found event without a timestamp: type=5"},
    {"An event cut before its timestamp", P1 "\nraw 01 01 01 00 01 0d",
     "found invalid uvarint for timestamp"},
    {"An event cut in its arguments", P1 "\nraw 01 01 01 00 03 0d 00 00",
     "found invalid uvarint (argument pstatus)"},
    /* Table ids */
    {"Stack and string ids that are defined",
     "str 1 sync\nstr 2 main\nstack 3 100 2 0 7\n" RUN1 "; GoBlock 1 3", NULL},
    {"An undefined stack id", RUN1 "; GoBlock 0 3", "found invalid stack ID 3 for event GoBlock"},
    {"An undefined string id", RUN1 "; GoBlock 4 0", "found invalid string ID 4 for event GoBlock"},
    {"Stack and string id 0", RUN1 "; GoBlock 0 0", NULL},
    {"An undefined second stack of GoCreate", "stack 1 100 0 0 1\n" RUN1 "; GoCreate 2 1 9",
     "found invalid stack ID 9 for event GoCreate"},
    {"An undefined new stack of GoCreate", "stack 1 100 0 0 1\n" RUN1 "; GoCreate 2 9 1",
     "found invalid stack ID 9 for event GoCreate"},
    {"A CPU sample with a defined stack", "stack 1 100 0 0 1\ncpu 5 1 0 1 1\n" RUN1, NULL},
    {"A CPU sample with an undefined stack", "cpu 5 1 0 1 9\n" RUN1,
     "found invalid stack ID 9 for CPU sample"},
    {"Ids are per generation",
     "str 1 sync\n" RUN1 "; GoBlock 1; GoUnblock 1 1; GoStart 1 2\ngen 2\n" RUN1 "; GoBlock 1",
     "found invalid string ID 1 for event GoBlock"},
    /* Generations without timed events */
    {"A generation with only a CPU sample", RUN1 "\ngen 2\ncpu 5 1 0 1 0", NULL},
    {"A generation with only tables", RUN1 "\ngen 2\nstr 1 x", "broken trace: frontier is empty"},
};
DT_TABLE_TEST(validate, iterator, iterator)

/* Event times: ticks * 1e9 / freq, then made strictly increasing across the whole trace. */
Test(validate, times_scale_and_increase)
{
    struct gd_tev ev[16];
    size_t n = dt_events_of("freq 500000000\n"
                            "M 1: @10 ProcStatus 0 Running; @10 GoStatus 1 1 Running; @25 GoBlock\n"
                            "M 2: @5 ProcStatus 1 Running\n"
                            "gen 2\n"
                            "M 1: @3 ProcStatus 0 Running",
                            ev, 16);
    cr_assert_eq(n, 7);
    /* Merged by time: thread 2's ProcStatus at tick 5 = 10 ns comes first. */
    int64_t want[7] = {10, 20, 21, 50, 51, 52, 53};
    uint8_t types[7] = {GO_EV_PROC_STATUS, GO_EV_PROC_STATUS, GO_EV_GO_STATUS, GO_EV_GO_BLOCK,
                        GD_EV_SYNC,        GO_EV_PROC_STATUS, GD_EV_SYNC};
    for (size_t i = 0; i < 7; i++) {
        cr_assert_eq(ev[i].type, types[i], "event %zu: type %u", i, ev[i].type);
        cr_assert_eq(ev[i].time, want[i], "event %zu: time %lld, want %lld", i,
                     (long long)ev[i].time, (long long)want[i]);
    }
    cr_assert_eq(ev[0].m, 2);
    cr_assert_eq(ev[3].g, 1);
    cr_assert_eq(ev[3].p, 0);
}
