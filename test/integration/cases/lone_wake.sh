# lone_wake: a release on the program's only thread skips the wait queue (the lone mode,
# preload/util/plainlock.h) only while no other thread can be queued. progs/lone_wake.c: a thread
# created inside glibc (thrd_create, unhooked: the lone mode is still on when it starts) waits on
# a semaphore first thing, and the main thread posts it once the waiter sleeps. Checks: output
# "ok" untraced and traced, exit 0, valid trace, and the waiter's one semaphore wait ended by the
# main thread's sem_post (its adoption ended the lone mode: tr_adopt), not by itself.
source "$GT_ROOT/test/integration/lib_profiles.sh"
# The TSan-instrumented tracer faults on a thread glibc created internally (plain_lock.sh).
[ "$GT_SANITIZER" != tsan ] || skip_case "a thread created inside glibc: unknown to TSan's runtime"

prog=$(build_prog lone_wake)
plain_run plain -- "$prog"
assert_eq "$(cat "$RUN_OUT")" ok "untraced output"
for i in 1 2 3; do
    trace_run "run-$i" -- "$prog"
    expect_status lone_wake 0
    assert_eq "$(cat "$RUN_OUT")" ok "traced output"
    validate "$RUN_TRACE"
    g=$(gt_trans "$RUN_TRACE" | awk -F'\t' '$1 != 1 && $3 == "Waiting" && index($4, "sync: semaphore") { print $1; exit }')
    [ -n "$g" ] || fail "run $i: no semaphore wait of the second thread"
    assert_eq "$(blocks "$RUN_TRACE" "$g" 'sync: semaphore')" 1 "run $i: the waiter's semaphore waits"
    assert_eq "$(woken_by "$RUN_TRACE" "$g" "$(gid_m "$RUN_TRACE" 1)" 'sync: semaphore')" 1 \
        "run $i: the waiter's wait ended by the main thread's sem_post"
done
