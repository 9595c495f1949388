# locks_critical_path: progs/locks.c pipeline: stage1 burns 1 ms per item, stage2 4 ms,
# stage3 1 ms, 30 items through two queues (a mutex and a condvar each); main joins them.
# `gotrace critical-path` from main's end walks back through the joins' and queues' wake-ups:
# at least 60 % of the path lies in stage2 (the issue's bound; measured 98 %), the shares by
# thread add up to 100 % (± 1 for rounding), and the path spans main's lifetime. Also
# --thread stage3 and --from/--to give a path, and a target that does not exist is a usage
# error (status 2).
source "$GT_ROOT/test/integration/lib_profiles.sh"
source "$GT_ROOT/test/integration/lib_locks.sh"

prog=$(build_prog locks)
trace_run run -- "$prog" pipeline
expect_status "locks pipeline" 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
"$GT_DECODER" critical-path "$tr" >"$tr.path"
assert_ge "$(share_pct "$tr.path" stage2)" 60 "critical path share of stage2 (%)"
sum=$(awk '/^by thread:/ { on = 1; next } /^$/ { on = 0 } on { s += $1 } END { printf "%d\n", s + 0.5 }' "$tr.path")
assert_within "shares by thread, summed (%)" "$sum" 100 1
"$GT_DECODER" critical-path --thread stage3 "$tr" >"$tr.path3"
assert_contains "$tr.path3" "critical path of the thread stage3" "critical-path --thread"
"$GT_DECODER" critical-path --from 10ms --to 60ms "$tr" >"$tr.window"
window=$(sed -nE 's/.*: ([0-9.]+[a-z]+) \.\. ([0-9.]+[a-z]+), ([0-9.]+[a-z]+), .*/\3/p' "$tr.window")
assert_eq "$(dur_ms "$window")" 50 "the --from 10ms --to 60ms window (ms)"
rc=0
"$GT_DECODER" critical-path --thread no_such_thread "$tr" >/dev/null 2>"$tr.err" || rc=$?
assert_eq "$rc" 2 "exit status for a missing target"
