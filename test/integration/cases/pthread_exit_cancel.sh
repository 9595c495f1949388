# pthread_exit_cancel: threads that end by pthread_exit (exiter), by cancellation in pause()
# (pauser), and detached (detached_worker; main waits until its kernel task is gone). Checks:
# the program saw the expected results; valid trace; each of the three children is created once
# and has exactly one Running->NotExist.

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
