# hangs_live: live deadlock reports (GOTRACE_HANG_MS) on programs with known answers (issue 46
# items 2-5; progs/hangs.c). Each hung program runs with GOTRACE_HANG_MS=100 and a generation
# every 50 ms until its stderr holds its reports, then 8 more generations (the flusher checks
# before each switch: 8 more rounds of the check, 400 ms, in which a second report would come),
# and is killed:
#   abba_late    an ABBA cycle that closes 300 ms after its first wait (the second thread sleeps
#                holding its lock first): exactly one report, the cycle, with main (joining)
#                behind it; nothing while the sleeper could still move.
#   sem_pair     two semaphore waits only the other thread posts, main joining: one report, "no
#                thread can make progress", naming the three waits.
#   lost_wakeup  a condvar waited on after its only signal, the signaller exited: the same.
#   exit_holding quitter exits holding quit_lock while blocked_on_quit waits for it: a report at
#                the exit ("held at exit"), then a deadlock for the waiter (holder exited), main
#                behind it; each also a log event in the trace.
#   sleepy       the negative: a consumer waits on a condvar that a sleeping producer signals 1 s
#                later, GOTRACE_HANG_MS=200: 5 whole runs, no report, the program's output and
#                status those of the untraced run.
#   sem_by_signal  the other negative: the only thread waits 1 s on a semaphore that a SIGALRM
#                handler posts, GOTRACE_HANG_MS=100: no report (a signal handler may wake it).
# itest-timeout: 120

prog=$(build_prog hangs)
num='[0-9]+'

# wait_line ERE: waits (bounded, 20 s) until the run's stderr has a line matching ERE.
wait_line() {
    for _ in $(seq 200); do
        grep -qE "$1" "$RUN_ERR" 2>/dev/null && return 0
        kill -0 "$RUN_PID" 2>/dev/null || fail "the program ended before a line '$1'"
        sleep 0.1
    done
    fail "no line '$1' within 20 s: $(head -c 300 "$RUN_ERR")"
}

# live TAG MODE ERE...: runs MODE traced in the background until its stderr has a line matching
# each ERE, then 8 more generations; kills it and validates its trace.
live() {
    local tag=$1 mode=$2 ere
    shift 2
    trace_start_bg "$tag" GOTRACE_HANG_MS=100 GOTRACE_PERIOD_MS=50 -- "$prog" "$mode"
    for ere in "$@"; do wait_line "$ere"; done
    wait_for_generations "$RUN_TRACE" "$RUN_PID" $(($(generations "$RUN_TRACE") + 8))
    kill -KILL "$RUN_PID"
    wait "$RUN_PID" 2>/dev/null || true
    validate "$RUN_TRACE"
    "$GT_DECODER" dump "$RUN_TRACE" >"$RUN_TRACE.dump"
}

# report_is FILE ERE: FILE has exactly one report head ("gotrace: deadlock: " and no indent),
# matching ERE whole.
report_is() {
    local heads
    heads=$(grep -c '^gotrace: deadlock: [^ ]' "$1" || true)
    assert_eq "$heads" 1 "deadlock reports in $(basename "$1")"
    grep -qxE "$2" "$1" || fail "$(basename "$1"): the report is not '$2': $(grep '^gotrace: deadlock: [^ ]' "$1")"
}

# logs FILE KEY: UserLog events with KEY in FILE's dump.
logs() { grep -c "UserLog .*key=\"$2\"" "$1.dump" || true; }

GT_DECODER=$GT_BUILD/gotrace
no_progress=1
if [ "$GT_SANITIZER" = tsan ]; then
    no_progress=0 # TSan's runtime has a thread of its own: not every thread is the program's
    skip_part "sem_pair, lost_wakeup: no 'no progress' verdict beside TSan's own thread"
fi

# abba_late
live abba_late abba_late '^gotrace: deadlock: [^ ]'
f=$CASE_DIR/abba_late.err
report_is "$f" "gotrace: deadlock: thread $num hold_one_want_two waits $num ms for mutex lock_two held by thread $num hold_two_nap; thread $num hold_two_nap waits $num ms for mutex lock_one held by thread $num hold_one_want_two"
grep -qE "^gotrace: deadlock:   behind it: thread $num main waits $num ms for join held by thread $num hold_one_want_two" "$f" ||
    fail "abba_late: main is not behind the cycle: $(cat "$f")"
ms=$(grep '^gotrace: deadlock: [^ ]' "$f" | grep -oE 'hold_two_nap waits [0-9]+' | grep -oE '[0-9]+$')
assert_ge "$ms" 100 "abba_late: the closing wait when reported (ms)"
assert_le "$ms" 200 "abba_late: the closing wait when reported (ms), at most 2 x GOTRACE_HANG_MS"
assert_eq "$(logs "$CASE_DIR/abba_late.trace" gotrace.deadlock)" 1 "abba_late: deadlock logs in the trace"

if [ "$no_progress" = 1 ]; then
    live sem_pair sem_pair '^gotrace: deadlock: [^ ]'
    report_is "$CASE_DIR/sem_pair.err" "gotrace: deadlock: no thread can make progress: thread $num main waits $num ms for join held by thread $num ping; thread $num ping waits $num ms for semaphore sem_ping; thread $num pong waits $num ms for semaphore sem_pong"
    live lost_wakeup lost_wakeup '^gotrace: deadlock: [^ ]'
    report_is "$CASE_DIR/lost_wakeup.err" "gotrace: deadlock: no thread can make progress: thread $num main waits $num ms for join held by thread $num sleeper; thread $num sleeper waits $num ms for condvar wake_cv"
fi

# exit_holding: the exit's report first (within half a period of it), then the waiter's
live exit_holding exit_holding '^gotrace: held at exit: ' '^gotrace: deadlock: [^ ]'
f=$CASE_DIR/exit_holding.err
assert_eq "$(grep -c '^gotrace: held at exit: ' "$f" || true)" 1 "exit_holding: held-at-exit reports"
grep -qxE "gotrace: held at exit: thread $num quitter exited holding mutex quit_lock; thread $num blocked_on_quit waits for it" "$f" ||
    fail "exit_holding: no report at the exit: $(cat "$f")"
report_is "$f" "gotrace: deadlock: thread $num blocked_on_quit waits $num ms for mutex quit_lock held by thread $num quitter, which exited holding it"
grep -qE "^gotrace: deadlock:   behind it: thread $num main waits $num ms for join held by thread $num blocked_on_quit" "$f" ||
    fail "exit_holding: main is not behind the deadlock: $(cat "$f")"
[ "$(grep -nm1 '^gotrace: held at exit: ' "$f" | cut -d: -f1)" -lt "$(grep -nm1 '^gotrace: deadlock: ' "$f" | cut -d: -f1)" ] ||
    fail "exit_holding: the exit's report does not come first: $(cat "$f")"
assert_eq "$(logs "$CASE_DIR/exit_holding.trace" gotrace.held_at_exit)" 1 "exit_holding: held-at-exit logs in the trace"
assert_eq "$(logs "$CASE_DIR/exit_holding.trace" gotrace.deadlock)" 1 "exit_holding: deadlock logs in the trace"

# sleepy: never a report, the program unchanged
plain_run sleepy_plain -- "$prog" sleepy
expect_status "sleepy untraced" 0
cp "$RUN_OUT" "$CASE_DIR/sleepy_plain.want"
for i in 1 2 3 4 5; do
    trace_run "sleepy$i" GOTRACE_HANG_MS=200 -- "$prog" sleepy
    expect_status "sleepy run $i" 0
    assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "sleepy run $i: gotrace lines on stderr ($(head -c 300 "$RUN_ERR"))"
    cmp -s "$RUN_OUT" "$CASE_DIR/sleepy_plain.want" || fail "sleepy run $i: output differs: $(head -c 200 "$RUN_OUT")"
    validate "$RUN_TRACE"
done

# sem_by_signal: nothing runs, but a handler of the program's can still post
trace_run sem_by_signal GOTRACE_HANG_MS=100 -- "$prog" sem_by_signal
expect_status "sem_by_signal" 0
assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "sem_by_signal: gotrace lines on stderr ($(head -c 300 "$RUN_ERR"))"
assert_eq "$(cat "$RUN_OUT")" "$(printf 'sem_by_signal\nsem_by_signal done')" "sem_by_signal output"

stack_checks_follow # each report's stack lines
for tag in abba_late exit_holding $([ "$no_progress" = 1 ] && echo sem_pair lost_wakeup); do
    want=$(case $tag in abba_late) echo 2 ;; exit_holding) echo 1 ;; sem_pair) echo 3 ;; lost_wakeup) echo 2 ;; esac)
    assert_eq "$(grep -cE "^gotrace: deadlock:   thread $num [a-z_]+ waits at .*hangs\.c:" "$CASE_DIR/$tag.err" || true)" \
        "$want" "$tag: stack lines of the report"
done
grep -qE "^gotrace: deadlock:   behind it: .*, at pthread_join < abba_late \(hangs\.c:$num\)" "$CASE_DIR/abba_late.err" ||
    fail "abba_late: main's line behind the cycle has no stack: $(cat "$CASE_DIR/abba_late.err")"
