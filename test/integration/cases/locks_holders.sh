# locks_holders: who held a lock while others waited (progs/locks.c). chain: chain_first
# holds chain_lock 60 ms while chain_second, then chain_third wait; chain_second gets it and
# holds it 60 ms. The third's wait (about 120 ms) is split: about 60 ms on each holder, so
# `gotrace locks --holders` blames chain_first for about 120 ms (the second's wait and half the
# third's) and chain_second for about 60 ms. rwlock: table_writer holds table_lock for writing
# 5 x 30 ms while table_reader waits to read: the writer is blamed for it all. Checks: valid
# traces; those blames within 25 % (scheduling on 2 cores); the waiters' totals. What ended the
# chain's waits (`gotrace contention`): chain_first's unlock found two threads queued and could
# not name the one it freed, so the waiter that got the lock ended its wait itself: "(released
# by chain_first)"; the other wait was ended by chain_second, woken or "(released by ...)";
# never "(ended itself" nor "(no goroutine)". pipeline: nothing holds a condvar: every wait of
# stage3 on q23.ready is "signalled by stage2", of stage2 on q12.ready "signalled by stage1"
# (locks --holders, contention, summary), never "held by".
source "$GT_ROOT/test/integration/lib_profiles.sh"
source "$GT_ROOT/test/integration/lib_locks.sh"

prog=$(build_prog locks)
trace_run chain -- "$prog" chain
expect_status "locks chain" 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
assert_eq "$(lock_field "$tr" "mutex chain_lock" waits)" 2 "chain_lock's waits"
assert_within "chain_lock's total wait (ms)" "$(dur_ms "$(lock_field "$tr" "mutex chain_lock" total)")" 180 25
assert_within "chain_lock's wait blamed on chain_first (ms)" "$(holder_ms "$tr" "mutex chain_lock" chain_first)" 120 25
assert_within "chain_lock's wait blamed on chain_second (ms)" "$(holder_ms "$tr" "mutex chain_lock" chain_second)" 60 25
"$GT_DECODER" contention "$tr" >"$tr.con" || fail "gotrace contention failed"
ended=$(grep -A6 '^#[0-9]*  sync: mutex chain_lock ' "$tr.con" | grep '^  woken by:' || true)
assert_eq "$(echo "$ended" | grep -o '(released by chain_first) (1)' | wc -l)" 1 \
    "chain_lock waits let go on by chain_first's release: $ended"
assert_eq "$(echo "$ended" | grep -oE '(chain_second|\(released by chain_second\)) \(1\)' | wc -l)" 1 \
    "chain_lock waits ended by chain_second: $ended"
case "$ended" in *"(ended itself"* | *"(no goroutine)"*) fail "chain_lock waits without a waker: $ended" ;; esac

trace_run rwlock -- "$prog" rwlock
expect_status "locks rwlock" 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
assert_eq "$(lock_field "$tr" "rwlock table_lock" waits)" 5 "table_lock's waits"
total=$(dur_ms "$(lock_field "$tr" "rwlock table_lock" total)")
assert_within "table_lock's total wait (ms)" "$total" 150 15
assert_ge "$(holder_ms "$tr" "rwlock table_lock" table_writer)" $((total * 95 / 100)) \
    "table_lock's wait blamed on table_writer (ms)"

trace_run pipeline -- "$prog" pipeline
expect_status "locks pipeline" 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
g2=$(gids_started_at "$tr" stage2)
g1=$(gids_started_at "$tr" stage1)
for q in "q23.ready stage2 $g2" "q12.ready stage1 $g1"; do
    set -- $q
    w=$(lock_field "$tr" "condvar $1" waits)
    assert_ge "${w:-0}" 1 "condvar $1's waits"
    assert_eq "$(enders "$tr" "condvar $1")" "signalled by $2 (G$3)" "who ended condvar $1's waits"
    assert_eq "$(ender_waits "$tr" "condvar $1" "signalled by $2 (G$3)")" "$w" "condvar $1's waits signalled by $2"
done
"$GT_DECODER" summary "$tr" >"$tr.sum" && "$GT_DECODER" contention "$tr" >"$tr.con" ||
    fail "gotrace summary/contention failed"
assert_contains "$tr.sum" ", 100% signalled by stage2" "stage3's summary"
! grep -q 'condvar.*held by' "$tr.sum" || fail "summary: a condvar is held: $(grep condvar "$tr.sum")"
assert_contains "$tr.con" "  signalled by: stage2 (G$g2) (" "contention on q23.ready"
! grep -A6 'sync: condvar' "$tr.con" | grep -q 'held by' || fail "contention: a condvar is held"
