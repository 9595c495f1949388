# fork_small_stack: a thread created with PTHREAD_STACK_MIN (16 KiB) forks three times
# (progs/fork_small_stack.c); each child takes a mutex and exits. The tracer's fork handlers run
# on that thread's stack in parent and child: they must fit (issue: three 4 KiB path buffers on
# the child's stack killed it with SIGSEGV). Same output and status as untraced; the parent's
# trace validates and shows the three small-stack threads.
case $GT_SANITIZER in
asan | tsan) skip_case "a sanitizer's runtime needs more than PTHREAD_STACK_MIN of its own" ;;
esac
prog=$(build_prog fork_small_stack)
plain_run plain -- "$prog"
p_out=$RUN_OUT
expect_status "fork_small_stack untraced" 0
assert_eq "$(cat "$p_out")" ok "untraced output"

mkdir -p "$CASE_DIR/t"
trace_run traced GOTRACE_OUT="$CASE_DIR/t/t.%p.trace" -- "$prog"
expect_status "fork_small_stack traced" 0
cmp -s "$p_out" "$RUN_OUT" || fail "stdout differs: $(cat "$RUN_OUT")"
n=0
for f in "$CASE_DIR"/t/t.*.trace; do
    validate "$f"
    if [ "$(gids_started_at "$f" small | grep -c .)" = 3 ]; then n=$((n + 1)); fi
done
assert_eq "$n" 1 "traces showing the three small-stack threads (the parent's)"
