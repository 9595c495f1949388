# generations: generations are cut on time. A 3.5 s run with the default period (1000 ms)
# holds 3..6 generations; a 1 s run with GOTRACE_PERIOD_MS=200 holds 4..8. Both valid.

prog=$(build_prog busy_join)

trace_run default -- "$prog" 3500
expect_status "busy_join 3500" 0
validate "$RUN_TRACE"
g=$(generations "$RUN_TRACE")
assert_ge "$g" 3 "generations of a 3.5 s run, default period"
assert_le "$g" 6 "generations of a 3.5 s run, default period"

trace_run p200 GOTRACE_PERIOD_MS=200 -- "$prog" 1000
expect_status "busy_join 1000" 0
validate "$RUN_TRACE"
g=$(generations "$RUN_TRACE")
assert_ge "$g" 4 "generations of a 1 s run, GOTRACE_PERIOD_MS=200"
assert_le "$g" 8 "generations of a 1 s run, GOTRACE_PERIOD_MS=200"
