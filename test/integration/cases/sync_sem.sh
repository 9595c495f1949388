# sync_sem: producer/consumer over two semaphores; the producer sleeps 1 ms before each of 40
# items so the consumer waits for them (progs/sync_sem.c), then the program checks results
# only the real calls give. Checks: output "ok"; valid trace; the consumer's blocks are
# "sync: semaphore" with stacks sem_{wait,timedwait,clockwait}|consumer; at least 30 of its 40
# items were waited for, and every such wait was ended by the producer's sem_post (it is the
# sole waiter: the unblock is written on the producer's M with a sem_post|producer stack);
# balanced goroutines.
source "$GT_ROOT/test/integration/lib_profiles.sh"

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
check_balanced "$tr"
stack_checks_follow
bad=$(gt_trans "$tr" | awk -F'\t' -v g="$gc" '$1 == g && (($3 == "Waiting" &&
    $6 !~ /^sem_(wait|timedwait|clockwait)\|consumer$/) || ($2 == "Waiting" && $6 != "sem_post|producer"))')
[ -z "$bad" ] || fail "consumer transitions with unexpected stacks: $(echo "$bad" | head -3)"
