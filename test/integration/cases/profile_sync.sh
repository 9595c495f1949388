# profile_sync: main holds a mutex 10 x 50 ms while thread `waiter` waits for it in
# wait_for_lock (progs/sync_hold.c; they meet between rounds through atomics, nothing traced).
# Checks: valid trace; `go tool trace -pprof=sync` totals 500 ms within 10 %; its top list
# names pthread_mutex_lock, wait_for_lock and the line of the waiting call
# (sync_hold.c:LINE), which is what a newcomer looks for; the waits are woken by main, the
# unlocker (it wakes after its real release: at least 9 of the 10, as main could be preempted
# between the two for longer than the waiter takes to wake; measured 10 of 10 in 32 runs);
# `gotrace contention` shows the wait's leaf, the hook, with the module of the function it
# stands in front of: `pthread_mutex_lock (libc.so.6)` (a sanitizer's runtime under one).
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
gw=$(gids_started_at "$tr" waiter)
assert_eq "$(blocks "$tr" "$gw" 'sync: mutex')" 10 "the waiter's mutex blocks"
assert_ge "$(woken_by "$tr" "$gw" "$(gid_m "$tr" 1)" 'sync: mutex')" 9 \
    "the waiter's mutex wake-ups written by main, the unlocker"
leaf=$("$GT_BUILD/gotrace" contention "$tr" |
    awk '/^#[0-9]+  sync: mutex / { getline; sub(/^ +/, ""); print; exit }')
want='pthread_mutex_lock (libc.so.6)'
if [ -n "$GT_SANITIZER" ] && [[ $leaf == "pthread_mutex_lock (lib$GT_SANITIZER.so."*")" ]]; then
    want=$leaf # the sanitizer's interceptor is the next definition
fi
assert_eq "$leaf" "$want" "the mutex wait's leaf frame in gotrace contention"
