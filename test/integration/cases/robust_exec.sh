# robust_exec: exec hands the trace on. `sh -c "exec PROG lock"` traced: the shell's image
# writes t.trace (complete before the exec: valid), the new image writes t-exec1.trace
# (valid, its 32 locker threads created and ended); output and status as untraced. Not run
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
