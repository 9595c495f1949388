# early_ctor: another library's constructor starts a thread before the tracer's constructor
# has run (the tracer then starts from that pthread_create). Checks: same output as untraced;
# valid trace; the early thread is created once, named by its start routine `bg`, and ends;
# so does main's worker; the program's main thread is traced (it blocks in the joins), named
# main, with no creation stack. Not run
# under TSan: the instrumented tracer code would run before TSan's runtime is initialised.

[ "$GT_SANITIZER" != tsan ] ||
    skip_case "the TSan-instrumented tracer would run in libearly's constructor, before TSan's runtime is initialised"
lib=$CASE_DIR/libearly.so
cc -shared -fPIC -g -pthread -o "$lib" "$GT_PROGS/early_lib.c" || fail "cannot build libearly"
prog=$CASE_DIR/early_ctor
cc -O1 -g -pthread -o "$prog" "$GT_PROGS/early_ctor.c" -L"$CASE_DIR" -learly \
    -Wl,-rpath,"$CASE_DIR" || fail "cannot build early_ctor"
trace_run run -- "$prog"
expect_status early_ctor 0
assert_eq "$(cat "$RUN_OUT")" "ok" "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE
early=$(gids_started_at "$tr" bg)
assert_eq "$(echo "$early" | grep -c .)" 1 "creations naming the constructor's start routine bg"
assert_eq "$(count_trans "$tr" Running NotExist "$early")" 1 "ends of the early thread"
worker=$(gids_started_at "$tr" worker)
assert_eq "$(count_trans "$tr" Running NotExist "$worker")" 1 "ends of main's worker"
assert_ge "$(count_reason "$tr" "$(main_gid)" "sync: join")" 1 "main's joins that waited"
check_balanced "$tr"
# The main thread first seen in the constructor's pthread_create (issue 19): still named main,
# and its creation has no stack (not the hook that adopted it, nor the tracer's frames).
stack_checks_follow
assert_eq "$(start_stack "$tr" "$(main_gid)")" main "main thread's name"
assert_eq "$(creator_stack "$tr" "$(main_gid)")" "" "main thread's creation stack"
