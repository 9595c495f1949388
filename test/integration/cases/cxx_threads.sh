# cxx_threads: a C++ program using std::thread (built from progs/cxx_threads.cc). Checks:
# output unchanged; valid trace; 5 creations (4 threads + main); 4 ends besides main's; every
# creation of a worker carries a non-empty start-routine stack.

prog=$(build_prog cxx_threads)
plain_run plain -- "$prog"
want=$(cat "$RUN_OUT")
trace_run run -- "$prog"
expect_status cxx_threads 0
assert_eq "$(cat "$RUN_OUT")" "$want" "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE
main=$(main_gid)
assert_eq "$(count_trans "$tr" NotExist Runnable)" 5 "creations (4 + main)"
ends=$(($(count_trans "$tr" Running NotExist) - $(count_trans "$tr" Running NotExist "$main")))
assert_eq "$ends" 4 "ends of goroutines other than main"
unnamed=$(gt_trans "$tr" | awk -F'\t' -v m="$main" \
    '$2 == "NotExist" && $1 != m && $5 == "" { n++ } END { print n + 0 }')
assert_eq "$unnamed" 0 "thread creations without a start-routine frame"
check_balanced "$tr"
