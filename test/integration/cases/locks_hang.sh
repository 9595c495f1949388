# locks_hang: deadlocks and hangs (progs/locks.c). abba: two threads take lock_a and lock_b in
# opposite orders and never return; with GOTRACE_HANG_MS=100 the tracer reports it on stderr
# once, while the program runs: a "gotrace: deadlock:" line naming both threads, both locks,
# waits of at most 2 x 100 ms, then one stack line per thread (locks.c lines); the trace
# (killed afterwards) holds the report as a UserLog "gotrace.deadlock" and `gotrace hangs`
# finds the cycle. condvar: a thread waits forever on never_signalled and main exits:
# `gotrace hangs` lists it waiting on "condvar never_signalled" with no holder; no deadlock
# report (GOTRACE_HANG_MS unset: off). holder_blocked: wait_for_holder waits for hb_lock,
# whose holder hold_and_wait waits forever on a condvar, main joins wait_for_holder: with
# GOTRACE_HANG_MS=100 one report "no thread can make progress" naming the three waits, hb_lock's
# holder and no holder of the condvar (not under TSan, whose runtime has a thread of its own).
# itest-timeout: 60
source "$GT_ROOT/test/integration/lib_profiles.sh"
source "$GT_ROOT/test/integration/lib_locks.sh"

prog=$(build_prog locks)
# wait_report N: waits (bounded, 20 s) for N stack lines of the report on the run's stderr.
wait_report() {
    for _ in $(seq 200); do
        [ "$(grep -c '^gotrace: deadlock:   ' "$RUN_ERR" 2>/dev/null)" -ge "$1" ] && return 0
        sleep 0.1
    done
    fail "no deadlock report within 20 s: $(head -c 300 "$RUN_ERR")"
}

trace_start_bg abba GOTRACE_HANG_MS=100 -- "$prog" abba
wait_report 2
for _ in $(seq 50); do is_valid "$RUN_TRACE" && "$GT_DECODER" dump "$RUN_TRACE" | grep -q 'gotrace.deadlock' && break; sleep 0.1; done
kill -KILL "$RUN_PID"
wait "$RUN_PID" 2>/dev/null || true
head=$(grep -c '^gotrace: deadlock: [^ ]' "$RUN_ERR" || true)
assert_eq "$head" 1 "deadlock reports"
line=$(grep '^gotrace: deadlock: [^ ]' "$RUN_ERR")
for want in take_a_then_b take_b_then_a "mutex lock_a" "mutex lock_b"; do
    case "$line" in *"$want"*) ;; *) fail "the report does not name $want: $line" ;; esac
done
for ms in $(echo "$line" | grep -oE 'waits [0-9]+ ms' | grep -oE '[0-9]+'); do
    assert_le "$ms" 200 "a reported wait (ms), at most 2 x GOTRACE_HANG_MS"
done
assert_eq "$(grep -c '^gotrace: deadlock:   thread .* waits at .*locks.c:' "$RUN_ERR" || true)" 2 \
    "stack lines of the report"
validate "$RUN_TRACE"
"$GT_DECODER" dump "$RUN_TRACE" >"$RUN_TRACE.dump"
assert_eq "$(grep -c 'UserLog .*key="gotrace.deadlock"' "$RUN_TRACE.dump" || true)" 1 "deadlock logs in the trace"
"$GT_DECODER" hangs "$RUN_TRACE" >"$RUN_TRACE.hangs"
assert_contains "$RUN_TRACE.hangs" "1 deadlock" "gotrace hangs"
grep -q '^deadlock: take_.* waiting on mutex lock_. held by take_.* waiting on mutex lock_. held by take_' \
    "$RUN_TRACE.hangs" || fail "gotrace hangs does not show the cycle: $(head -c 300 "$RUN_TRACE.hangs")"

if [ "$GT_SANITIZER" = tsan ]; then
    skip_part "holder_blocked: no 'no progress' verdict beside TSan's own thread"
else
    trace_start_bg holder GOTRACE_HANG_MS=100 -- "$prog" holder_blocked
    wait_report 3
    kill -KILL "$RUN_PID"
    wait "$RUN_PID" 2>/dev/null || true
    assert_eq "$(grep -c '^gotrace: deadlock: [^ ]' "$RUN_ERR" || true)" 1 "holder_blocked reports"
    n='[0-9]+'
    grep -qxE "gotrace: deadlock: no thread can make progress: thread $n main waits $n ms for join held by thread $n wait_for_holder; thread $n hold_and_wait waits $n ms for condvar hb_never; thread $n wait_for_holder waits $n ms for mutex hb_lock held by thread $n hold_and_wait" "$RUN_ERR" ||
        fail "holder_blocked: not the report of the three waits: $(grep '^gotrace: deadlock: [^ ]' "$RUN_ERR")"
fi

trace_run condvar -- "$prog" condvar
expect_status "locks condvar" 0
validate "$RUN_TRACE"
[ "$(grep -c deadlock "$RUN_ERR" || true)" = 0 ] || fail "a deadlock report without GOTRACE_HANG_MS"
"$GT_DECODER" hangs "$RUN_TRACE" >"$RUN_TRACE.hangs"
grep -A4 '^wait_forever (G[0-9]*)  waiting on condvar never_signalled' "$RUN_TRACE.hangs" >"$RUN_TRACE.sel" ||
    fail "hangs does not list wait_forever on never_signalled: $(head -c 300 "$RUN_TRACE.hangs")"
assert_contains "$RUN_TRACE.sel" "holder: none known" "the condvar wait's holder"
assert_contains "$RUN_TRACE.hangs" "0 deadlocks" "gotrace hangs on the condvar"
