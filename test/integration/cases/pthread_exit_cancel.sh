# pthread_exit_cancel: threads that end by pthread_exit (exiter), by cancellation in pause()
# (pauser), and detached (detached_worker; main waits until its kernel task is gone). Checks:
# the program saw the expected results; valid trace; each of the three children is created once
# and has exactly one Running->NotExist. Then the main thread ending by pthread_exit as the last
# thread: a complete trace.

prog=$(build_prog exits)
trace_run run -- "$prog"
expect_status exits 0
assert_eq "$(cat "$RUN_OUT")" ok "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE

for fn in exiter pauser detached_worker; do
    g=$(gids_started_at "$tr" "$fn")
    assert_eq "$(echo "$g" | grep -c .)" 1 "goroutines started at $fn"
    assert_eq "$(count_trans "$tr" Running NotExist "$g")" 1 "ends of $fn (G$g)"
done
assert_eq "$(count_trans "$tr" NotExist Runnable)" 4 "creations (3 + main)"
check_balanced "$tr"

# The main thread as the last thread ending by pthread_exit (glibc calls exit(0) on it): the
# trace is complete without `gotrace recover` (no live file left, check says nothing else), the
# main thread's wait and end are in it.
prog=$(build_prog main_exit_last)
trace_run last -- "$prog"
expect_status main_exit_last 0
assert_eq "$(cat "$RUN_OUT")" ok "main_exit_last output"
validate "$RUN_TRACE"
assert_eq "$(live_files_of "$RUN_TRACE" | grep -c . || true)" 0 "live files left by main_exit_last"
"$GT_BUILD/gotrace" check "$RUN_TRACE" >"$CASE_DIR/last.check" 2>&1
assert_eq "$(grep -c 'gotrace recover' "$CASE_DIR/last.check" || true)" 0 "check's recover hint"
assert_eq "$(count_reason "$RUN_TRACE" 1 sleep)" 1 "main's sleep"
assert_eq "$(count_trans "$RUN_TRACE" Running NotExist 1)" 1 "main's end"
