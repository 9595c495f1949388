# sync_sleep: main sleeps 20 ms four ways, then makes three sleeps that cannot wait and one
# malformed one (progs/sync_sleep.c). Checks: output "ok"; valid trace; main's blocks are
# exactly usleep, nanosleep, clock_nanosleep, clock_nanosleep (the zero and malformed ones emit
# nothing), all with reason "sleep" and woken by main itself.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_sleep)
trace_run run -- "$prog"
expect_status sync_sleep 0
assert_eq "$(cat "$RUN_OUT")" ok "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE
assert_eq "$(blocks "$tr" 1 sleep)" 4 "main's blocks with reason sleep"
assert_eq "$(self_woken "$tr" 1)" 4 "main's wake-ups written by itself"
check_balanced "$tr"
stack_checks_follow
assert_eq "$(leaves "$tr" Waiting 1 | tr '\n' ' ')" "usleep nanosleep clock_nanosleep clock_nanosleep " \
    "main's blocks"
