# sync_barrier: 4 threads meet at a barrier 20 times (progs/sync_barrier.c). Checks: output
# "serial 20"; valid trace; "sync: barrier" blocks: exactly 60 (3 per round: the thread that
# completes a round does not wait), every one ended by another thread (the one completing the
# round wakes the others: one locked step per arrival decides, however they race); stacks
# pthread_barrier_wait|member; balanced.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_barrier)
trace_run run -- "$prog"
expect_status sync_barrier 0
assert_eq "$(cat "$RUN_OUT")" "serial 20" "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE

total=0
others=0
for g in $(gids_started_at "$tr" member); do
    b=$(blocks "$tr" "$g" 'sync: barrier')
    total=$((total + b))
    others=$((others + b - $(self_woken "$tr" "$g")))
done
assert_eq "$total" 60 "barrier blocks"
assert_eq "$others" "$total" "barrier waits ended by the round's last thread"
stack_checks_follow
bad=$(gt_trans "$tr" | awk -F'\t' '$3 == "Waiting" && index($4, "barrier") && $6 != "pthread_barrier_wait|member"')
[ -z "$bad" ] || fail "barrier blocks with unexpected stacks: $(echo "$bad" | head -3)"
check_balanced "$tr"
