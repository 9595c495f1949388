# annot_example: examples/annotations.c built with plain `cc` (no gotrace library) runs
# untraced with the same output and nothing from the tracer, and traced shows its 41 tasks,
# 120 regions, 41 logs, thread names and (GOTRACE_CPU_HZ=100) CPU samples in compute.

src=$GT_ROOT/examples/annotations.c
bin=$GT_BIN/annotations_plain
cc -O1 -g -pthread -o "$bin" "$src" -I"$GT_ROOT/include" 2>"$CASE_DIR/build.log" ||
    fail "cannot build the example with plain cc: $(head -c 300 "$CASE_DIR/build.log")"
assert_true "the example has no gotrace library dependency" \
    sh -c "! ldd '$bin' | grep -q gotrace"
plain_run plain -- "$bin"
expect_status "untraced example" 0
want=$(cat "$RUN_OUT")
assert_contains "$RUN_OUT" "requests=40" "untraced output"
assert_eq "$(wc -c <"$RUN_ERR")" 0 "untraced stderr bytes"
trace_run traced GOTRACE_CPU_HZ=100 -- "$bin"
expect_status "traced example" 0
assert_eq "$(cat "$RUN_OUT")" "$want" "traced output"
assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "gotrace: lines"
validate "$RUN_TRACE"
t=$RUN_TRACE
assert_eq "$(d1_count "$t" ' TaskBegin ')" 41 "TaskBegin events"
assert_eq "$(d1_count "$t" ' TaskEnd ')" 41 "TaskEnd events"
assert_eq "$(d1_count "$t" ' RegionBegin ')" 120 "RegionBegin events"
assert_eq "$(d1_count "$t" ' RegionEnd ')" 120 "RegionEnd events"
assert_eq "$(d1_count "$t" ' Log .*Category="result"')" 40 "result logs"
for n in worker-0 worker-1 janitor; do
    assert_ge "$(d1_count "$t" " Label .*Label=\"$n\" Resource=Goroutine")" 1 "label $n"
done
stack_checks_follow
assert_ge "$(awk '/^M=/ { in_s = ($4 == "StackSample") } in_s && /^\tcompute @/ { n++ }
                END { print n + 0 }' "$t.d1")" 10 "samples in compute"
