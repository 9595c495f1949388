# names_adopted: threads the tracer did not see being created, adopted at their first hooked call
# (issue 46 item 9): C11's thrd_create (glibc's internal pthread_create) and the real
# pthread_create that a library calls through dlsym(RTLD_NEXT), as jemalloc does for its
# background thread (progs/names_adopted.c, names_adopted_lib.c). Checks: the untraced output; a
# valid trace; each thread created once and named by its start routine, worker_c11, worker_rtld,
# namer_setname, namer_prctl (not libc's __clone3 or start_thread); its creation (where it was
# first seen) shows the hook it called as the leaf, pthread_setname_np and prctl too (not the
# tracer's names_set.cold), and ends at its start routine; no stack holds libc's thread-start
# frames; no stack holds a tracer frame but the hook that is its leaf (a frame of the tracer's
# own code shows neither a source line nor a module: every frame here must show one).
# The TSan-instrumented tracer faults on a thread glibc created internally (plain_lock.sh).
[ "$GT_SANITIZER" != tsan ] || skip_case "threads created inside glibc: unknown to TSan's runtime"

lib=$CASE_DIR/libnames_adopted.so
cc -shared -fPIC -g -o "$lib" "$GT_PROGS/names_adopted_lib.c" -ldl || fail "cannot build the library"
prog=$CASE_DIR/names_adopted
cc -O1 -g -pthread -D_GNU_SOURCE -o "$prog" "$GT_PROGS/names_adopted.c" -L"$CASE_DIR" -lnames_adopted \
    -Wl,-rpath,"$CASE_DIR" || fail "cannot build names_adopted"
plain_run plain -- "$prog"
assert_eq "$(cat "$RUN_OUT")" ok "untraced output"
trace_run run -- "$prog"
expect_status names_adopted 0
assert_eq "$(cat "$RUN_OUT")" ok "traced output"
validate "$RUN_TRACE"
tr=$RUN_TRACE
stack_checks_follow

# FN LEAF: the goroutine started at FN; its creation stack is LEAF|...|FN.
for spec in "worker_c11 nanosleep|nap" "worker_rtld nanosleep|nap" \
    "namer_setname pthread_setname_np" "namer_prctl prctl"; do
    fn=${spec%% *} leaf=${spec#* }
    g=$(gids_started_at "$tr" "$fn")
    assert_eq "$(echo "$g" | grep -c .)" 1 "goroutines named $fn"
    assert_eq "$(count_trans "$tr" NotExist Runnable "$g")" 1 "creations of $fn's G$g"
    assert_eq "$(start_stack "$tr" "$g")" "$fn" "start stack of $fn's G$g"
    assert_eq "$(creator_stack "$tr" "$g")" "$leaf|$fn" "creation stack of $fn's G$g"
done

d=$CASE_DIR/run.dump
"$GT_BUILD/gotrace" dump --stacks "$tr" >"$d"
"$GT_BUILD/gotrace" summary "$tr" >"$CASE_DIR/run.summary"
for fn in worker_c11 worker_rtld; do
    assert_eq "$(grep -c "^$fn " "$CASE_DIR/run.summary" || true)" 1 "summary rows of thread $fn"
done
frames=$CASE_DIR/frames
grep -P '^\t(?!(new_)?stack:)' "$d" | sort -u >"$frames"
assert_ge "$(grep -c . "$frames")" 8 "distinct frames in the dump"
assert_eq "$(grep -cE $'^\t(start_thread|__clone3|clone3|__clone|clone)( |$)' "$frames" || true)" 0 \
    "libc's thread-start frames in stacks"
assert_eq "$(grep -cF "$GT_ROOT/preload/" "$frames" || true)" 0 "frames of the tracer's sources"
assert_eq "$(grep -cvE ' [^ ]+:[0-9]+$| \([^ ]+\)$' "$frames" || true)" 0 \
    "frames without a line or a module (the tracer's own: $(grep -vE ' [^ ]+:[0-9]+$| \([^ ]+\)$' "$frames" | tr -d '\t' | tr '\n' ',' | head -c 200))"
