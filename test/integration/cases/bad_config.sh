# bad_config: GOTRACE_PERIOD_MS=abc gives exactly one "gotrace:" warning naming the variable
# and the value, the program runs normally, and the trace (default period) is valid.

prog=$(build_prog threads_basic)
trace_run run GOTRACE_PERIOD_MS=abc -- "$prog"
expect_status threads_basic 0
assert_eq "$(cat "$RUN_OUT")" "sum=2800" "program output"
assert_eq "$(gotrace_lines "$RUN_ERR")" 1 "gotrace: lines on stderr"
assert_contains "$RUN_ERR" GOTRACE_PERIOD_MS "the warning"
assert_contains "$RUN_ERR" abc "the warning"
validate "$RUN_TRACE"
assert_eq "$(count_trans "$RUN_TRACE" NotExist Runnable)" 9 "creations (8 workers + main)"
