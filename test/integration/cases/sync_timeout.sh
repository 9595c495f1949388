# sync_timeout: one thread makes five timed waits that all time out (progs/sync_timeout.c).
# Checks: output "ok" (each returned its timeout result); valid trace; the thread's blocks are
# exactly, in order, condvar (timedwait), condvar (clockwait), mutex, rwlock write, semaphore,
# each with its call's stack and each woken by the thread itself (nobody released anything).
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_timeout)
trace_run run -- "$prog"
expect_status sync_timeout 0
assert_eq "$(cat "$RUN_OUT")" ok "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE

g=$(gids_started_at "$tr" timer)
assert_eq "$(self_woken "$tr" "$g")" 5 "timer's wake-ups written by itself"
check_balanced "$tr"
stack_checks_follow
got=$(leaves "$tr" Waiting "$g" | tr '\n' ' ')
assert_eq "$got" "pthread_cond_timedwait pthread_cond_clockwait pthread_mutex_timedlock pthread_rwlock_timedwrlock sem_timedwait " \
    "timer's blocks"
