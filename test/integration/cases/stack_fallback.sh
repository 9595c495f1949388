# stack_fallback: stacks through a frame without unwind information (progs/stack_fallback.c:
# nocfi_call, asm with a frame pointer and no CFI), which the tracer's walker cannot walk, so
# it falls back to libunwind; libunwind's first use in the process creates its pthread key
# (not at start-up any more), which must take the highest free number. Checks: output "keys
# 0 1 2" as untraced (the program's keys, created before and after that first use, keep their
# numbers); valid trace; the sleeps' stacks go on past nocfi_call to sleeper, which only
# libunwind's walk finds, on main's thread and on the second thread.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog stack_fallback)
plain_run plain -- "$prog"
assert_eq "$(cat "$RUN_OUT")" "keys 0 1 2" "untraced output"
trace_run run -- "$prog"
expect_status stack_fallback 0
assert_eq "$(cat "$RUN_OUT")" "keys 0 1 2" "traced output: the program's pthread keys"
validate "$RUN_TRACE"
tr=$RUN_TRACE
if stacks_on; then
    assert_eq "$(gt_trans "$tr" | awk -F'\t' '$3 == "Waiting" && $4 == "sleep" &&
        $6 ~ /^nanosleep\|nap\|nocfi_call\|sleeper\|/' | grep -c .)" 6 \
        "sleep stacks walked past nocfi_call"
else
    skip_part "stack checks: GOTRACE_STACKS=0"
fi
