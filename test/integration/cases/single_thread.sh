# single_thread: a program with one thread keeps it (issue 17): the tracer starts no thread of
# its own until the program starts one or its first generation is due at a safe moment, so
# glibc runs it single-threaded as untraced (progs/single_thread.c prints
# __libc_single_threaded and the process's thread count: the same traced). Its events are
# written at its end (valid trace, its waits and system calls in it); when it dies of SIGSEGV a
# child forked without fork handlers writes them (valid, no live file left, no recover needed);
# one that stays busy gets the flusher thread once a generation is due (several generations);
# one that starts a thread gets it then (the worker's events in the trace). Its forked child
# keeps one thread too (it started the flusher thread when the tracer adopted its thread anew:
# 0.3 ms a fork), and writes its own valid trace with its sleeps.

source "$GT_ROOT/test/integration/lib_profiles.sh"
ulimit -c 0 # the crash leaves no core file
prog=$(build_prog single_thread)
plain_run plain -- "$prog" report
expect_status "report untraced" 0
assert_eq "$(cat "$RUN_OUT")" "single-threaded 1, threads 1" "untraced report"
trace_run traced -- "$prog" report
expect_status "report traced" 0
assert_eq "$(cat "$RUN_OUT")" "single-threaded 1, threads 1" "traced report"
validate "$RUN_TRACE"
assert_eq "$(blocks "$RUN_TRACE" 1 sleep)" 20 "main's sleeps"

plain_run plainfork -- "$prog" fork
expect_status "fork untraced" 0
want=$(cat "$RUN_OUT") # a sanitizer runtime starts a thread of its own in the child
[ -n "$GT_SANITIZER" ] ||
    assert_eq "$want" $'child: single-threaded 1, threads 1\nsingle-threaded 1, threads 1' \
        "untraced fork report"
trace_run fork -- "$prog" fork
expect_status "fork traced" 0
assert_eq "$(cat "$RUN_OUT")" "$want" "traced fork report"
validate "$RUN_TRACE"
child=$(ls "$RUN_TRACE".* 2>/dev/null | head -n1)
[ -n "$child" ] || fail "no trace of the forked child"
validate "$child"
gc=$("$GT_BUILD/gotrace" summary "$child" | awk '$1 == "main" { print $2 }')
assert_eq "$(echo "$gc" | grep -c .)" 1 "the forked child's main thread"
assert_eq "$(blocks "$child" "$gc" sleep)" 20 "the forked child's sleeps"

trace_run crash -- "$prog" crash
assert_eq "$RUN_STATUS" 139 "status of the crash (SIGSEGV)"
validate "$RUN_TRACE"
assert_eq "$(blocks "$RUN_TRACE" 1 sleep)" 20 "main's sleeps before the crash"
left=$(live_files_of "$RUN_TRACE")
[ -z "$left" ] || fail "a live file is left after the crash's last write: $left"

trace_run busy GOTRACE_PERIOD_MS=100 -- "$prog" busy 1500
expect_status "busy traced" 0
validate "$RUN_TRACE"
assert_ge "$(generations "$RUN_TRACE")" 3 "generations of a busy single-threaded program"

trace_run thread -- "$prog" thread
expect_status "thread traced" 0
assert_eq "$(cat "$RUN_OUT")" joined "output after a thread"
validate "$RUN_TRACE"
gw=$(gids_started_at "$RUN_TRACE" worker)
assert_eq "$(echo "$gw" | grep -c .)" 1 "worker threads in the trace"
assert_eq "$(blocks "$RUN_TRACE" "$gw" sleep)" 20 "the worker's sleeps"
