# sync_rwlock: 3 readers and 2 writers that all start while main holds the rwlock for writing
# (30 ms), then take it 60 times each through every rdlock/wrlock variant; the program checks
# the guarded data and results only the real calls give (progs/sync_rwlock.c). Checks: output
# "ok"; valid trace; each reader's first block is "sync: rwlock read" and each writer's
# "sync: rwlock write", with stacks pthread_rwlock_*|reader or |writer; main's EDEADLK relocks
# do not block; balanced goroutines.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_rwlock)
trace_run run -- "$prog"
expect_status sync_rwlock 0
assert_eq "$(cat "$RUN_OUT")" ok "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE

for g in $(gids_started_at "$tr" reader); do
    assert_ge "$(blocks "$tr" "$g" 'sync: rwlock read')" 1 "reader G$g's read-lock blocks"
done
for g in $(gids_started_at "$tr" writer); do
    assert_ge "$(blocks "$tr" "$g" 'sync: rwlock write')" 1 "writer G$g's write-lock blocks"
done
assert_eq "$(blocks "$tr" 1 rwlock)" 0 "main's rwlock blocks (its relocks fail at once)"
check_balanced "$tr"
stack_checks_follow
bad=$(gt_trans "$tr" | awk -F'\t' '$3 == "Waiting" && index($4, "rwlock") &&
    !((index($4, "sync: rwlock read") == 1 && $6 ~ /^pthread_rwlock_(rd|timedrd|clockrd)lock\|reader$/) ||
      (index($4, "sync: rwlock write") == 1 && $6 ~ /^pthread_rwlock_(wr|timedwr|clockwr)lock\|writer$/))')
[ -z "$bad" ] || fail "rwlock blocks with unexpected reason or stack: $(echo "$bad" | head -3)"
