# profile_net: main waits for a byte on a socketpair that a thread sends every 30 ms, 10
# times, with poll() and, in a second run, epoll_wait() (progs/sync_poll.c). Checks: both
# traces valid; `go tool trace -pprof=net` totals 300 ms within 10 % for each and names
# poll/wait_poll and epoll_wait/wait_epoll; the final zero-timeout wait emits nothing (main's
# "network" blocks: exactly 10).
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_poll)
for mode in poll epoll; do
    trace_run "$mode" -- "$prog" "$mode"
    expect_status "sync_poll $mode" 0
    assert_eq "$(cat "$RUN_OUT")" "10 ready" "$mode: program output"
    validate "$RUN_TRACE"
    assert_eq "$(blocks "$RUN_TRACE" 1 network)" 10 "$mode: main's network blocks"
    ! stacks_on || assert_within "$mode: net profile total (ms)" "$(pprof_total_ms "$RUN_TRACE" net)" 300 10
done
stack_checks_follow
for want in "poll " wait_poll; do
    assert_true "net profile names $want" pprof_names "$CASE_DIR/poll.trace" net "$want"
done
for want in epoll_wait wait_epoll; do
    assert_true "net profile names $want" pprof_names "$CASE_DIR/epoll.trace" net "$want"
done
