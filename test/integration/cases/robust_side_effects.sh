# robust_side_effects: loading the tracer leaves the process as it found it
# (progs/robust_side_effects.c). "report" prints errno at start, signal masks of main and of a
# new thread, every disposition, the first pthread key, the first descriptor open() returns,
# every rlimit and the umask: traced output must equal untraced, also with signals inherited as
# ignored. Then daemon-like cleanups
# (closefrom(3), close_range(3, ~0U), close() of 3..4095, dup2 onto the trace's descriptor,
# and the same through syscall(SYS_close_range / SYS_close / SYS_dup2 / SYS_dup3)) with threads
# running: same output ("ok": every call behaved as with no tracer descriptor), status 0, and
# the trace stays valid and shows the thread started after the cleanup (after_close) created
# and ended. "asm-dup2-trace": the program replaces the trace's descriptor with its own file
# by an inline dup2 system call once a generation is written: same output, status 0; tracing
# stops with one "gotrace:" line, the program's file stays empty (nothing written into it),
# and the trace keeps its complete generations. "main-exit": main calls pthread_exit with a
# worker running: same output and status 0 (no tracer thread keeps the process alive), valid
# trace; not run under TSan, whose own background thread keeps such a process alive, untraced
# too.

prog=$(build_prog robust_side_effects)
plain_run plain -- "$prog" report
p_out=$RUN_OUT
trace_run traced -- "$prog" report
expect_status "report traced" 0
cmp -s "$p_out" "$RUN_OUT" || fail "process state differs: $(diff "$p_out" "$RUN_OUT" | head -c 400)"
validate "$RUN_TRACE"

# Signals the program inherits as ignored (nohup, a shell's trap ''): still ignored when traced,
# the others still the tracer's (the tracer sets its handlers with them blocked, each put back
# if it was not SIG_DFL).
plain_run plain-ignored -- "$prog" ignored
p_ign=$RUN_OUT
assert_eq "$(grep -c -E '^signal (1|2|3|10|13|15): ignore' "$p_ign")" 6 "ignored untraced"
trace_run traced-ignored -- "$prog" ignored
expect_status "report traced, signals ignored" 0
cmp -s "$p_ign" "$RUN_OUT" || fail "ignored signals differ: $(diff "$p_ign" "$RUN_OUT" | head -c 400)"

modes="closefrom close_range close-loop dup2-trace sys-close-range sys-close-loop sys-dup2-trace"
modes="$modes sys-dup3-trace main-exit"
if [ "$GT_SANITIZER" = tsan ]; then # TSan's background thread outlives main, untraced too
    modes=${modes% main-exit}
    skip_part "main-exit not run: under TSan such a process never exits, untraced too"
fi
for mode in $modes; do
    plain_run "plain-$mode" -- "$prog" "$mode"
    expect_status "$mode untraced" 0
    assert_eq "$(cat "$RUN_OUT")" ok "$mode untraced output"
    trace_run "traced-$mode" GOTRACE_PERIOD_MS=50 -- "$prog" "$mode"
    expect_status "$mode traced" 0
    assert_eq "$(cat "$RUN_OUT")" ok "$mode traced output"
    assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "gotrace: lines ($mode)"
    validate "$RUN_TRACE"
    if [ "$mode" != main-exit ]; then
        g=$(gids_started_at "$RUN_TRACE" after_close)
        assert_eq "$(echo "$g" | grep -c .)" 1 "after_close threads ($mode)"
        assert_eq "$(count_trans "$RUN_TRACE" Running NotExist "$g")" 1 "ends of after_close ($mode)"
    fi
done

own=$CASE_DIR/own-file
plain_run plain-asm -- "$prog" asm-dup2-trace "$own"
expect_status "asm-dup2-trace untraced" 0
assert_eq "$(cat "$RUN_OUT")" ok "asm-dup2-trace untraced output"
trace_run traced-asm GOTRACE_PERIOD_MS=50 -- "$prog" asm-dup2-trace "$own"
expect_status "asm-dup2-trace traced" 0
assert_eq "$(cat "$RUN_OUT")" ok "asm-dup2-trace traced output"
assert_eq "$(gotrace_lines "$RUN_ERR")" 1 "gotrace: lines (asm-dup2-trace)"
assert_contains "$RUN_ERR" "closed or replaced the descriptor" "asm-dup2-trace message"
assert_eq "$(stat -c %s "$own")" 0 "size of the program's file the trace descriptor became"
validate "$RUN_TRACE"
assert_ge "$(generations "$RUN_TRACE")" 1 "generations before the descriptor was replaced"
