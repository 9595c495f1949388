# robust_side_effects: loading the tracer leaves the process as it found it
# (progs/robust_side_effects.c). "report" prints errno at start, signal masks of main and of a
# new thread, every disposition, the first pthread key, the first descriptor open() returns,
# every rlimit and the umask: traced output must equal untraced. Then daemon-like cleanups
# (closefrom(3), close_range(3, ~0U), close() of 3..4095, dup2 onto the trace's descriptor)
# with threads running: same output ("ok": every call behaved as with no tracer descriptor),
# status 0, and the trace stays valid and shows the thread started after the cleanup
# (after_close) created and ended. "main-exit": main calls pthread_exit with a worker running:
# same output and status 0 (no tracer thread keeps the process alive), valid trace; not run
# under TSan, whose own background thread keeps such a process alive, untraced too.

prog=$(build_prog robust_side_effects)
plain_run plain -- "$prog" report
p_out=$RUN_OUT
trace_run traced -- "$prog" report
expect_status "report traced" 0
cmp -s "$p_out" "$RUN_OUT" || fail "process state differs: $(diff "$p_out" "$RUN_OUT" | head -c 400)"
validate "$RUN_TRACE"

modes="closefrom close_range close-loop dup2-trace main-exit"
if [ "$GT_SANITIZER" = tsan ]; then # TSan's background thread outlives main, untraced too
    modes=${modes% main-exit}
    skip_part "main-exit not run: under TSan such a process never exits, untraced too"
fi
for mode in $modes; do
    plain_run "plain-$mode" -- "$prog" "$mode"
    expect_status "$mode untraced" 0
    assert_eq "$(cat "$RUN_OUT")" ok "$mode untraced output"
    trace_run "traced-$mode" GOTRACE_PERIOD_MS=50 -- "$prog" "$mode"
    expect_status "$mode traced" 0
    assert_eq "$(cat "$RUN_OUT")" ok "$mode traced output"
    assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "gotrace: lines ($mode)"
    validate "$RUN_TRACE"
    if [ "$mode" != main-exit ]; then
        g=$(gids_started_at "$RUN_TRACE" after_close)
        assert_eq "$(echo "$g" | grep -c .)" 1 "after_close threads ($mode)"
        assert_eq "$(count_trans "$RUN_TRACE" Running NotExist "$g")" 1 "ends of after_close ($mode)"
    fi
done
