# keys_all: a program that creates pthread keys until glibc says EAGAIN (progs/keys_all.c),
# then waits for a thread and checks every key. The tracer takes none of the program's keys
# (issue 17: libunwind's trace cache took one, so the program got EAGAIN one key early): the
# same count, output and status as untraced, and a valid trace.
case $GT_SANITIZER in
asan | tsan) skip_case "the $GT_SANITIZER runtime creates pthread keys of its own" ;;
esac
prog=$(build_prog keys_all)
plain_run plain -- "$prog"
expect_status "keys_all untraced" 0
untraced=$(cat "$RUN_OUT")
trace_run traced -- "$prog"
expect_status "keys_all traced" 0
assert_eq "$(cat "$RUN_OUT")" "$untraced" "traced output (keys the program got)"
validate "$RUN_TRACE"
