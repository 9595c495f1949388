# signals_strict: signal() from a strict C build (progs/sig_strict.c, -std=c99
# -D_POSIX_C_SOURCE=200809L: glibc's __sysv_signal, one-shot), then sigaction, on each of the
# tracer's fatal signals, SIGPROF and the flight recorder's SIGUSR2 (issue 44: the Open POSIX
# Test Suite's sigaction/28-1 ... 28-26 died of the signal, pthread_create/11-1 saw the tracer's
# handler where SIG_DFL was due). Traced as is, with CPU sampling (GOTRACE_CPU_HZ=100: SIGPROF
# is the tracer's) and in flight mode (SIGUSR2 is): the output (every handler each call
# returned, the flags and masks sigaction reported), exit status and stderr (but for one
# "gotrace:" line when the program takes SIGPROF from sampling) are the untraced run's, and
# the trace validates. Then a SIGTERM raised once the program set SIG_DFL again by signal()
# ends it as untraced (status 143) with its last generation written (the tracer holds it again).
ulimit -c 0
source "$GT_ROOT/test/integration/lib_signals.sh"

prog=$(build_prog sig_strict)
plain_run plain -- "$prog"
expect_status "untraced sig_strict" 0
cp "$RUN_OUT" "$CASE_DIR/want.out"
for how in default cpu flight; do
    case $how in
    default) env=() ;;
    cpu) env=(GOTRACE_CPU_HZ=100) ;;
    flight) env=(GOTRACE_MODE=flight GOTRACE_FLIGHT_AT_EXIT=1) ;;
    esac
    trace_run "$how" "${env[@]}" -- "$prog"
    expect_status "traced sig_strict ($how)" 0
    same_output "$CASE_DIR/want.out" "$RUN_OUT" "$how"
    want_lines=0
    [ "$how" = cpu ] && want_lines=1
    assert_eq "$(gotrace_lines "$RUN_ERR")" "$want_lines" "$how: gotrace: lines"
    assert_eq "$(grep -vc '^gotrace:' "$RUN_ERR" || true)" 0 "$how: other stderr lines"
    validate "$RUN_TRACE"
done

plain_run plain-term -- "$prog" 15
expect_status "untraced sig_strict 15" 143
trace_run term -- "$prog" 15
expect_status "traced sig_strict 15" 143
same_output "$CASE_DIR/want.out" "$RUN_OUT" term
validate "$RUN_TRACE"
"$GT_BUILD/gotrace" check "$RUN_TRACE" >"$RUN_TRACE.check" 2>&1 ||
    fail "gotrace check: $(head -c 300 "$RUN_TRACE.check")"
! grep -q 'gotrace recover' "$RUN_TRACE.check" || fail "SIGTERM left the live file: no last write"
