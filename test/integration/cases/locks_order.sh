# locks_order: lock tracking (docs/locks.md section 7) on progs/lockorder.c, answers known from
# the program's design. With GOTRACE_LOCK_ORDER=1: abba (first_ab takes lock_a then lock_b,
# then second_ba lock_b then lock_a; never at once, so the run cannot hang) -> `gotrace locks
# --order` lists exactly one inversion, lock_a and lock_b, whose two nested takes name first_ab
# and second_ba at the lines of their inner pthread_mutex_lock and where the held lock was
# taken; consistent (both threads lock_a then lock_b) -> 1 edge, 0 inversions; cycle3 (a->b,
# b->c, c->a by three threads in turn) -> exactly one inversion, of the three locks; rwlocks
# (rw_a read then rw_b write; rw_b by tryrdlock then rw_a write) -> one inversion whose edges
# show the modes. The same
# abba untracked -> no records, no inversion. With GOTRACE_LOCK_HOLDS=1: holds (ping and pong
# take hold_lock in strict turns, 10 times each, each hold >= 2 ms of thread CPU time) ->
# hold_lock 20 acquisitions, 20 owner changes, longest >= 2 ms, total >= 40 ms, the longest's
# stack in play; side_lock 1 and 1. exit_held (grab_and_quit returns holding quit_lock) with
# GOTRACE_HANG_MS=100 -> one live `gotrace: held at exit:` line naming the thread, the lock and
# the line that took it, and `gotrace locks` and `gotrace hangs` list it with that site.
source "$GT_ROOT/test/integration/lib_locks.sh"

prog=$(build_prog lockorder)
src=$GT_PROGS/lockorder.c
line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }
site_ab=$(line_of 'site: first_ab')
site_ba=$(line_of 'site: second_ba')
site_quit=$(line_of 'site: grab_and_quit')

# order TAG MODE ENV...: runs MODE traced, validates, writes `locks --order` to $RUN_TRACE.order.
order() {
    local tag=$1 mode=$2
    shift 2
    trace_run "$tag" "$@" -- "$prog" "$mode"
    expect_status "lockorder $mode" 0
    validate "$RUN_TRACE"
    "$GT_DECODER" locks --order "$RUN_TRACE" >"$RUN_TRACE.order" || fail "gotrace locks --order failed"
}
inversions() { sed -nE 's/.* ([0-9]+) inversions.*/\1/p' "$1" | head -1; }

order abba abba GOTRACE_LOCK_ORDER=1
o=$RUN_TRACE.order
assert_eq "$(inversions "$o")" 1 "abba's inversions"
assert_eq "$(grep -c '^inversion ' "$o")" 1 "abba's inversion lines"
grep -qE '^inversion 1: mutex lock_[ab] -> mutex lock_[ab] -> mutex lock_[ab]$' "$o" ||
    fail "abba's inversion does not name lock_a and lock_b: $(grep '^inversion' "$o")"
assert_contains "$o" "took mutex lock_b while holding mutex lock_a" "abba's first edge"
assert_contains "$o" "took mutex lock_a while holding mutex lock_b" "abba's second edge"
if stacks_on; then
    grep -A3 "first_ab (G[0-9]*) took mutex lock_b" "$o" | grep -q "first_ab .*lockorder.c:$site_ab\$" ||
        fail "the edge lock_a -> lock_b is not at first_ab lockorder.c:$site_ab"
    grep -A3 "second_ba (G[0-9]*) took mutex lock_a" "$o" | grep -q "second_ba .*lockorder.c:$site_ba\$" ||
        fail "the edge lock_b -> lock_a is not at second_ba lockorder.c:$site_ba"
    grep -q "holding mutex lock_a (taken at first_ab .*lockorder.c:$((site_ab - 1))), at:" "$o" ||
        fail "where first_ab took lock_a (line $((site_ab - 1))) is not named"
fi

order abba_off abba GOTRACE_LOCK_ORDER=0 GOTRACE_LOCK_HOLDS=0
assert_eq "$(inversions "$RUN_TRACE.order")" 0 "inversions of an untracked run"
assert_contains "$RUN_TRACE.order" "no lock tracking records" "an untracked run's note"

order consistent consistent GOTRACE_LOCK_ORDER=1
assert_contains "$RUN_TRACE.order" "lock order: 2 locks, 1 edges, 0 inversions" "consistent's graph"

order cycle3 cycle3 GOTRACE_LOCK_ORDER=1
o=$RUN_TRACE.order
assert_eq "$(inversions "$o")" 1 "cycle3's inversions"
assert_contains "$o" "lock order: 3 locks, 3 edges, 1 inversions" "cycle3's graph"
inv=$(grep '^inversion 1: ' "$o")
assert_eq "$(grep -o ' -> ' <<<"$inv" | wc -l)" 3 "locks in cycle3's inversion (arrows)"
for l in lock_a lock_b lock_c; do
    grep -q "mutex $l " <<<"$inv " || fail "cycle3's inversion does not name $l: $inv"
done
assert_eq "$(grep -c ' took mutex lock_. while holding mutex lock_.' "$o")" 3 "cycle3's nested takes"

order rwlocks rwlocks GOTRACE_LOCK_ORDER=1
o=$RUN_TRACE.order
assert_eq "$(inversions "$o")" 1 "rwlocks' inversions"
assert_contains "$o" "took rwlock rw_b (write) while holding rwlock rw_a (read)" "rwlocks' first edge"
assert_contains "$o" "took rwlock rw_a (write) while holding rwlock rw_b (try, read)" "rwlocks' second edge"

trace_run holds GOTRACE_LOCK_HOLDS=1 -- "$prog" holds
expect_status "lockorder holds" 0
validate "$RUN_TRACE"
"$GT_DECODER" locks --holds "$RUN_TRACE" >"$RUN_TRACE.holds" || fail "gotrace locks --holds failed"
h=$(grep '  mutex hold_lock  ' "$RUN_TRACE.holds")
[ -n "$h" ] || fail "locks --holds lists no hold_lock: $(head -5 "$RUN_TRACE.holds")"
assert_eq "$(sed -nE 's/.* acquisitions=([0-9]+) .*/\1/p' <<<"$h")" 20 "hold_lock's acquisitions"
assert_eq "$(sed -nE 's/.* owner changes=([0-9]+) .*/\1/p' <<<"$h")" 20 "hold_lock's owner changes"
assert_ge "$(dur_ms "$(sed -nE 's/.* max=([0-9.]+[a-z]+).*/\1/p' <<<"$h")")" 2 "hold_lock's longest hold (ms)"
assert_ge "$(dur_ms "$(sed -nE 's/.* total=([0-9.]+[a-z]+) .*/\1/p' <<<"$h")")" 40 "hold_lock's total hold (ms)"
assert_contains "$RUN_TRACE.holds" "  mutex side_lock  acquisitions=1  owner changes=1  " "side_lock's counts"
if stacks_on; then
    awk '/  mutex hold_lock  /, /^$/' "$RUN_TRACE.holds" | grep -q "^      play .*lockorder.c:" ||
        fail "hold_lock's longest hold's stack does not name play"
fi

trace_run exit_held GOTRACE_LOCK_ORDER=1 GOTRACE_HANG_MS=100 -- "$prog" exit_held
expect_status "lockorder exit_held" 0
validate "$RUN_TRACE"
assert_contains "$RUN_OUT" "quit_lock still held: 1" "the program's own view"
assert_eq "$(grep -c '^gotrace: held at exit: ' "$RUN_ERR" || true)" 1 "live held-at-exit lines"
grep -qE "^gotrace: held at exit: thread [0-9]+ grab_and_quit exited holding mutex quit_lock, taken at grab_and_quit \\(lockorder.c:$site_quit\\)\$" "$RUN_ERR" ||
    fail "the live line does not name grab_and_quit, quit_lock and line $site_quit: $(grep 'held at exit' "$RUN_ERR")"
"$GT_DECODER" locks "$RUN_TRACE" >"$RUN_TRACE.locks" || fail "gotrace locks failed"
grep -qE "^  grab_and_quit \\(G[0-9]+\\) exited at .* holding mutex quit_lock, taken at grab_and_quit .*lockorder.c:$site_quit\$" "$RUN_TRACE.locks" ||
    fail "gotrace locks does not list quit_lock held at grab_and_quit's exit: $(tail -3 "$RUN_TRACE.locks")"
"$GT_DECODER" hangs "$RUN_TRACE" >"$RUN_TRACE.hangs" || fail "gotrace hangs failed"
grep -qE "^  grab_and_quit \\(G[0-9]+\\) exited at .* holding mutex quit_lock, taken at grab_and_quit .*lockorder.c:$site_quit\$" "$RUN_TRACE.hangs" ||
    fail "gotrace hangs does not list quit_lock held at grab_and_quit's exit"
