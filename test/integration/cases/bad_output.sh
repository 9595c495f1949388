# bad_output: GOTRACE_OUT in a directory that does not exist. The program runs normally: same
# stdout and exit status as untraced, stderr is the untraced stderr plus exactly one line
# starting with "gotrace:", and no file appears. A file already at the path, longer or shorter
# than a header, is replaced whole by a valid trace.

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

# An existing, longer file at GOTRACE_OUT (other bytes) is replaced whole by the trace: output.c
# cuts it to the header's length (not to 0, which makes ext4 write it out at close), and the
# header overwrites what is left. A short one (3 bytes) is emptied.
for size in 100000 3; do
    old=$CASE_DIR/old$size.trace
    head -c "$size" /dev/urandom >"$old"
    trace_run "over$size" GOTRACE_OUT="$old" -- "$prog"
    assert_eq "$RUN_STATUS" "$p_status" "exit status over a file of $size bytes"
    validate "$old"
    [ "$(head -c 16 "$old" | tr '\0' '.')" = "go 1.23 trace..." ] || fail "over$size: no trace header"
done
