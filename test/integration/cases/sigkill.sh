# sigkill: a program churning threads is killed with SIGKILL once its trace file holds k
# generations (k = 2..6, GOTRACE_PERIOD_MS=200; polled on the file's content). Each time the
# file must validate and hold >= max(2, k-1) generations (generation k may have been in the
# middle of its write when it was first seen, so only k-1 are sure to be complete).
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
    echo "kill at $k generations: file holds $g"
done
