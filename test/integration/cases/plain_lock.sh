# plain_lock: the hooks take and release default mutexes themselves (preload/plainlock.h), with
# plain loads and stores while the program has one thread. progs/plain_lock.c hammers a mutex
# from the main thread while a second thread appears and hammers it too, made by
# pthread_create (hooked), thrd_create or a SIGEV_THREAD timer (both created inside glibc,
# unhooked), taking it by lock, trylock or timedlock; then checks glibc's view (owner TID,
# destroy's EBUSY, trylock, a condvar wait's internal relock). Checks, for each of the 9
# combinations: output "ok" untraced and traced (no increment lost: the lone mode ended before
# the second thread's first touch), exit 0, valid trace.
source "$GT_ROOT/test/integration/lib.sh"

prog=$(build_prog plain_lock)
for by in pthread c11 timer; do
    for how in lock trylock timedlock; do
        plain_run "plain-$by-$how" -- "$prog" "$by" "$how"
        assert_eq "$(grep -v '^note:' "$RUN_OUT")" ok "untraced output ($by, $how)"
        trace_run "run-$by-$how" -- "$prog" "$by" "$how"
        expect_status "plain_lock $by $how" 0
        assert_eq "$(grep -v '^note:' "$RUN_OUT")" ok "traced output ($by, $how)"
        validate "$RUN_TRACE"
    done
done
