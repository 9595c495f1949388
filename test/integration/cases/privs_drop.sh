# privs_drop: a server that drops root keeps its symbols and leaves no live file (issue 45 item
# 6). progs/drop_privs.c starts two worker threads as root (named worker-0, worker-1, blocked in
# serve_requests' pthread_cond_wait), drops to nobody (setgroups, setgid, setuid: no longer
# dumpable, so /proc/self/auxv is refused and root's file in the sticky /dev/shm cannot be
# removed), then hands them 40 requests through a mutex and condvars. Before 2026-12-07 every
# frame, thread start and lock name of such a trace was "?" and its live file stayed on
# /dev/shm after every run. Checks, with the symbol cache off (every frame resolved by libdw
# after the drop): (1) a normal run: untraced output, the drop happened (uid 65534, dumpable
# 0), a valid trace whose stacks hold serve_requests, whose summary names the worker threads
# by their start routine and the condvars by their symbols ("condvar more"), and no live file
# of it left; (2) the same done by a forked child, its parent waiting as root (see there), a
# forked child that drops root and execs, and a process run as nobody that makes itself not
# dumpable with prctl;
# (3) killed with SIGKILL after the drop: the live file stays (given to nobody),
# `gotrace recover` completes the trace (valid, serve_requests in its stacks, every
# request's wait in it) and removes the live file.
# itest-timeout: 180
[ "$(id -u)" = 0 ] || skip_case "needs root to drop privileges"

prog=$(build_prog drop_privs)
want="dropped uid=65534 dumpable=0 served=40"

# (1) A normal run.
plain_run plain -- "$prog"
expect_status "drop_privs untraced" 0
assert_eq "$(cat "$RUN_OUT")" "$want" "untraced output"
trace_run run GOTRACE_SYMCACHE=0 -- "$prog"
expect_status drop_privs 0
assert_eq "$(cat "$RUN_OUT")" "$want" "traced output"
assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "gotrace: lines on stderr"
validate "$RUN_TRACE"
assert_eq "$(live_files_of "$RUN_TRACE")" "" "live files left by the run"
stack_checks_follow
"$GT_BUILD/gotrace" summary "$RUN_TRACE" >"$CASE_DIR/run.summary"
for w in worker-0 worker-1; do
    grep -q "^$w (worker) " "$CASE_DIR/run.summary" ||
        fail "summary: no row for $w named by its start routine: $(head -c 600 "$CASE_DIR/run.summary")"
done
grep -q "blocked on sync: condvar more " "$CASE_DIR/run.summary" ||
    fail "summary: the workers' condvar is not named: $(head -c 600 "$CASE_DIR/run.summary")"
"$GT_BUILD/gotrace" dump --stacks "$RUN_TRACE" >"$CASE_DIR/run.dump"
assert_ge "$(grep -cP '^\tserve_requests ' "$CASE_DIR/run.dump" || true)" 40 "frames of serve_requests"

# (2) A server's worker process: a forked child drops root, after it started its threads (fork)
# or first thing, before it recorded anything (forkearly). Its trace file, made lazily in a
# directory only root may write to, is opened before the drop (before 2026-12-07: "cannot
# write ... Permission denied", the child's trace lost).
for mode in fork forkearly; do
    rm -f "$CASE_DIR/$mode".*.trace
    trace_run "$mode" "GOTRACE_OUT=$CASE_DIR/$mode.%p.trace" GOTRACE_SYMCACHE=0 -- "$prog" 65534 65534 "$mode"
    expect_status "drop_privs $mode" 0
    assert_eq "$(cat "$RUN_OUT")" "$want" "$mode: output"
    assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "$mode: gotrace: lines on stderr"
    traces=("$CASE_DIR/$mode".*.trace)
    assert_eq "${#traces[@]}" 2 "$mode: trace files (parent and child)"
    for t in "${traces[@]}"; do
        validate "$t"
        assert_eq "$(live_files_of "$t")" "" "$mode: live files left by $(basename "$t")"
    done
    child=$(ls -S "${traces[@]}" | head -n1) # the child's holds the work
    "$GT_BUILD/gotrace" summary "$child" >"$CASE_DIR/$mode.summary"
    grep -q "^worker-0 (worker) " "$CASE_DIR/$mode.summary" ||
        fail "$mode: summary of the child: $(head -c 600 "$CASE_DIR/$mode.summary")"
    "$GT_BUILD/gotrace" dump --stacks "$child" >"$CASE_DIR/$mode.dump"
    assert_ge "$(grep -cP '^\tserve_requests ' "$CASE_DIR/$mode.dump" || true)" 40 \
        "$mode: frames of serve_requests in the child's trace"
done

# (2b) A forked child that drops root and execs (recorded nothing before): its first image's
# file, opened before the drop, is a valid trace with no thread; the exec'd image writes its
# own (as nobody: in a directory anyone may write to).
mkdir -p "$CASE_DIR/open"
chmod 1777 "$CASE_DIR/open"
rm -f "$CASE_DIR/open/"*.trace
trace_run forkexec "GOTRACE_OUT=$CASE_DIR/open/forkexec.%p.trace" -- "$prog" 65534 65534 forkexec
expect_status "drop_privs forkexec" 0
assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "forkexec: gotrace: lines on stderr"
traces=("$CASE_DIR/open/forkexec".*.trace)
assert_eq "${#traces[@]}" 3 "forkexec: trace files (parent, child, child's exec)"
for t in "${traces[@]}"; do validate "$t"; done
assert_eq "$(live_files_of "$CASE_DIR/open/")" "" "forkexec: live files left"

# (2c) Not dumpable without a change of user: run as nobody (setpriv), prctl(PR_SET_DUMPABLE, 0).
if command -v setpriv >/dev/null; then
    mkdir -p "$CASE_DIR/nobody"
    chmod 777 "$CASE_DIR/nobody"
    trace_run undumpable "GOTRACE_OUT=$CASE_DIR/nobody/undumpable.trace" GOTRACE_SYMCACHE=0 -- \
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$prog" 65534 65534 undumpable
    expect_status "drop_privs undumpable" 0
    assert_eq "$(cat "$RUN_OUT")" "$want" "undumpable: output"
    validate "$CASE_DIR/nobody/undumpable.trace" # setpriv's
    t=$CASE_DIR/nobody/undumpable-exec1.trace # the program's, exec'd by setpriv
    validate "$t"
    assert_eq "$(live_files_of "$CASE_DIR/nobody/")" "" "undumpable: live files left"
    "$GT_BUILD/gotrace" summary "$t" >"$CASE_DIR/undumpable.summary"
    grep -q "blocked on sync: condvar more " "$CASE_DIR/undumpable.summary" ||
        fail "undumpable: summary: $(head -c 600 "$CASE_DIR/undumpable.summary")"
else
    skip_part "no setpriv: the undumpable run"
fi

# (3) Killed after the drop, then recovered.
trace_start_bg held GOTRACE_SYMCACHE=0 -- "$prog" 65534 65534 hold
for ((i = 0; i < 600; i++)); do
    [ -s "$RUN_OUT" ] && break
    kill -0 "$RUN_PID" 2>/dev/null || fail "held: the program ended: $(head -c 300 "$RUN_ERR")"
    sleep 0.05
done
assert_eq "$(cat "$RUN_OUT")" "$want" "held: output before the kill"
live=$(live_files_of "$RUN_TRACE")
[ -n "$live" ] || fail "held: no live file while it runs"
assert_eq "$(stat -c %U "${live%% *}")" nobody "held: owner of the live file after the drop"
kill -KILL "$RUN_PID"
wait "$RUN_PID" 2>/dev/null || true
GT_BG_PIDS=()
"$GT_BUILD/gotrace" recover "$RUN_TRACE" >"$CASE_DIR/held.recover" 2>&1 ||
    fail "held: recover failed: $(head -c 400 "$CASE_DIR/held.recover")"
validate "$RUN_TRACE"
assert_eq "$(live_files_of "$RUN_TRACE")" "" "held: live files left after recover"
"$GT_BUILD/gotrace" dump --stacks "$RUN_TRACE" >"$CASE_DIR/held.dump"
assert_ge "$(grep -cP '^\tserve_requests ' "$CASE_DIR/held.dump" || true)" 40 \
    "held: frames of serve_requests in the recovered trace"
