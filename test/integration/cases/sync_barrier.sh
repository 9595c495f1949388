# sync_barrier: 4 threads meet at a barrier 20 times (progs/sync_barrier.c). Checks: output
# "serial 20"; valid trace; "sync: barrier" blocks: exactly 60 (3 per round: the thread that
# completes a round does not wait), every one ended by another thread (the one completing the
# round wakes the others: one locked step per arrival decides, however they race); stacks
# pthread_barrier_wait|member; balanced. `gotrace locks --holders`: nothing holds the barrier,
# each member that arrived last in the rounds it did not wait in ended the 3 waits of each
# (3 x (20 - its blocks) waits as "member (G<id>) arrived last"), none ended itself; summary
# and contention say so too, never "held by".
source "$GT_ROOT/test/integration/lib_profiles.sh"
source "$GT_ROOT/test/integration/lib_locks.sh"

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
for g in $(gids_started_at "$tr" member); do
    b=$(blocks "$tr" "$g" 'sync: barrier')
    assert_eq "$(ender_waits "$tr" "barrier bar" "member (G$g) arrived last")" $((3 * (20 - b))) \
        "waits ended by member G$g arriving last (it completed $((20 - b)) rounds)"
done
[ -z "$(enders "$tr" "barrier bar" | grep -v '^member (G[0-9]*) arrived last$')" ] ||
    fail "barrier bar's waits ended otherwise: $(enders "$tr" "barrier bar" | tr '\n' ';')"
"$GT_DECODER" summary "$tr" >"$tr.sum" && "$GT_DECODER" contention "$tr" >"$tr.con" ||
    fail "gotrace summary/contention failed"
! grep -q 'barrier bar .*held by' "$tr.sum" || fail "summary: the barrier is held: $(grep 'barrier bar' "$tr.sum")"
grep 'barrier bar ' "$tr.sum" | grep -vq ', [0-9]*% member arrived last$' &&
    fail "summary: a barrier line names no last arrival: $(grep 'barrier bar' "$tr.sum")"
grep -A4 '^#[0-9]*  sync: barrier bar ' "$tr.con" | grep -q '^  arrived last: member (G' ||
    fail "contention: no arrived-last line: $(grep -A4 'sync: barrier bar' "$tr.con")"
! grep -A4 '^#[0-9]*  sync: barrier bar ' "$tr.con" | grep -q 'held by' ||
    fail "contention: the barrier is held"
stack_checks_follow
bad=$(gt_trans "$tr" | awk -F'\t' '$3 == "Waiting" && index($4, "barrier") && $6 != "pthread_barrier_wait|member"')
[ -z "$bad" ] || fail "barrier blocks with unexpected stacks: $(echo "$bad" | head -3)"
check_balanced "$tr"
