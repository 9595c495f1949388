# fork_join (issue 19, item 6): joins whose thread's exit races with the join
# (progs/fork_join.c). Every sync: join wait must be ended by the joined thread's exit, never by
# the joiner itself; a join whose thread's exit came first is no wait.
# late: main joins a thread whose traced exit is over while a thread-specific-data destructor
# still runs in it (the real join waits, after the exit): no join wait ended by nobody (before
# the fix: one, every run). fork: 4 threads hammer a mutex and malloc while main forks 40
# children at once, 10 times; each child joins 50 threads that sleep 1 ms, one after the other.
# Every child's trace validates, no join wait in it is ended by nobody (before the fix, 1-6 of
# each 400 children had one: the exit's wake-up came between the joiner's GoBlock and its
# queueing; later, 1 in about 4,000 children: a join that looked its thread up before it started
# blocked without checking, under the lock, whether it had ended since), and at least 90 % of
# the joins are waits ended by the joined thread. Under a
# sanitizer (make test-sanitize) only late runs.
# itest-timeout: 240

prog=$(build_prog fork_join)

# join_waits FILE: "W N U": sync: join waits, those ended by another goroutine's GoUnblock, and
# those ended by none (the waiter's own GoUnblock, on no goroutine).
join_waits() {
    "$GT_BUILD/gotrace" dump "$1" | awk '
        / GoBlock reason="sync: join"/ { split($4, g, "="); open[g[2]] = 1; w++ }
        / GoUnblock / {
            split($6, t, "=")
            if (open[t[2]]) {
                split($4, g, "=")
                if (g[2] != "-" && g[2] != t[2]) n++; else u++
                open[t[2]] = 0
            }
        }
        END { print w + 0, n + 0, u + 0 }'
}

trace_run late -- "$prog" late
expect_status "fork_join late" 0
if [ "$(cat "$RUN_OUT")" = unobservable ]; then
    skip_part "late: the kernel does not show a thread's system call"
else
    assert_eq "$(cat "$RUN_OUT")" ok "fork_join late output"
    validate "$RUN_TRACE"
    read -r w n u < <(join_waits "$RUN_TRACE")
    assert_eq "$u" 0 "late: join waits ended by nobody (the thread's exit came first)"
    assert_eq "$n" "$w" "late: join waits ended by the joined thread"
fi

if [ -n "$GT_SANITIZER" ]; then # as robust_fork
    skip_part "fork: forks under the $GT_SANITIZER runtime alone, untraced, hang or die now and then"
    exit 0
fi
children=0 waits=0 named=0
for round in $(seq 10); do
    dir=$CASE_DIR/fork$round
    mkdir -p "$dir"
    trace_run "fork$round" GOTRACE_OUT="$dir/t.%p.trace" -- "$prog" fork "$dir/pids" 40 50
    expect_status "fork_join fork (round $round)" 0
    assert_eq "$(cat "$RUN_OUT")" ok "fork_join fork output (round $round)"
    for f in "$dir"/t.*.trace; do validate "$f"; done # the parent's too
    while read -r _ pid; do
        read -r w n u < <(join_waits "$dir/t.$pid.trace")
        assert_eq "$u" 0 "join waits ended by nobody in child $pid's trace (round $round)"
        children=$((children + 1)) waits=$((waits + w)) named=$((named + n))
    done <"$dir/pids"
done
assert_eq "$children" 400 "children"
assert_eq "$named" "$waits" "join waits ended by the joined thread"
assert_ge "$waits" $((400 * 50 * 9 / 10)) "join waits (of 20000 joins)"
