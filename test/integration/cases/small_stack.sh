# small_stack: the tracer's hooks run on the program's stack, so they must fit in small ones
# (progs/stack_use.c: a worker thread makes hooked calls of every kind: a contended mutex, a
# condvar, rwlock, semaphore, sleeps, poll, pipe I/O, a thread created and joined, a fork whose
# child takes a mutex). At PTHREAD_STACK_MIN (16 KiB) the traced program runs as untraced
# (issue 17: the fork child's three 4 KiB path buffers killed it). On a painted stack, the
# deepest byte the traced worker touches is at most 4 KiB deeper than untraced (docs/robustness.md
# states the figure).
case $GT_SANITIZER in
asan | tsan) skip_case "a sanitizer's runtime needs more stack of its own" ;;
esac
prog=$(build_prog stack_use)
plain_run plain-min -- "$prog" MIN
expect_status "stack_use MIN untraced" 0
trace_run traced-min -- "$prog" MIN
expect_status "stack_use MIN traced" 0
assert_eq "$(cat "$RUN_OUT")" ok "traced output at PTHREAD_STACK_MIN"
validate "$RUN_TRACE"

plain_run plain -- "$prog"
untraced=$(cat "$RUN_OUT")
trace_run traced -- "$prog"
traced=$(cat "$RUN_OUT")
validate "$RUN_TRACE"
echo "stack used by the worker: untraced $untraced bytes, traced $traced bytes"
assert_ge "$((untraced + 4096))" "$traced" "traced stack use (bytes) within untraced + 4 KiB"
