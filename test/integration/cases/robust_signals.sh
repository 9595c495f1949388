# robust_signals: signals (progs/robust_signals.c). "handlers": 3000 signal handlers calling
# write/pthread_mutex_trylock/sem_post interrupt a thread in hooked waits and syscalls (and
# the tracer itself), GOTRACE_PERIOD_MS=20: finishes with "ok", valid trace, main blocked in
# sem_wait (its first wait, posted only by a one-shot timer, blocks whatever the load).
# "start": a signal sent to each of 300 new threads at once runs a handler that calls hooks
# before the thread's start routine (and before the tracer's start of the thread): valid
# trace, 300 goroutines named by the start routine, each started and ended once.
# "exit-in-malloc", 20 runs: a handler calls _exit while its thread allocates in a loop: the
# status is 7 and the trace valid (no deadlock in the tracer's last write, which allocates).
# Fatal ends ("segv", "segv-handler", "abort", "assert"; core dumps off): exit
# status, stdout and stderr as untraced; the trace validates; after abort(), assert() and
# _exit() from a SIGSEGV handler it also holds the last thread started (before_end), written
# by the flush the tracer does first. After a plain SIGSEGV it keeps the generations written
# before (like SIGKILL).

ulimit -c 0
prog=$(build_prog robust_signals)
trace_run handlers GOTRACE_PERIOD_MS=20 -- "$prog" handlers
expect_status handlers 0
assert_eq "$(cat "$RUN_OUT")" ok "handlers output"
validate "$RUN_TRACE"
if [ "$GT_SANITIZER" = tsan ]; then # its deferred handlers post before the hook's sem_trywait
    skip_part "main's sem_wait blocks not counted: TSan runs the handlers at its next intercepted call"
else
    assert_ge "$(count_reason "$RUN_TRACE" "$(main_gid)" "sync: semaphore")" 1 "main's sem_wait blocks"
fi
assert_ge "$(generations "$RUN_TRACE")" 3 "generations"

trace_run start GOTRACE_PERIOD_MS=20 -- "$prog" start
expect_status start 0
assert_eq "$(cat "$RUN_OUT")" ok "start output"
validate "$RUN_TRACE"
assert_eq "$(gids_started_at "$RUN_TRACE" started | grep -c .)" 300 "threads at started"
check_balanced "$RUN_TRACE"

# A handler calling _exit while its thread is inside malloc: the last write (which allocates)
# is the flusher thread's, so the program ends, with status 7 and a valid trace holding it.
if [ "$GT_SANITIZER" = asan ]; then # its allocator's lock is process-wide
    skip_part "exit-in-malloc not run: ASan's allocator lock, held by the interrupted thread, stops the flusher's allocations too (the program then exits after the bounded 30 s wait)"
else
    for i in $(seq 20); do
        trace_run "exit-in-malloc-$i" -- "$prog" exit-in-malloc
        expect_status "exit-in-malloc run $i" 7
        validate "$RUN_TRACE"
        assert_eq "$(gids_started_at "$RUN_TRACE" before_end | grep -c .)" 1 "before_end in the trace (exit-in-malloc)"
    done
fi

for mode in segv segv-handler abort assert; do
    plain_run "plain-$mode" -- "$prog" "$mode"
    p_status=$RUN_STATUS p_out=$RUN_OUT p_err=$RUN_ERR
    trace_run "traced-$mode" GOTRACE_PERIOD_MS=20 -- "$prog" "$mode"
    assert_eq "$RUN_STATUS" "$p_status" "exit status ($mode)"
    cmp -s "$p_out" "$RUN_OUT" || fail "stdout differs ($mode)"
    cmp -s "$p_err" "$RUN_ERR" || fail "stderr differs ($mode): $(head -c 300 "$RUN_ERR")"
    validate "$RUN_TRACE"
    assert_ge "$(generations "$RUN_TRACE")" 2 "generations ($mode)"
    if [ "$mode" != segv ]; then
        assert_eq "$(gids_started_at "$RUN_TRACE" before_end | grep -c .)" 1 "before_end in the trace ($mode)"
    fi
    echo "$mode: status $RUN_STATUS, $(generations "$RUN_TRACE") generations"
done
