# profile_sync: main holds a mutex 10 x 50 ms while thread `waiter` waits for it in
# wait_for_lock (progs/sync_hold.c; they meet between rounds through atomics, nothing traced).
# Checks: valid trace; `go tool trace -pprof=sync` totals 500 ms within 10 %; its top list
# names pthread_mutex_lock, wait_for_lock and the line of the waiting call
# (sync_hold.c:LINE), which is what a newcomer looks for; the waits are woken by main, the
# unlocker: all 10 ended by main in `gotrace contention`, woken by it, or "(released by main)"
# where the waiter, woken by the kernel, ran before main wrote the wake after its real release
# (main preempted between the two: from 2 to all 10 of 10 on a loaded machine);
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
ended=$("$GT_BUILD/gotrace" contention "$tr" | grep -A6 '^#[0-9]*  sync: mutex mu ' | grep '^  woken by:')
by_main=$(echo "$ended" | grep -oE '(main|\(released by main\)) \([0-9]+\)' | grep -oE '[0-9]+\)$' |
    tr -d ')' | awk '{ n += $1 } END { print n + 0 }')
assert_eq "$by_main" 10 "the waiter's mutex waits ended by main, woken or released: $ended"
leaf=$("$GT_BUILD/gotrace" contention "$tr" |
    awk '/^#[0-9]+  sync: mutex / { getline; sub(/^ +/, ""); print; exit }')
want='pthread_mutex_lock (libc.so.6)'
if [ -n "$GT_SANITIZER" ] && [[ $leaf == "pthread_mutex_lock (lib$GT_SANITIZER.so."*")" ]]; then
    want=$leaf # the sanitizer's interceptor is the next definition
fi
assert_eq "$leaf" "$want" "the mutex wait's leaf frame in gotrace contention"
