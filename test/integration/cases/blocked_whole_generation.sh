# blocked_whole_generation: with GOTRACE_PERIOD_MS=100 main joins a thread that works ~1 s, so
# main stays blocked across many generations. Checks: valid trace; >= 5 generations; main has
# exactly one Running->Waiting (reason containing sync) and one Waiting->Runnable; main's state
# is restated as Waiting in >= 5 generations (status events Waiting->Waiting or
# Undetermined->Waiting, which the counting helpers otherwise ignore).

prog=$(build_prog busy_join)
trace_run run GOTRACE_PERIOD_MS=100 -- "$prog" 1000
expect_status "busy_join 1000" 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
main=$(main_gid)

assert_ge "$(generations "$tr")" 5 "generations"
assert_eq "$(count_trans "$tr" Running Waiting "$main")" 1 "main's blocks"
assert_eq "$(count_reason "$tr" "$main" sync)" 1 "main's blocks with a reason containing sync"
assert_eq "$(count_trans "$tr" Waiting Runnable "$main")" 1 "main's wake-ups"
transitions "$tr"
statuses=$(awk -F'\t' -v g="$main" '$1 == g && $3 == "Waiting" && ($2 == "Waiting" || $2 == "Undetermined")' \
    "$tr.trans" | wc -l)
assert_ge "$statuses" 5 "generations restating main as Waiting"
check_balanced "$tr"
