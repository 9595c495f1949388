# profile_sync: main holds a mutex 10 x 50 ms while thread `waiter` waits for it in
# wait_for_lock (progs/sync_hold.c; they meet between rounds through atomics, nothing traced).
# Checks: valid trace; `go tool trace -pprof=sync` totals 500 ms within 10 %; its top list
# names pthread_mutex_lock, wait_for_lock and the line of the waiting call
# (sync_hold.c:LINE), which is what a newcomer looks for.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_hold)
trace_run run -- "$prog"
expect_status sync_hold 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
stack_checks_follow
assert_within "sync profile total (ms)" "$(pprof_total_ms "$tr" sync)" 500 10
line=$(grep -n 'the known wait' "$GT_PROGS/sync_hold.c" | cut -d: -f1)
for want in pthread_mutex_lock wait_for_lock "sync_hold.c:$line"; do
    assert_true "sync profile names $want" pprof_names "$tr" sync "$want"
done
