# locks_named: progs/locks.c ledger: a writer holds the static ledger_lock 10 x 40 ms inside
# apply_batch while two readers wait for it; then main holds the heap mutex that account_new
# made with pthread_mutex_init 5 x 20 ms while account_reader waits. Checks: valid trace;
# Go's own view (go tool trace -d=1) shows the waits' reasons "sync: mutex ledger_lock" and
# "sync: mutex 0x... from account_new (locks.c:LINE)" (LINE: the pthread_mutex_init call);
# `gotrace locks`: ledger_lock 20 waits, 720-1200 ms (800 ms, more when a holder loses its
# CPU), the heap lock 5 waits, 90-200 ms (100 ms),
# every lock's total equal to `go tool trace -pprof=sync`'s total within 5 %; with --holders,
# ledger_writer is blamed for >= 95 % of ledger_lock's wait and its release stack names
# apply_batch; main for >= 95 % of the heap lock's; contention shows the names and holders.
# members: locks inside a static struct and array are named by their path (DWARF):
# "mutex queue.mu", "mutex stripes[2]".
source "$GT_ROOT/test/integration/lib_profiles.sh"
source "$GT_ROOT/test/integration/lib_locks.sh"

prog=$(build_prog locks)
trace_run run -- "$prog" ledger
expect_status "locks ledger" 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
init_line=$(grep -n 'pthread_mutex_init(&a->mu' "$GT_PROGS/locks.c" | cut -d: -f1)
heap="mutex 0x[0-9a-f]+ from account_new \\(locks.c:$init_line\\)"

gt_trans "$tr" >"$tr.sel"
assert_ge "$(awk -F'\t' '$3 == "Waiting" && $4 == "sync: mutex ledger_lock"' "$tr.sel" | grep -c . || true)" 20 \
    "waits whose reason in go tool trace is 'sync: mutex ledger_lock'"
assert_eq "$(awk -F'\t' '$3 == "Waiting"' "$tr.sel" | cut -f4 | grep -cE "^sync: $heap\$" || true)" 5 \
    "waits whose reason names the heap lock by its pthread_mutex_init"

assert_eq "$(lock_field "$tr" "mutex ledger_lock" waits)" 20 "ledger_lock's waits"
ledger=$(dur_ms "$(lock_field "$tr" "mutex ledger_lock" total)")
assert_ge "$ledger" 720 "ledger_lock's total wait (ms)"
assert_le "$ledger" 1200 "ledger_lock's total wait (ms; more when the writer loses its CPU)"
heap_name=$(locks_of "$tr" | sed -nE "s/^#[0-9]+  ($heap)  waits=.*/\\1/p")
[ -n "$heap_name" ] || fail "gotrace locks names no heap lock like '$heap'"
assert_eq "$(lock_field "$tr" "$heap_name" waits)" 5 "the heap lock's waits"
heap_ms=$(dur_ms "$(lock_field "$tr" "$heap_name" total)")
assert_ge "$heap_ms" 90 "the heap lock's total wait (ms)"
assert_le "$heap_ms" 200 "the heap lock's total wait (ms)"

all=$(dur_ms "$(sed -nE 's/.* total wait ([0-9.]+[a-z]+).*/\1/p' "$tr.locks" | head -1)")
assert_within "locks' total against go tool trace -pprof=sync (ms)" "$all" "$(pprof_total_ms "$tr" sync)" 5

assert_ge "$(holder_ms "$tr" "mutex ledger_lock" "ledger_writer")" $((ledger * 95 / 100)) \
    "wait on ledger_lock blamed on ledger_writer (ms)"
awk '/^#[0-9]+  mutex ledger_lock /, /^$/' "$tr.locks" | grep -A3 "held by ledger_writer" |
    grep -q "apply_batch .*locks.c:" || fail "ledger_writer's release stack does not name apply_batch"
assert_ge "$(holder_ms "$tr" "$heap_name" "main")" $((heap_ms * 95 / 100)) "wait on the heap lock blamed on main (ms)"

"$GT_DECODER" contention "$tr" >"$tr.contention"
assert_contains "$tr.contention" "sync: mutex ledger_lock" "contention's reasons"
assert_contains "$tr.contention" "  held by: ledger_writer (G" "contention's holders"

trace_run members -- "$prog" members
expect_status "locks members" 0
validate "$RUN_TRACE"
assert_eq "$(lock_field "$RUN_TRACE" "mutex queue.mu" waits)" 1 "waits on queue.mu"
assert_eq "$(lock_field "$RUN_TRACE" "mutex stripes[2]" waits)" 1 "waits on stripes[2]"
