# locks_holders: who held a lock while others waited (progs/locks.c). chain: chain_first
# holds chain_lock 60 ms while chain_second, then chain_third wait; chain_second gets it and
# holds it 60 ms. The third's wait (about 120 ms) is split: about 60 ms on each holder, so
# `gotrace locks --holders` blames chain_first for about 120 ms (the second's wait and half the
# third's) and chain_second for about 60 ms. rwlock: table_writer holds table_lock for writing
# 5 x 30 ms while table_reader waits to read: the writer is blamed for it all. Checks: valid
# traces; those blames within 25 % (scheduling on 2 cores); the waiters' totals.
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

trace_run rwlock -- "$prog" rwlock
expect_status "locks rwlock" 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
assert_eq "$(lock_field "$tr" "rwlock table_lock" waits)" 5 "table_lock's waits"
total=$(dur_ms "$(lock_field "$tr" "rwlock table_lock" total)")
assert_within "table_lock's total wait (ms)" "$total" 150 15
assert_ge "$(holder_ms "$tr" "rwlock table_lock" table_writer)" $((total * 95 / 100)) \
    "table_lock's wait blamed on table_writer (ms)"
