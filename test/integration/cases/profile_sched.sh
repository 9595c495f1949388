# profile_sched: the condvar ping-pong (progs/sync_pingpong.c, 300 hand-offs), whose every
# wake-up leaves the woken thread Runnable until it runs. Checks: valid trace; `go tool trace
# -pprof=sched` is not empty and names the waker's call (pthread_cond_signal) and the
# program's functions play, ping and pong; the sync profile of the same trace names
# pthread_cond_wait and play.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_pingpong)
trace_run run -- "$prog" 300
expect_status sync_pingpong 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
stack_checks_follow
assert_ge "$(pprof_total_ms "$tr" sched)" 1 "sched profile total (ms, rounded)"
for want in pthread_cond_signal play ping pong; do
    assert_true "sched profile names $want" pprof_names "$tr" sched "$want"
done
for want in pthread_cond_wait play; do
    assert_true "sync profile names $want" pprof_names "$tr" sync "$want"
done
