# sync_sem: producer/consumer over two semaphores; the producer sleeps 1 ms before each of 40
# items so the consumer waits for them (progs/sync_sem.c), then the program checks results
# only the real calls give. Checks: output "ok"; valid trace; the consumer's blocks are
# "sync: semaphore" with stacks sem_{wait,timedwait,clockwait}|consumer; at least 30 of its 40
# items were waited for, and every such wait was ended by the producer's sem_post (it is the
# sole waiter: the unblock is written on the producer's M with a sem_post|producer stack);
# balanced goroutines. `gotrace locks --holders`: nothing holds a semaphore: full_slots' waits
# are all "posted by producer (G<id>)"; the one wait of results()' semaphore timed out (20 ms,
# ETIMEDOUT: no post), "(ended itself: no waker recorded)"; summary says the same, never
# "held by".
source "$GT_ROOT/test/integration/lib_profiles.sh"
source "$GT_ROOT/test/integration/lib_locks.sh"

prog=$(build_prog sync_sem)
trace_run run -- "$prog"
expect_status sync_sem 0
assert_eq "$(cat "$RUN_OUT")" ok "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE

gc=$(gids_started_at "$tr" consumer)
gp=$(gids_started_at "$tr" producer)
n=$(blocks "$tr" "$gc" 'sync: semaphore')
assert_ge "$n" 30 "consumer's semaphore blocks"
assert_eq "$(woken_by "$tr" "$gc" "$(gid_m "$tr" "$gp")" 'sync: semaphore')" "$n" \
    "consumer's semaphore waits ended by the producer"
assert_eq "$(ender_waits "$tr" "semaphore full_slots" "posted by producer (G$gp)")" "$n" \
    "full_slots' waits posted by the producer"
assert_eq "$(enders "$tr" "semaphore full_slots")" "posted by producer (G$gp)" \
    "who ended full_slots' waits"
timed=$(locks_of "$tr" | awk '/^#[0-9]+  / { on = index($0, " from results (sync_sem.c:") > 0; next }
    on && /^  [^ ]/ && / in [0-9]+ waits/ { print }')
assert_eq "$(echo "$timed" | sed 's/: [0-9.]*[a-z]* in / in /')" \
    "  (ended itself: no waker recorded) in 1 waits" "results()' timed-out wait"
"$GT_DECODER" summary "$tr" >"$tr.sum" || fail "gotrace summary failed"
assert_contains "$tr.sum" " in $n waits, 100% posted by producer" "the consumer's summary"
grep 'from results (sync_sem.c:' "$tr.sum" | grep -q 'in 1 waits, 100% (ended itself: no waker recorded)$' ||
    fail "summary of results()' wait: $(grep 'from results' "$tr.sum")"
! grep -q 'semaphore.*held by' "$tr.sum" || fail "summary: a semaphore is held"
check_balanced "$tr"
stack_checks_follow
bad=$(gt_trans "$tr" | awk -F'\t' -v g="$gc" '$1 == g && (($3 == "Waiting" &&
    $6 !~ /^sem_(wait|timedwait|clockwait)\|consumer$/) || ($2 == "Waiting" && $6 != "sem_post|producer"))')
[ -z "$bad" ] || fail "consumer transitions with unexpected stacks: $(echo "$bad" | head -3)"
