# transparency: tracing changes nothing the program shows. The same program run untraced and
# traced gives identical stdout, stderr and exit status (3), and a valid trace. Same for the
# variant where a worker calls exit(5) while main is blocked in a join.

prog=$(build_prog transparency)
for mode in normal thread-exit; do
    plain_run "plain-$mode" -- "$prog" "$mode"
    p_status=$RUN_STATUS p_out=$RUN_OUT p_err=$RUN_ERR
    trace_run "traced-$mode" -- "$prog" "$mode"
    assert_eq "$RUN_STATUS" "$p_status" "traced exit status ($mode)"
    cmp -s "$p_out" "$RUN_OUT" || fail "stdout differs ($mode): $(diff "$p_out" "$RUN_OUT" | head -c 300)"
    cmp -s "$p_err" "$RUN_ERR" || fail "stderr differs ($mode): $(diff "$p_err" "$RUN_ERR" | head -c 300)"
    validate "$RUN_TRACE"
done
plain_run status -- "$prog"
expect_status "transparency untraced" 3
