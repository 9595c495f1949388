# stack_fallback: stacks through a frame without unwind information (progs/stack_fallback.c:
# nocfi_call, asm with a frame pointer and no CFI), which the tracer's walker cannot walk, so
# it falls back to libunwind (step by step: unw_backtrace's trace cache would take a pthread
# key). Checks: output "keys 0 1 2 taken none" as untraced: the program's keys, created before
# and after the fallbacks, keep their numbers, and the tracer takes none of the program's keys
# (issue 17); not under a sanitizer, whose runtime creates keys of its own; valid trace;
# the sleeps' stacks go on past nocfi_call to sleeper, which only libunwind's walk finds, on
# main's thread and on the second thread.
source "$GT_ROOT/test/integration/lib_profiles.sh"
[ "$GT_SANITIZER" != tsan ] || skip_case "libunwind's trace-cache destructor locks a mutex at the" \
    "second thread's exit, after TSan's runtime has finished that thread: TSan faults in its" \
    "trylock interceptor (gdb: __tsan::MutexPostLock from __nptl_deallocate_tsd)"

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
