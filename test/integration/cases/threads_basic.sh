# threads_basic: 8 threads created (through spawn_workers) and joined. Checks: valid trace;
# exactly 9 creations (8 workers + main's own); each worker goroutine is created once, started,
# and ends exactly once; each worker's creation names its start routine `worker` and its
# creator stack holds pthread_create..., spawn_workers and main; main (G1) is created and runs;
# blocks and wake-ups balance; output unchanged.

prog=$(build_prog threads_basic)
trace_run run -- "$prog"
expect_status threads_basic 0
assert_eq "$(cat "$RUN_OUT")" "sum=2800" "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE

assert_eq "$(count_trans "$tr" NotExist Runnable)" 9 "creations (8 workers + main)"
workers=$(gids_started_at "$tr" worker)
assert_eq "$(echo "$workers" | grep -c .)" 8 "creations naming start routine worker"
for g in $workers; do
    assert_eq "$(count_trans "$tr" NotExist Runnable "$g")" 1 "creations of worker G$g"
    assert_ge "$(count_trans "$tr" Runnable Running "$g")" 1 "starts of worker G$g"
    assert_eq "$(count_trans "$tr" Running NotExist "$g")" 1 "ends of worker G$g"
    assert_eq "$(start_stack "$tr" "$g")" worker "start stack of G$g"
    stacks_on || continue
    cs="|$(creator_stack "$tr" "$g")|"
    case "$cs" in *"|pthread_create"*) ;; *) fail "creator stack of G$g lacks pthread_create: $cs" ;; esac
    case "$cs" in *"|spawn_workers|"*) ;; *) fail "creator stack of G$g lacks spawn_workers: $cs" ;; esac
    case "$cs" in *"|main|"*) ;; *) fail "creator stack of G$g lacks main: $cs" ;; esac
done
assert_eq "$(count_trans "$tr" Running NotExist)" \
    "$(($(count_trans "$tr" Running NotExist 1) + 8))" "ends of goroutines other than main"

main=$(main_gid)
assert_eq "$(count_trans "$tr" NotExist Runnable "$main")" 1 "main's own creation"
assert_ge "$(count_trans "$tr" Runnable Running "$main")" 1 "main's starts"
check_balanced "$tr"
stack_checks_follow
