# recover_kill: a process killed with SIGKILL leaves its trace's last generations in its live file
# (/dev/shm), and `gotrace recover` appends them (issue 17). Two threads count their completed
# 2 ms sleeps in a shared file mapping (progs/fatal_end.c), so the sleeps done before the kill
# are known exactly; every completed sleep must be in the recovered trace (its GoBlock "sleep"
# is written before the sleep). Killed (1) before the first generation (the file holds only its
# start, which validates as a trace with no thread: before 2026-11-28 it held the header alone,
# which Go's reader refuses), (2) after 3 generations, (3) a forked child of a traced process; each time:
# `gotrace check` says to recover, recover keeps >= 99.9 % of the sleeps, the file validates,
# the live file is gone, and a second recover changes nothing; (4) the same through a relative
# trace path with a symbolic link in it. Also: recover refuses while the
# process runs, and `gotrace record` recovers a program killed under it by itself. A forked child
# killed before any hook ran: its reaping parent removes its live file, or, orphaned, recover
# says it traced nothing and removes it.
# itest-timeout: 150

source "$GT_ROOT/test/integration/lib_fatal_end.sh"
prog=$(build_prog fatal_end)

# sleeps of the counted threads in trace $1 (goroutines that are not the process's first)
kept() { "$GT_BUILD/gotrace" dump "$1" | awk '$4 != "G=1" && / GoBlock reason="sleep"/ { n++ } END { print n + 0 }'; }
live_of() { echo "/dev/shm/gotrace.$1.live"; }

# check_recovered TAG TRACE COUNTS PID: the checks after a kill.
check_recovered() {
    local tag=$1 trace=$2 counts=$3 pid=$4 before after n
    [ -f "$(live_of "$pid")" ] || fail "$tag: no live file $(live_of "$pid") after the kill"
    "$GT_BUILD/gotrace" check "$trace" >"$CASE_DIR/$tag.check" 2>&1 || true
    grep -q "gotrace recover $trace" "$CASE_DIR/$tag.check" ||
        fail "$tag: check does not say to recover: $(head -c 300 "$CASE_DIR/$tag.check")"
    before=$(kept "$trace" 2>/dev/null || true)
    "$GT_BUILD/gotrace" recover "$trace" >"$CASE_DIR/$tag.recover" 2>&1 ||
        fail "$tag: recover failed: $(head -c 400 "$CASE_DIR/$tag.recover")"
    validate "$trace"
    [ ! -e "$(live_of "$pid")" ] || fail "$tag: the live file is still there after recover"
    n=$(counted "$counts")
    after=$(kept "$trace")
    echo "$tag: $n sleeps done, $before in the file before recover, $after after"
    assert_ge "$n" 10 "$tag: sleeps done before the kill"
    assert_ge "$((after * 1000))" "$((n * 999))" "$tag: sleeps in the recovered trace (per mille of $n)"
    cp "$trace" "$CASE_DIR/$tag.copy"
    "$GT_BUILD/gotrace" recover "$trace" >"$CASE_DIR/$tag.again" 2>&1 ||
        fail "$tag: a second recover failed: $(cat "$CASE_DIR/$tag.again")"
    grep -q "nothing to recover" "$CASE_DIR/$tag.again" || fail "$tag: second recover: $(cat "$CASE_DIR/$tag.again")"
    cmp -s "$trace" "$CASE_DIR/$tag.copy" || fail "$tag: a second recover changed the trace"
}

# (1) Before the first generation: the file holds only its start (a valid trace, no thread).
trace_start_bg early GOTRACE_PERIOD_MS=600000 -- "$prog" wait "$CASE_DIR/early.counts"
wait_count "$CASE_DIR/early.counts" 20 "$RUN_PID"
"$GT_BUILD/gotrace" recover "$RUN_TRACE" >"$CASE_DIR/running.out" 2>&1 && fail "recover of a running process succeeded"
grep -q "still running" "$CASE_DIR/running.out" || fail "recover of a running process: $(cat "$CASE_DIR/running.out")"
kill -KILL "$RUN_PID"
wait "$RUN_PID" 2>/dev/null || true
GT_BG_PIDS=()
validate "$RUN_TRACE"
assert_eq "$(generations "$RUN_TRACE")" 1 "generations in the file before its first was written"
assert_eq "$(kept "$RUN_TRACE")" 0 "sleeps in the file before its first generation was written"
check_recovered early "$RUN_TRACE" "$CASE_DIR/early.counts" "$RUN_PID"

# (2) After 3 generations.
trace_start_bg later GOTRACE_PERIOD_MS=100 -- "$prog" wait "$CASE_DIR/later.counts"
wait_for_generations "$RUN_TRACE" "$RUN_PID" 3
kill -KILL "$RUN_PID"
wait "$RUN_PID" 2>/dev/null || true
GT_BG_PIDS=()
check_recovered later "$RUN_TRACE" "$CASE_DIR/later.counts" "$RUN_PID"

# (3) A forked child (its tables copied from its parent's live file at the fork).
rm -f "$CASE_DIR/child.counts.pid"
trace_start_bg fork "GOTRACE_OUT=$CASE_DIR/fork.%p.trace" GOTRACE_PERIOD_MS=100 -- "$prog" fork "$CASE_DIR/child.counts"
parent=$RUN_PID
kill_forked_child "$CASE_DIR/child.counts"
child=$CHILD
check_recovered fork "$CASE_DIR/fork.$child.trace" "$CASE_DIR/child.counts" "$child"
validate "$CASE_DIR/fork.$parent.trace"
[ ! -e "$(live_of "$parent")" ] || fail "the parent's live file is still there after its normal end"

# (4) A relative GOTRACE_OUT through a symbolic link: the live file's head holds it made absolute
# with the working directory, not resolved (a readlink a component at start-up); recover, given
# the trace by its resolved path, still finds it.
mkdir -p "$CASE_DIR/real" "$CASE_DIR/cwd"
ln -sfn "$CASE_DIR/real" "$CASE_DIR/cwd/link"
rm -f "$CASE_DIR/real/rel.trace"
cd "$CASE_DIR/cwd"
trace_start_bg rel GOTRACE_OUT=link/rel.trace GOTRACE_PERIOD_MS=100 -- "$prog" wait "$CASE_DIR/rel.counts"
cd - >/dev/null
rpid=$RUN_PID
wait_count "$CASE_DIR/rel.counts" 20 "$rpid"
wait_for_generations "$CASE_DIR/real/rel.trace" "$rpid" 1
out=$(dd if="$(live_of "$rpid")" bs=64 skip=1 count=64 2>/dev/null | tr '\0' '\n' | head -n1)
assert_eq "$out" "$CASE_DIR/cwd/link/rel.trace" "the trace path in the live file's head"
kill -KILL "$rpid"
wait "$rpid" 2>/dev/null || true
GT_BG_PIDS=()
check_recovered rel "$CASE_DIR/real/rel.trace" "$CASE_DIR/rel.counts" "$rpid"

# `gotrace record` recovers a program killed under it.
rm -f "$CASE_DIR/rec.trace" "$CASE_DIR/rec.counts"
rc=0
"$GT_BUILD/gotrace" record -o "$CASE_DIR/rec.trace" -- "$prog" wait "$CASE_DIR/rec.counts" \
    >"$CASE_DIR/rec.out" 2>"$CASE_DIR/rec.err" &
rpid=$!
wait_count "$CASE_DIR/rec.counts" 20 "$rpid"
pkill -KILL -f "^$prog wait $CASE_DIR/rec.counts" || true
wait "$rpid" || rc=$?
assert_eq "$rc" 137 "gotrace record's status for a program killed by SIGKILL"
grep -q "recovered" "$CASE_DIR/rec.err" || fail "record did not recover: $(head -c 300 "$CASE_DIR/rec.err")"
assert_eq "$(cat "$CASE_DIR/rec.out")" "" "record's stdout (the program's, which printed nothing)"
validate "$CASE_DIR/rec.trace"
assert_ge "$(($(kept "$CASE_DIR/rec.trace") * 1000))" "$(($(counted "$CASE_DIR/rec.counts") * 999))" "sleeps in record's recovered trace"

# Killed at any moment of a busy run (threads created and joined all the time, a generation every
# 20 ms: the kill often lands in a switch or in the middle of a record): every recovered file
# validates.
churn=$(build_prog churn)
for k in 1 2 3 4 5 6 7 8; do
    trace_start_bg "any$k" GOTRACE_PERIOD_MS=20 -- "$churn" 30
    wait_for_generations "$RUN_TRACE" "$RUN_PID" "$k"
    kill -KILL "$RUN_PID"
    wait "$RUN_PID" 2>/dev/null || true
    GT_BG_PIDS=()
    "$GT_BUILD/gotrace" recover "$RUN_TRACE" >"$CASE_DIR/any$k.out" 2>&1 ||
        fail "recover after kill $k: $(head -c 300 "$CASE_DIR/any$k.out")"
    validate "$RUN_TRACE"
    sed -n 's/.*(\([0-9]*\) dropped.*/kill '"$k"': \1 bytes dropped/p' "$CASE_DIR/any$k.out"
done

# A process killed before any hook ran. A forked child (a subshell that kills itself) maps its
# parent's live file until its first record, and makes its own then: killed before that, it
# leaves none, (a) reaped by its traced parent (bash's waitpid) or (b) orphaned, its parent gone
# first (it waits for that with `[ -d /proc/PID ]`, a stat no hook sees; its stdin is the
# parent's, not /dev/null opened by a hook), reaped by init (until 2026-12 each left a live file
# holding no thread and no event: reaped, the tracer removed it; orphaned, it stayed on /dev/shm
# until a recover said there was nothing to recover). (c) A new process killed by its own
# constructor (progs/die_early.c) has a live file from its start: run by a traced parent, which
# reaps it, the tracer removes it; run alone, recover of its path says there is nothing to
# recover, removes the live file and leaves the trace as it was: its start, a valid trace with
# no thread (recover tried to rebuild it and failed: "no frequency event found").
if [ -z "$GT_SANITIZER" ]; then
    trace_run sub -- bash -c '(kill -9 $BASHPID); echo "sub $?"'
    assert_eq "$(cat "$RUN_OUT")" "sub 137" "the subshell killed itself"
    validate "$RUN_TRACE"
    left=$(live_files_of "$RUN_TRACE.")
    [ -z "$left" ] || fail "sub: the reaped subshell's live file is left: $left"

    trace_run orphan -- bash -c 'p=$$; (while [ -d /proc/$p ]; do :; done; kill -9 $BASHPID) 0<&0 &
        echo "$!"'
    pid=$(cat "$RUN_OUT")
    assert_ge "$pid" 2 "the orphan's pid"
    for _ in $(seq 1 500); do [ -d "/proc/$pid" ] || break; sleep 0.01; done
    [ ! -d "/proc/$pid" ] || fail "orphan: the subshell $pid did not end"
    left=$(live_files_of "$RUN_TRACE.")
    [ -z "$left" ] || fail "orphan: the orphaned subshell left a live file: $left"

    early=$(build_prog die_early)
    trace_run reaped -- bash -c '"$0"; echo "early $?"' "$early"
    assert_eq "$(cat "$RUN_OUT")" "early 137" "the program killed itself"
    left=$(live_files_of "$CASE_DIR/reaped.")
    [ -z "$left" ] || fail "reaped: the killed program's live file is left: $left"

    rm -f "$CASE_DIR/early.trace"
    rc=0
    GOTRACE_OUT="$CASE_DIR/early.trace" LD_PRELOAD="$GT_PRELOAD" "$early" || rc=$?
    assert_eq "$rc" 137 "die_early's status"
    read -r live child < <(live_files_of "$CASE_DIR/early.trace")
    [ -n "$live" ] || fail "early: no live file of the killed program"
    "$GT_BUILD/gotrace" recover "$child" >"$CASE_DIR/early.recover" 2>&1 ||
        fail "early: recover failed: $(head -c 300 "$CASE_DIR/early.recover")"
    grep -q "traced nothing" "$CASE_DIR/early.recover" || fail "early: $(cat "$CASE_DIR/early.recover")"
    [ ! -e "$live" ] || fail "early: the live file is still there after recover"
    validate "$child"
    assert_eq "$(generations "$child")" 1 "generations in the file of a process that traced nothing"
fi
