# stack_fallback: stacks through a frame without unwind information (progs/stack_fallback.c:
# nocfi_call, asm with a frame pointer and no CFI). The tracer's walker steps over it by its
# frame pointer (as libunwind did for it before 2026-11-28, when it was the fallback here, step by
# step: unw_backtrace's trace cache would take a pthread key). Checks: output "keys 0 1 2 taken
# none" as untraced: the program's keys, created before and after the sleeps, keep their
# numbers, and the tracer takes none of the program's keys (issue 17); not under a sanitizer,
# whose runtime creates keys of its own; valid trace; the sleeps' stacks go on past nocfi_call
# to sleeper, on main's thread and on the second thread; and the same run under a seccomp filter
# that kills at process_vm_readv. The fallback itself: stack_unwinder.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog stack_fallback)
plain_run plain -- "$prog"
untraced=$(tr '\n' ' ' <"$RUN_OUT")
trace_run run -- "$prog"
expect_status stack_fallback 0
if [ -n "$GT_SANITIZER" ]; then
    skip_part "key numbers: the $GT_SANITIZER runtime creates pthread keys of its own"
else
    assert_eq "$untraced" "keys 0 1 2 taken none " "untraced output"
    assert_eq "$(tr '\n' ' ' <"$RUN_OUT")" "keys 0 1 2 taken none " \
        "traced output: the program's pthread keys, none taken by the tracer"
fi
validate "$RUN_TRACE"
tr=$RUN_TRACE
if stacks_on; then
    assert_eq "$(gt_trans "$tr" | awk -F'\t' '$3 == "Waiting" && $4 == "sleep" &&
        $6 ~ /^nanosleep\|nap\|nocfi_call\|sleeper\|/' | grep -c .)" 6 \
        "sleep stacks walked past nocfi_call"
else
    skip_part "stack checks: GOTRACE_STACKS=0"
fi

# Under a seccomp filter that kills the process at a process_vm_readv (the walker's read of a
# frame without CFI): the tracer sees the filter and does not make that call; the process ends
# as untraced, its sleeps' stacks reach nocfi_call at least (libunwind, loaded by the flusher,
# may take them further).
plain_run plain_seccomp -- "$prog" seccomp
untraced=$(tr '\n' ' ' <"$RUN_OUT")
trace_run seccomp -- "$prog" seccomp
expect_status seccomp 0
assert_eq "$(tr '\n' ' ' <"$RUN_OUT")" "$untraced" "traced output under the filter"
validate "$RUN_TRACE"
if stacks_on; then
    assert_eq "$(gt_trans "$RUN_TRACE" | awk -F'\t' '$3 == "Waiting" && $4 == "sleep" &&
        $6 ~ /^nanosleep\|nap\|nocfi_call/' | grep -c .)" 6 "sleep stacks under the filter"
fi
