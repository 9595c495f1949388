# annot_sigprof: a program using SIGPROF itself (ITIMER_PROF and its own handler, installed
# with sigaction or with signal) keeps it under GOTRACE_CPU_HZ=100: sigaction reports SIG_DFL
# before it installs its handler, the handler runs, the tracer says so in one "gotrace:" line,
# and the trace is valid.

prog=$(build_prog annot_sigprof)
for how in sigaction signal; do
    trace_run "$how" GOTRACE_CPU_HZ=100 -- "$prog" "$how"
    expect_status "annot_sigprof $how" 0
    assert_eq "$(cat "$RUN_OUT" | tr '\n' ' ')" "before=default ticks>0 " "$how: program output"
    assert_eq "$(gotrace_lines "$RUN_ERR")" 1 "$how: gotrace: lines"
    assert_contains "$RUN_ERR" "SIGPROF" "$how: the message"
    validate "$RUN_TRACE"
done
