# stacks_off: GOTRACE_STACKS=0. Valid trace; no stack frames anywhere except the one-frame
# start-routine stacks of creations, which still name worker for the 8 workers; no stack in
# the stack tables has more than one frame.

prog=$(build_prog threads_basic)
trace_run run GOTRACE_STACKS=0 -- "$prog"
expect_status threads_basic 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
assert_eq "$(stack_frames_outside_creations "$tr")" 0 "stack frames outside creations' start stacks"
assert_eq "$(gids_started_at "$tr" worker | grep -c .)" 8 "creations naming start routine worker"
assert_le "$(max_stack_depth "$tr")" 1 "largest stack in the tables"
for g in $(gids_started_at "$tr" worker); do
    assert_eq "$(creator_stack "$tr" "$g")" "" "creator stack of G$g"
done
