# flight_mode: GOTRACE_MODE=flight GOTRACE_FLIGHT_S=1 (progs/flight.c; generations every 100 ms,
# a tenth of the window). api: two gotrace_flight_dump() calls at 1.5 s and 2.5 s write the
# output path and <stem>-dump2.trace, each valid and covering the last second (its events span
# 0.9 to 1.4 s), and the program goes on to print "ok"; nothing else is written (no file at
# exit). signal: SIGUSR2 writes a dump and the program goes on. handler: a program with its own
# SIGUSR2 handler gets the signal (same output as untraced), and no dump is written. exit:
# GOTRACE_FLIGHT_AT_EXIT=1 writes one dump at exit. A fatal signal dumps too (robust_fatal's
# program, SIGTERM).
prog=$(build_prog flight)
span_ms() { "$GT_BUILD/gotrace" dump "$1" | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%d", (b - a) / 1e6 }'; }
FL=(GOTRACE_MODE=flight GOTRACE_FLIGHT_S=1)

mkdir -p "$CASE_DIR/api"
trace_run api "${FL[@]}" GOTRACE_OUT="$CASE_DIR/api/f.trace" -- "$prog" api
expect_status "flight api" 0
assert_eq "$(tr '\n' ' ' <"$RUN_OUT")" "dump 0 dump 0 ok " "api output"
assert_eq "$(ls "$CASE_DIR/api" | grep -v '\.sel$\|\.trans$' | tr '\n' ' ')" "f-dump2.trace f.trace " "files written"
for f in "$CASE_DIR/api/f.trace" "$CASE_DIR/api/f-dump2.trace"; do
    validate "$f"
    s=$(span_ms "$f")
    assert_ge "$s" 900 "$(basename "$f"): span (ms) at least the window"
    assert_ge 1400 "$s" "$(basename "$f"): span (ms) at most the window and two generations"
done

mkdir -p "$CASE_DIR/sig"
trace_run signal "${FL[@]}" GOTRACE_OUT="$CASE_DIR/sig/f.trace" -- "$prog" signal
expect_status "flight signal" 0
assert_eq "$(cat "$RUN_OUT")" ok "signal output"
validate "$CASE_DIR/sig/f.trace"
assert_ge "$(span_ms "$CASE_DIR/sig/f.trace")" 900 "signal dump: span (ms)"

plain_run plain-handler -- "$prog" handler
untraced=$(cat "$RUN_OUT")
mkdir -p "$CASE_DIR/hd"
trace_run handler "${FL[@]}" GOTRACE_OUT="$CASE_DIR/hd/f.trace" -- "$prog" handler
expect_status "flight handler" 0
assert_eq "$(cat "$RUN_OUT")" "$untraced" "handler output as untraced"
assert_eq "$(ls "$CASE_DIR/hd" | grep -c .)" 0 "files written when the program owns SIGUSR2"

mkdir -p "$CASE_DIR/exit"
trace_run exit "${FL[@]}" GOTRACE_FLIGHT_AT_EXIT=1 GOTRACE_OUT="$CASE_DIR/exit/f.trace" -- "$prog" exit
expect_status "flight exit" 0
validate "$CASE_DIR/exit/f.trace"
assert_ge "$(span_ms "$CASE_DIR/exit/f.trace")" 900 "exit dump: span (ms)"

ulimit -c 0
fatal=$(build_prog fatal_end)
mkdir -p "$CASE_DIR/fatal"
trace_run fatal "${FL[@]}" GOTRACE_OUT="$CASE_DIR/fatal/f.trace" -- "$fatal" TERM "$CASE_DIR/fatal/counts"
assert_eq "$RUN_STATUS" 143 "flight fatal: status"
validate "$CASE_DIR/fatal/f.trace"
