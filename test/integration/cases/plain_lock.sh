# plain_lock: the hooks take and release default mutexes themselves (preload/util/plainlock.h), with
# plain loads and stores while the program has one thread. progs/plain_lock.c hammers a mutex
# from the main thread while a second thread appears and hammers it too, made by
# pthread_create (hooked), thrd_create or a SIGEV_THREAD timer (both created inside glibc,
# unhooked), taking it by lock, trylock or timedlock; then checks glibc's view (owner TID,
# destroy's EBUSY, trylock, a condvar wait's internal relock). Checks, for each of the 9
# combinations: output "ok" untraced and traced (no increment lost: the lone mode ended before
# the second thread's first touch), exit 0, valid trace; and that the lone mode was on at the
# start (GOTRACE_DEBUG says so), and off under a sanitizer, whose runtime intercepts the lock.
source "$GT_ROOT/test/integration/lib.sh"

prog=$(build_prog plain_lock)
ways=(pthread c11 timer)
extra=()
if [ "$GT_SANITIZER" = tsan ]; then
    # TSan reports the program's deliberate destroy of a held mutex; and it knows only threads
    # it saw created: the instrumented tracer faults in __tsan_func_entry on a thread that
    # glibc created internally (thrd_create, SIGEV_THREAD). The path is off under TSan anyway
    # (its interceptors are the real lock).
    extra=(no-destroy)
    ways=(pthread)
    skip_part "threads created inside glibc (c11, timer): unknown to TSan's runtime"
fi
for by in "${ways[@]}"; do
    for how in lock trylock timedlock; do
        plain_run "plain-$by-$how" -- "$prog" "$by" "$how" "${extra[@]}"
        assert_eq "$(grep -v '^note:' "$RUN_OUT")" ok "untraced output ($by, $how)"
        trace_run "run-$by-$how" -- "$prog" "$by" "$how" "${extra[@]}"
        expect_status "plain_lock $by $how" 0
        assert_eq "$(grep -v '^note:' "$RUN_OUT")" ok "traced output ($by, $how)"
        validate "$RUN_TRACE"
    done
done

trace_run lone-debug GOTRACE_DEBUG=1 -- "$prog" pthread lock "${extra[@]}"
expect_status "plain_lock (debug)" 0
validate "$RUN_TRACE"
if [ -n "$GT_SANITIZER" ]; then
    assert_eq "$(grep -c 'mutexes: the program.s only thread' "$RUN_ERR" || true)" 0 \
        "lone mode under $GT_SANITIZER (its runtime's interceptors are the real lock)"
else
    assert_contains "$RUN_ERR" "mutexes: the program's only thread takes default mutexes with plain stores" \
        "the lone mode at the start of a single-threaded program"
fi
