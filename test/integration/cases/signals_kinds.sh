# signals_kinds: every other way to set or read a handler (progs/sig_kinds.c), on each of the
# tracer's fatal signals and SIGPROF: bsd_signal, ssignal, sysv_signal, sigset (SIG_HOLD and
# its return values), sigignore (not interposed: the kernel's SIG_IGN is what sigaction
# reports), and a handler installed by syscall(SYS_rt_sigaction), whose read of the previous
# action is SIG_DFL, which sigaction then reports and which a raise runs (the tracer never
# installs its own over it). Traced as is and with CPU sampling (GOTRACE_CPU_HZ=100): output
# (each call's result, the flags and masks), exit status and stderr (but for one "gotrace:" line
# when the program takes SIGPROF from sampling) as untraced, and the trace validates. raw-dfl:
# after a raw handler, sigaction(SIG_DFL) reports that handler as old and really sets SIG_DFL
# (which the tracer takes back): SIGTERM and SIGSEGV raised then end the process as untraced,
# with a valid trace.
ulimit -c 0
source "$GT_ROOT/test/integration/lib_signals.sh"

prog=$(build_prog sig_kinds)
ways=(bsd_signal ssignal sysv_signal sigset sigignore raw)
raw_dfl=(15 11)
if [ "$GT_SANITIZER" = tsan ]; then
    ways=("${ways[@]:0:5}")
    raw_dfl=()
    skip_part "raw rt_sigaction not run: TSan installs a wrapper of its own for every handler set through its sigaction, the tracer's too, which a raw read shows"
fi
for way in "${ways[@]}"; do
    plain_run "plain-$way" -- "$prog" "$way"
    expect_status "untraced $way" 0
    cp "$RUN_OUT" "$CASE_DIR/want-$way.out"
    for how in default cpu; do
        env=()
        [ "$how" = cpu ] && env=(GOTRACE_CPU_HZ=100)
        trace_run "$way-$how" "${env[@]}" -- "$prog" "$way"
        expect_status "traced $way ($how)" 0
        same_output "$CASE_DIR/want-$way.out" "$RUN_OUT" "$way ($how)"
        assert_le "$(gotrace_lines "$RUN_ERR")" 1 "$way ($how): gotrace: lines"
        [ "$how" = cpu ] || assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "$way: gotrace: lines"
        assert_eq "$(grep -vc '^gotrace:' "$RUN_ERR" || true)" 0 "$way ($how): other stderr lines"
        validate "$RUN_TRACE"
    done
done

for sig in "${raw_dfl[@]}"; do
    plain_run "plain-raw-dfl-$sig" -- "$prog" raw-dfl "$sig"
    want=$RUN_STATUS
    assert_eq "$want" $((128 + sig)) "untraced raw-dfl $sig: status"
    cp "$RUN_OUT" "$CASE_DIR/want-raw-dfl.out"
    trace_run "raw-dfl-$sig" -- "$prog" raw-dfl "$sig"
    expect_status "traced raw-dfl $sig" "$want"
    same_output "$CASE_DIR/want-raw-dfl.out" "$RUN_OUT" "raw-dfl $sig"
    validate "$RUN_TRACE"
done
