# robust_valgrind: the tracer starts and traces on any x86-64 CPU and under valgrind (issue 44,
# item 5). valgrind 3.19 stops a program with SIGILL at RDTSCP on some CPUs that report it (a VM
# whose clock source is kvm-clock), and the tracer read the TSC with RDTSCP from its start-up on
# (util/clock.h): its code must hold no instruction that a CPU, valgrind or an emulator may lack
# (RDTSCP, RDPID), checked on the library itself so that the check does not depend on the CPU
# this machine has. Then threads_basic (8 threads: the flusher thread starts and looks at the
# kernel's clock source, GOTRACE_TSC=1) runs traced under valgrind: status 0, the untraced
# output, a valid trace with its 8 workers, and the clock the kernel's clock source calls for in
# the debug log (the TSC where the kernel keeps time with it: then valgrind runs the reads).
# valgrind's launcher is a shell script that execs: each image writes a trace, all valid.
# Not under a sanitizer runtime, which valgrind cannot run.

[ -z "$GT_SANITIZER" ] || skip_case "valgrind cannot run a sanitizer's runtime"

if [ "$(uname -m)" = x86_64 ] && command -v objdump >/dev/null; then
    bad=$(objdump -d --no-show-raw-insn "$GT_LIB" | grep -cwE 'rdtscp|rdpid' || true)
    assert_eq "$bad" 0 "RDTSCP or RDPID instructions in $(basename "$GT_LIB")"
else
    skip_part "instructions not checked: not x86-64, or no objdump"
fi

command -v valgrind >/dev/null || skip_case "valgrind is not installed"
prog=$(build_prog threads_basic)
plain_run plain -- "$prog"
expect_status "threads_basic untraced" 0
want=$(cat "$RUN_OUT")

trace_run vg GOTRACE_TSC=1 GOTRACE_DEBUG=1 -- valgrind -q "$prog"
expect_status "threads_basic traced under valgrind" 0
assert_eq "$(cat "$RUN_OUT")" "$want" "output under valgrind"
trace=""
for f in "$CASE_DIR"/vg*.trace; do
    validate "$f"
    [ "$(gids_started_at "$f" worker | grep -c .)" != 8 ] || trace=$f
done
[ -n "$trace" ] || fail "no trace under valgrind holds the 8 workers"

clock="clock: CLOCK_MONOTONIC (the kernel's clock source is not the TSC)"
[ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" = tsc ] &&
    clock="clock: the TSC (the kernel's clock source)"
if [ "$(uname -m)" = x86_64 ]; then
    assert_contains "$RUN_ERR" "gotrace: $clock" "the clock under valgrind"
fi
