# generations: generations are cut on time. A 3.5 s run with the default period (1000 ms)
# holds 3..6 generations; a 1 s run with GOTRACE_PERIOD_MS=200 holds 4..8. All runs valid.

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

# Cut on size (GOTRACE_FLUSH_MB=1, no switch on time): a ping-pong of 40000 rounds writes about
# 1.8 MB of events, so its full buffers force one early generation (3 in all: the last one
# written at exit, then the live threads' statuses at the process's end). 10000 threads, 1000 alive at once, each leaving a record and a buffer
# page (about 13 KiB) when it ends: about 130 MB in all force a switch every 1 MB or more,
# so 2..131 generations, not one per buffer handed out (1036 when every new buffer of 1000
# live threads counted as buffered data).
prog=$(build_prog sync_pingpong)
trace_run size GOTRACE_PERIOD_MS=3600000 GOTRACE_FLUSH_MB=1 -- "$prog" 40000
expect_status "sync_pingpong 40000" 0
validate "$RUN_TRACE"
assert_eq "$(generations "$RUN_TRACE")" 3 "generations of 1.8 MB, GOTRACE_FLUSH_MB=1"

prog=$(build_prog robust_scale)
trace_run exits GOTRACE_PERIOD_MS=3600000 GOTRACE_FLUSH_MB=1 -- "$prog" threads
expect_status "robust_scale threads" 0
validate "$RUN_TRACE"
g=$(generations "$RUN_TRACE")
assert_ge "$g" 2 "generations of 10000 thread ends, GOTRACE_FLUSH_MB=1"
assert_le "$g" 131 "generations of 10000 thread ends, GOTRACE_FLUSH_MB=1"
