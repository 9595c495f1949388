# join_blocks: main joins a thread that computes for ~200 ms, so the join waits. Checks: valid
# trace; main has >= 1 Running->Waiting whose reason contains "sync", each followed (in main's
# own transitions) by Waiting->Runnable and Runnable->Running; the wake-up carries a stack; the
# child ends exactly once.

prog=$(build_prog join_blocks)
trace_run run -- "$prog"
expect_status join_blocks 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
main=$(main_gid)

waits=$(count_trans "$tr" Running Waiting "$main")
assert_ge "$(count_reason "$tr" "$main" sync)" 1 "main's blocks with a reason containing sync"
assert_eq "$(count_trans "$tr" Waiting Runnable "$main")" "$waits" "main's wake-ups vs blocks"
assert_ge "$(count_trans "$tr" Runnable Running "$main")" "$((waits + 1))" \
    "main's starts (first start + one per wake-up)"
seq=$(gid_sequence "$tr" "$main" | tr '\n' ' ')
case " $seq" in
*" Running->Waiting Waiting->Runnable Runnable->Running "*) ;;
*) fail "main's transitions lack block, wake-up, restart in order: $seq" ;;
esac

child=$(gids_started_at "$tr" slow_worker)
assert_eq "$(echo "$child" | grep -c .)" 1 "goroutines started at slow_worker"
assert_eq "$(count_trans "$tr" Running NotExist "$child")" 1 "ends of the child"
check_balanced "$tr"
stack_checks_follow
nostack=$(gt_trans "$tr" | awk -F'\t' -v g="$main" \
    '$1 == g && $2 == "Waiting" && $3 == "Runnable" && $6 == "" { n++ } END { print n + 0 }')
assert_eq "$nostack" 0 "main's wake-ups without a stack"
