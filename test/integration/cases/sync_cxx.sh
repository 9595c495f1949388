# sync_cxx: a C++ program using std::mutex, std::shared_mutex, std::condition_variable,
# std::this_thread::sleep_for and std::thread (progs/sync_cxx.cc). Checks: output "ok", the
# same untraced; valid trace; the 3 lockers each block once on "sync: mutex" (main holds it
# 20 ms), the 2 shared readers each once on "sync: rwlock read" (main holds it exclusively),
# the ping-pong players block on "sync: condvar" 98 to 100 times together (a player that finds
# the turn already its own does not wait), each woken by the other player's notify_one
# (libstdc++ tail-calls pthread_cond_signal: the stack is pthread_cond_signal|player); main
# sleeps twice ("sleep") and joins; balanced goroutines.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_cxx)
plain_run plain -- "$prog"
assert_eq "$(cat "$RUN_OUT")" ok "untraced output"
trace_run run -- "$prog"
expect_status sync_cxx 0
assert_eq "$(cat "$RUN_OUT")" ok "traced output"
validate "$RUN_TRACE"
tr=$RUN_TRACE

gt_trans "$tr" >"$tr.sel"
reason_count() { awk -F'\t' -v r="$1" '$2 == "Running" && $3 == "Waiting" && index($4, r) == 1' "$tr.sel" | grep -c . || true; }
# Thread entry points are named by std::thread's state object; count by reason and stack.
stack_checks_follow
lockers=$(awk -F'\t' '$3 == "Waiting" && index($4, "sync: mutex") == 1 && index($6, "locker")' "$tr.sel" | grep -c . || true)
assert_eq "$lockers" 3 "lockers' mutex blocks"
readers=$(awk -F'\t' '$3 == "Waiting" && index($4, "sync: rwlock read") == 1 && index($6, "shared_reader")' "$tr.sel" | grep -c . || true)
assert_eq "$readers" 2 "shared readers' rwlock blocks"
cond=$(reason_count "sync: condvar")
assert_ge "$cond" 98 "condvar blocks"
assert_le "$cond" 100 "condvar blocks"
other=$(awk -F'\t' '$2 == "Waiting" && $3 == "Runnable" && index($6, "pthread_cond_signal|player")' "$tr.sel" | grep -c . || true)
assert_eq "$other" "$cond" "condvar waits ended by the other player (notify_one)"
assert_eq "$(blocks "$tr" 1 sleep)" 2 "main's sleeps"
assert_ge "$(blocks "$tr" 1 'sync: join')" 1 "main's joins that waited"
check_balanced "$tr"
