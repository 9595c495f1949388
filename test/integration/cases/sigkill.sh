# sigkill: a program churning threads is killed with SIGKILL once its trace file holds k
# generations (k = 2..6, GOTRACE_PERIOD_MS=200; polled on the file's content). Each time the
# file must validate and hold >= max(2, k-1) generations (generation k may have been in the
# middle of its write when it was first seen, so only k-1 are sure to be complete). Then
# `gotrace recover` adds what the process held (issue 17): the file validates again with at
# least as many generations and events.
# itest-timeout: 150

prog=$(build_prog churn)
for k in 2 3 4 5 6; do
    trace_start_bg "kill$k" GOTRACE_PERIOD_MS=200 -- "$prog" 30
    wait_for_generations "$RUN_TRACE" "$RUN_PID" "$k"
    kill -KILL "$RUN_PID"
    rc=0
    wait "$RUN_PID" || rc=$?
    GT_BG_PIDS=()
    assert_eq "$rc" 137 "status of the killed program (kill at $k generations)"
    validate "$RUN_TRACE"
    g=$(generations "$RUN_TRACE")
    want=$((k - 1 > 2 ? k - 1 : 2))
    assert_ge "$g" "$want" "generations after kill at $k"
    before=$("$GT_BUILD/gotrace" check "$RUN_TRACE" 2>/dev/null | sed -n 's/.* \([0-9]*\) events$/\1/p')
    "$GT_BUILD/gotrace" recover "$RUN_TRACE" >"$CASE_DIR/recover$k.out" 2>&1 ||
        fail "recover after kill at $k: $(head -c 300 "$CASE_DIR/recover$k.out")"
    validate "$RUN_TRACE"
    after=$("$GT_BUILD/gotrace" check "$RUN_TRACE" | sed -n 's/.* \([0-9]*\) events$/\1/p')
    assert_ge "$(generations "$RUN_TRACE")" "$((g + 1))" "generations after recover (kill at $k)"
    assert_ge "$after" "$((before + 1))" "events after recover (kill at $k)"
    echo "kill at $k generations: file holds $g, $before events; recovered: $after events"
done
