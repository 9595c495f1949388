# hangs_verdicts: `gotrace hangs` and `critical-path` on real programs that hang, or seem to,
# with known answers (issue 46 items 1, 2, 5, 6; progs/hangs.c, progs/locks.c abba). Each hung
# program runs with a generation every 50 ms and is killed once its trace holds 6 (its hang is
# then > 200 ms old, past the 10 ms a wait must last to be judged):
#   abba         the cycle of holders, main behind it; the critical path leads into the cycle
#                (take_b_then_a's wait, noted "deadlock: held by take_a_then_b ...").
#   sem_pair     two semaphore waits nobody else can post, main joining: "no thread can make
#                progress", naming the three waits; the critical path leads into ping's wait.
#   lost_wakeup  a condvar waited on after its only signal, the signaller exited: the same.
#   exit_holding the holder of quit_lock exited holding it: blocked_on_quit can never go on.
#   read_holder  (runs to its end) at a time T between io_waiter's block and its wake-up, the
#                holder of io_lock is reader, blocked in read() (a wait on the pipe), not
#                "released since"; the critical path of io_waiter up to T is reader's wait.
#   sleepy       the negative: a consumer waits on a condvar that a sleeping producer signals
#                1 s later; killed mid-sleep, and at 500 ms of a whole run: no deadlock, the
#                producer is named as the thread that can still move.
# itest-timeout: 150
source "$GT_ROOT/test/integration/lib_profiles.sh"
source "$GT_ROOT/test/integration/lib_locks.sh"

prog=$(build_prog hangs)
locks=$(build_prog locks)

# hung TAG PROG MODE [N]: runs PROG MODE traced until its trace holds N generations (default 6),
# kills it, and writes `hangs` and `critical-path` of the trace to TAG.hangs and TAG.cp.
hung() {
    local tag=$1 p=$2 mode=$3 n=${4:-6}
    trace_start_bg "$tag" GOTRACE_PERIOD_MS=50 -- "$p" "$mode"
    wait_for_generations "$RUN_TRACE" "$RUN_PID" "$n"
    kill -KILL "$RUN_PID"
    wait "$RUN_PID" 2>/dev/null || true
    validate "$RUN_TRACE"
    "$GT_DECODER" hangs "$RUN_TRACE" >"$CASE_DIR/$tag.hangs"
    "$GT_DECODER" critical-path "$RUN_TRACE" >"$CASE_DIR/$tag.cp"
}

# has FILE LINE: FILE holds LINE, whole (fixed string).
has() { grep -qxF -- "$2" "$1" || fail "$(basename "$1") lacks the line '$2': $(head -c 600 "$1")"; }

hung abba "$locks" abba
hung sem_pair "$prog" sem_pair
hung lost_wakeup "$prog" lost_wakeup
hung exit_holding "$prog" exit_holding
hung sleepy_killed "$prog" sleepy 4
trace_run read_holder GOTRACE_PIPES=1 -- "$prog" read_holder
expect_status "hangs read_holder" 0
trace_run sleepy -- "$prog" sleepy
expect_status "hangs sleepy" 0
stack_checks_follow # the waiting calls (untimed or not) are read from the stacks

# abba
f=$CASE_DIR/abba.hangs
has "$f" "deadlock: take_a_then_b (G2) waiting on mutex lock_b held by take_b_then_a (G3) waiting on mutex lock_a held by take_a_then_b (G2)"
has "$f" "  behind it: main (G1) waiting on join take_a_then_b (G2)"
has "$f" "1 deadlock"
assert_ge "$(share_pct "$CASE_DIR/abba.cp" "take_b_then_a (G3)")" 70 "abba: critical path on take_b_then_a (%)"
grep -qF "deadlock: held by take_a_then_b (G2), which waits for take_b_then_a (G3)" "$CASE_DIR/abba.cp" ||
    fail "abba: the critical path does not stop at the cycle: $(head -c 600 "$CASE_DIR/abba.cp")"

# sem_pair, lost_wakeup: nothing can move, without an owner cycle
f=$CASE_DIR/sem_pair.hangs
has "$f" "deadlock: no thread can make progress: main (G1) waiting on join ping (G2); ping (G2) waiting on semaphore sem_ping; pong (G3) waiting on semaphore sem_pong"
has "$f" "1 deadlock"
assert_ge "$(share_pct "$CASE_DIR/sem_pair.cp" "ping (G2)")" 70 "sem_pair: critical path on ping (%)"
f=$CASE_DIR/lost_wakeup.hangs
has "$f" "deadlock: no thread can make progress: main (G1) waiting on join sleeper (G3); sleeper (G3) waiting on condvar wake_cv"
has "$f" "1 deadlock"

# exit_holding
f=$CASE_DIR/exit_holding.hangs
grep -qx "deadlock: blocked_on_quit (G3) waiting on mutex quit_lock held by quitter (G2), which exited at [0-9.]*[mu]s holding it" "$f" ||
    fail "exit_holding: no verdict on the exited holder: $(head -c 600 "$f")"
has "$f" "  behind it: main (G1) waiting on join blocked_on_quit (G3)"
grep -qx "  held by quitter (G2), exited at [0-9.]*[mu]s holding it (deadlock)" "$f" ||
    fail "exit_holding: the holder line does not say it exited: $(head -c 600 "$f")"
has "$f" "1 deadlock"

# read_holder: T halfway through io_waiter's wait (times from the trace's first event, as --at)
"$GT_DECODER" dump "$CASE_DIR/read_holder.trace" >"$CASE_DIR/read_holder.dump"
at=$(awk 'NR == 1 { t0 = $1 }
    /GoBlock reason="sync: mutex io_lock"/ { b = $1; g = $4; sub(/^G=/, "", g) }
    b && $5 == "GoUnblock" && $6 == "g=" g { printf "%d\n", (b + $1) / 2 - t0; exit }' \
    "$CASE_DIR/read_holder.dump")
[ -n "$at" ] || fail "read_holder: no wait of io_waiter on io_lock in the dump"
"$GT_DECODER" hangs --at "$at" "$CASE_DIR/read_holder.trace" >"$CASE_DIR/read_holder.hangs"
f=$CASE_DIR/read_holder.hangs
grep -A4 '^io_waiter (G3)  waiting on mutex io_lock' "$f" >"$f.sel" ||
    fail "read_holder: io_waiter is not waiting at $at: $(head -c 600 "$f")"
sed -n 4p "$f.sel" | grep -qx "  held by reader (G2), waiting (pipe: read pipe:\[[0-9]*\])" ||
    fail "read_holder: the holder is not reader in read(): $(cat "$f.sel")"
sed -n 5p "$f.sel" | grep -qx "      read (libc.so.6)" ||
    fail "read_holder: the holder's stack is not read's: $(cat "$f.sel")"
! grep -q "released" "$f" || fail "read_holder: a release after T believed: $(head -c 600 "$f")"
has "$f" "0 deadlocks"
"$GT_DECODER" critical-path --thread io_waiter --to "$at" "$CASE_DIR/read_holder.trace" >"$CASE_DIR/read_holder.cp"
grep -qE '^ +[0-9.]+[mu]?s +[0-9.]+ms  waiting   reader \(G2\)  pipe: read pipe:\[[0-9]+\]$' "$CASE_DIR/read_holder.cp" ||
    fail "read_holder: io_waiter's path up to T is not reader's read(): $(head -c 800 "$CASE_DIR/read_holder.cp")"

# sleepy: no deadlock, killed mid-sleep or looked at mid-sleep
for f in "$CASE_DIR/sleepy_killed.hangs" "$CASE_DIR/sleepy.hangs"; do
    [ "$f" = "$CASE_DIR/sleepy.hangs" ] && "$GT_DECODER" hangs --at 500ms "$CASE_DIR/sleepy.trace" >"$f"
    has "$f" "no deadlock: not every thread is stuck: producer (G3) sleeping"
    has "$f" "0 deadlocks"
    ! grep -q "^deadlock:" "$f" || fail "$(basename "$f"): a deadlock verdict: $(head -c 600 "$f")"
done
