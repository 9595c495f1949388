# robust_fork: fork, vfork, posix_spawn and system() from a program whose threads keep the
# tracer busy (progs/robust_fork.c). With GOTRACE_OUT=...%p...: same stdout/stderr/status as
# untraced; the parent's trace validates and shows the thread it starts after all children
# (vfork children that _exit or exec must not stop or corrupt it); every forked child and
# grandchild wrote its own valid trace, in which its two child_worker threads are created,
# end, and nothing of the parent's threads (hammer) appears. Then with a fixed GOTRACE_OUT
# (no %p; fork only): children write PATH.<pid>, silently (stderr as untraced). Not run under a
# sanitizer (make test-sanitize): with GCC 12's ASan or TSan runtime alone, untraced, this
# program's forks from a multi-threaded process hang or fail now and then (docs/robustness.md).
# itest-timeout: 120

case $GT_SANITIZER in
asan) skip_case "forks under the ASan runtime alone, untraced, hang now and then" ;;
tsan) skip_case "forked children under the TSan runtime alone, untraced, die now and then (dup thread)" ;;
esac
prog=$(build_prog robust_fork)
plain_run plain -- "$prog" "$CASE_DIR/plain.pids"
p_out=$RUN_OUT p_err=$RUN_ERR
expect_status "robust_fork untraced" 0
assert_eq "$(cat "$p_out")" ok "untraced output"

mkdir -p "$CASE_DIR/pp"
trace_run traced GOTRACE_OUT="$CASE_DIR/pp/t.%p.trace" GOTRACE_PERIOD_MS=50 -- "$prog" "$CASE_DIR/traced.pids"
expect_status "robust_fork traced" 0
cmp -s "$p_out" "$RUN_OUT" || fail "stdout differs: $(cat "$RUN_OUT")"
cmp -s "$p_err" "$RUN_ERR" || fail "stderr differs: $(head -c 300 "$RUN_ERR")"
parent=$(for f in "$CASE_DIR"/pp/t.*.trace; do
    if [ -n "$(gids_started_at "$f" after_children)" ]; then echo "$f"; fi
done)
assert_eq "$(echo "$parent" | grep -c .)" 1 "traces showing after_children (the parent's)"
validate "$parent"
assert_ge "$(gids_started_at "$parent" hammer | grep -c .)" 4 "hammer threads in the parent's trace"

n=0
while read -r kind pid; do
    f=$CASE_DIR/pp/t.$pid.trace
    [ -s "$f" ] || fail "$kind $pid wrote no trace"
    validate "$f"
    assert_eq "$(gids_started_at "$f" child_worker | grep -c .)" 2 "child_worker threads in $kind $pid's trace"
    for g in $(gids_started_at "$f" child_worker); do
        assert_eq "$(count_trans "$f" Running NotExist "$g")" 1 "ends of G$g in $kind $pid's trace"
    done
    assert_eq "$(gids_started_at "$f" hammer | grep -c .)" 0 "parent threads in $kind $pid's trace"
    n=$((n + 1))
done <"$CASE_DIR/traced.pids"
assert_eq "$n" 16 "children and grandchildren"
for f in "$CASE_DIR"/pp/*.trace; do validate "$f"; done # spawned /bin/true, sh: their own

plain_run plain2 -- "$prog" "$CASE_DIR/plain2.pids" fork-only
p_err=$RUN_ERR
trace_run fixed GOTRACE_OUT="$CASE_DIR/fixed.trace" -- "$prog" "$CASE_DIR/fixed.pids" fork-only
expect_status "robust_fork fork-only traced" 0
cmp -s "$p_err" "$RUN_ERR" || fail "stderr differs (fixed path): $(head -c 300 "$RUN_ERR")"
validate "$CASE_DIR/fixed.trace"
while read -r kind pid; do
    validate "$CASE_DIR/fixed.trace.$pid"
done <"$CASE_DIR/fixed.pids"
