# sync_cancel: threads cancelled inside pthread_cond_wait, sem_wait, read() and nanosleep
# (progs/sync_cancel.c). Checks: output "ok"; valid trace; each thread blocked (or entered
# the syscall) exactly once with the expected reason and stack, was back to Running before it
# ended, and ended exactly once.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_cancel)
trace_run run -- "$prog"
expect_status sync_cancel 0
assert_eq "$(cat "$RUN_OUT")" ok "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE

check() { # check FUNC STATE LEAF: FUNC's thread went Running->STATE once at LEAF, then back, then ended
    local g seq
    g=$(gids_started_at "$tr" "$1")
    ! stacks_on || assert_eq "$(leaves "$tr" "$2" "$g" | tr '\n' ' ')" "$3 " "$1's transitions to $2"
    seq=$(gid_sequence "$tr" "$g" | tr '\n' ' ')
    case "$seq" in
    *"Running->$2 "*"Running->NotExist ") ;;
    *) fail "$1 (G$g) did not end after its wait: $seq" ;;
    esac
    assert_eq "$(count_trans "$tr" Running NotExist "$g")" 1 "ends of $1"
}
check cond_waiter Waiting pthread_cond_wait
check sem_waiter Waiting sem_wait
check pipe_reader Syscall read
check sleeper Waiting nanosleep
check_balanced "$tr"
stack_checks_follow
