# annot_cpu: GOTRACE_CPU_HZ=100 on a thread burning 1 s of CPU gives StackSample events (a
# wide range: 30..130) on that thread whose stacks name busy_loop; without the variable, none.

prog=$(build_prog annot_cpu)
trace_run run GOTRACE_CPU_HZ=100 -- "$prog"
expect_status annot_cpu 0
assert_eq "$(cat "$RUN_OUT")" "ok" "program output"
assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "gotrace: lines"
validate "$RUN_TRACE"
t=$RUN_TRACE
gid=$(gids_started_at "$t" busy)
n=$(d1_count "$t" ' StackSample ')
assert_ge "$n" 30 "StackSample events"
assert_le "$n" 130 "StackSample events"
stack_checks_follow
busy=$(awk -v g="G=$gid" '/^M=/ { in_s = ($3 == g && $4 == "StackSample") } in_s && /^\tbusy_loop @/ { n++ }
                        END { print n + 0 }' "$t.d1")
assert_ge "$busy" 30 "samples of G$gid naming busy_loop"
trace_run off -- "$prog"
validate "$RUN_TRACE"
assert_eq "$(d1_count "$RUN_TRACE" ' StackSample ')" 0 "StackSample events without GOTRACE_CPU_HZ"
