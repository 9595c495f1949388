# bad_output: GOTRACE_OUT in a directory that does not exist. The program runs normally: same
# stdout and exit status as untraced, stderr is the untraced stderr plus exactly one line
# starting with "gotrace:", and no file appears.

prog=$(build_prog transparency)
plain_run plain -- "$prog"
p_status=$RUN_STATUS p_out=$RUN_OUT p_err=$RUN_ERR
bad=/nonexistent/gotrace-itest-dir/x.trace
[ ! -e "$(dirname "$bad")" ] || fail "$(dirname "$bad") exists; cannot test"
trace_run traced GOTRACE_OUT="$bad" -- "$prog"
assert_eq "$RUN_STATUS" "$p_status" "exit status"
cmp -s "$p_out" "$RUN_OUT" || fail "stdout differs: $(diff "$p_out" "$RUN_OUT" | head -c 300)"
assert_eq "$(gotrace_lines "$RUN_ERR")" 1 "gotrace: lines on stderr"
grep -v '^gotrace:' "$RUN_ERR" >"$CASE_DIR/err-rest" || true
cmp -s "$p_err" "$CASE_DIR/err-rest" || fail "stderr besides the warning differs: $(cat "$RUN_ERR")"
[ ! -e "$bad" ] || fail "$bad was created"
echo "warning: $(grep '^gotrace:' "$RUN_ERR")"
