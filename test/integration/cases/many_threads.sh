# many_threads: 1000 threads created and joined 10 at a time. Checks: valid trace; exactly
# 1000 goroutines start at tiny_job, each created once and ending once; 1001 creations in all
# (with main's); 1000 ends besides main's; output unchanged.

prog=$(build_prog many_threads)
trace_run run -- "$prog"
expect_status many_threads 0
assert_eq "$(cat "$RUN_OUT")" "sum=499500" "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE

assert_eq "$(gids_started_at "$tr" tiny_job | sort -u | wc -l)" 1000 "goroutines started at tiny_job"
assert_eq "$(count_trans "$tr" NotExist Runnable)" 1001 "creations (1000 + main)"
ends=$(($(count_trans "$tr" Running NotExist) - $(count_trans "$tr" Running NotExist "$(main_gid)")))
assert_eq "$ends" 1000 "ends of goroutines other than main"
check_balanced "$tr"
