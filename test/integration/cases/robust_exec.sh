# robust_exec: exec hands the trace on. `sh -c "exec PROG lock"` traced: the shell's image
# writes t.trace (complete before the exec: valid), the new image writes t-exec1.trace
# (valid, its 32 locker threads created and ended); output and status as untraced. An exec into
# an untraced image leaves no live file; a failed one keeps it (recoverable). Not run
# under TSan: the shell dies at start under the TSan runtime alone (docs/robustness.md).

[ "$GT_SANITIZER" != tsan ] || skip_case "the shell crashes under the TSan runtime alone, untraced (dash and bash, at start)"
prog=$(build_prog robust_scale)
plain_run plain -- sh -c "exec $prog lock"
p_out=$RUN_OUT
trace_run t -- sh -c "exec $prog lock"
expect_status "exec'd program" 0
cmp -s "$p_out" "$RUN_OUT" || fail "output differs"
validate "$CASE_DIR/t.trace"
validate "$CASE_DIR/t-exec1.trace"
assert_eq "$(gids_started_at "$CASE_DIR/t-exec1.trace" locker | grep -c .)" 32 "locker threads in the exec'd image's trace"
assert_ge "$(count_trans "$CASE_DIR/t-exec1.trace" Running NotExist)" 32 "ends of the lockers"

# An exec into an image the tracer is not loaded into (LD_PRELOAD dropped by `env -u` or
# `env -i`) leaves no live file on /dev/shm: the traced image (env) removes its own before an
# exec that will run (hooks/exec.c), as its clean end would. $$ is every image's pid.
for how in u i; do
    if [ $how = u ]; then drop=(-u LD_PRELOAD); else drop=(-i); fi
    trace_run "drop_$how" -- sh -c 'echo $$; exec env "$@" /bin/true' sh "${drop[@]}"
    expect_status "exec into env ${drop[*]} /bin/true" 0
    pid=$(head -n1 "$RUN_OUT")
    [ -n "$pid" ] || fail "drop_$how: no pid printed"
    [ ! -e "/dev/shm/gotrace.$pid.live" ] ||
        fail "env ${drop[*]}: the live file of $pid is left on /dev/shm after its untraced exec"
    validate "$CASE_DIR/drop_$how.trace"
    validate "$CASE_DIR/drop_$how-exec1.trace"
done

# An exec that cannot run (no such file) keeps it: the shell goes on traced, and killed with
# SIGKILL after the failed exec it is recovered whole.
failed=$CASE_DIR/failed.trace
env LD_PRELOAD="$GT_PRELOAD" GOTRACE_OUT="$failed" bash -c \
    'shopt -s execfail; exec /nonexistent/gotrace-test 2>/dev/null; echo $$ >"$1"; kill -KILL $$' \
    bash "$CASE_DIR/failed.pid" </dev/null >/dev/null 2>&1 || true
pid=$(cat "$CASE_DIR/failed.pid")
[ -e "/dev/shm/gotrace.$pid.live" ] || fail "a failed exec gave up the live file of $pid"
"$GT_BUILD/gotrace" recover "$failed" >"$CASE_DIR/failed.recover" 2>&1 ||
    fail "recover after a failed exec: $(head -c 300 "$CASE_DIR/failed.recover")"
validate "$failed"
[ ! -e "/dev/shm/gotrace.$pid.live" ] || fail "recover left the live file of $pid"
