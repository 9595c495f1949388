# recover_all: `gotrace recover` as a user meets it after kills (issue 45 item 6), with
# progs/fatal_end.c's `wait` mode (two threads counting 2 ms sleeps until killed):
# (1) given a relative path, it completes a trace owned by nobody:nogroup with mode 640 and
# keeps that owner and mode (before 2026-12-07: root:root 644, the temporary file's);
# (2) right after SIGKILL, with the killed process still a zombie (its parent, a `sleep` exec'd
# by the shell that started it, never reaps it), it recovers instead of answering "still
# running" (before: refused until the parent reaped it); (2b) a forked child killed before it
# opened its trace is recovered by the relative name its file would have had;
# (3) `recover --all DIR`: of three processes tracing under DIR, one killed (its trace is
# completed), one killed whose trace was deleted (its orphan live file is removed), one running
# (its live file is left alone), with one line each; a second --all, after the third is killed,
# completes that one too, and leaves no live file of DIR. Every trace validated.
# itest-timeout: 120

source "$GT_ROOT/test/integration/lib_fatal_end.sh"
prog=$(build_prog fatal_end)
sleeps() { "$GT_BUILD/gotrace" dump "$1" | awk '$4 != "G=1" && / GoBlock reason="sleep"/ { n++ } END { print n + 0 }'; }

# (1) A relative path; the owner and mode kept.
trace_start_bg rel -- "$prog" wait "$CASE_DIR/rel.counts"
wait_count "$CASE_DIR/rel.counts" 20 "$RUN_PID"
kill -KILL "$RUN_PID"
wait "$RUN_PID" 2>/dev/null || true
GT_BG_PIDS=()
chown nobody:nogroup "$RUN_TRACE"
chmod 640 "$RUN_TRACE"
(cd "$CASE_DIR" && "$GT_BUILD/gotrace" recover rel.trace) >"$CASE_DIR/rel.recover" 2>&1 ||
    fail "rel: recover failed: $(head -c 400 "$CASE_DIR/rel.recover")"
grep -q "^rel.trace: recovered" "$CASE_DIR/rel.recover" || fail "rel: $(cat "$CASE_DIR/rel.recover")"
validate "$RUN_TRACE"
assert_eq "$(stat -c '%U:%G %a' "$RUN_TRACE")" "nobody:nogroup 640" "rel: owner and mode after recover"
assert_ge "$(($(sleeps "$RUN_TRACE") * 1000))" "$(($(counted "$CASE_DIR/rel.counts") * 999))" \
    "rel: sleeps in the recovered trace"
assert_eq "$(live_files_of "$RUN_TRACE")" "" "rel: live files left after recover"

# (2) Right after SIGKILL, the process a zombie its parent does not reap.
z=$CASE_DIR/zombie
rm -f "$z.trace" "$z.pid" "$z.counts"
sh -c 'LD_PRELOAD="$1" GOTRACE_OUT="$2.trace" "$3" wait "$2.counts" </dev/null >/dev/null 2>&1 &
    echo $! >"$2.pid"; exec sleep 60' sh "$GT_PRELOAD" "$z" "$prog" &
parent=$!
GT_BG_PIDS=("$parent")
for ((i = 0; i < 600; i++)); do [ -s "$z.pid" ] && break; sleep 0.05; done
zpid=$(cat "$z.pid")
wait_count "$z.counts" 20 "$zpid"
kill -KILL "$zpid"
"$GT_BUILD/gotrace" recover "$z.trace" >"$z.recover" 2>&1 ||
    fail "zombie: recover right after the kill failed: $(head -c 400 "$z.recover")"
assert_eq "$(awk '{ print $3 }' "/proc/$zpid/stat" 2>/dev/null)" Z "zombie: the killed process's state"
kill "$parent"
wait "$parent" 2>/dev/null || true
GT_BG_PIDS=()
validate "$z.trace"
assert_ge "$(($(sleeps "$z.trace") * 1000))" "$(($(counted "$z.counts") * 999))" \
    "zombie: sleeps in the recovered trace"

# (2b) A forked child killed before it opened its trace file (its first generation not due:
# a 10 min period): given the relative name the file would have had, which does not exist,
# recover makes it (before 2026-12-07: "no live file", the name compared as written with the
# head's absolute one).
rm -f "$CASE_DIR"/never.* "$CASE_DIR/never.counts.pid"
trace_start_bg never "GOTRACE_OUT=$CASE_DIR/never.%p.trace" GOTRACE_PERIOD_MS=600000 -- \
    "$prog" fork "$CASE_DIR/never.counts"
kill_forked_child "$CASE_DIR/never.counts"
child=$CHILD
[ ! -e "$CASE_DIR/never.$child.trace" ] || fail "never: the child opened its trace file"
(cd "$CASE_DIR" && "$GT_BUILD/gotrace" recover "never.$child.trace") >"$CASE_DIR/never.recover" 2>&1 ||
    fail "never: recover failed: $(head -c 400 "$CASE_DIR/never.recover")"
validate "$CASE_DIR/never.$child.trace"
assert_ge "$(($(sleeps "$CASE_DIR/never.$child.trace") * 1000))" \
    "$(($(counted "$CASE_DIR/never.counts") * 999))" "never: sleeps in the made trace"
assert_eq "$(live_files_of "$CASE_DIR/never.")" "" "never: live files left"

# (3) recover --all DIR.
all=$CASE_DIR/all
rm -rf "$all"
mkdir -p "$all"
pids=()
for n in done gone runs; do
    trace_start_bg "all_$n" "GOTRACE_OUT=$all/$n.trace" -- "$prog" wait "$all/$n.counts"
    pids+=("$RUN_PID")
done
for i in 0 1 2; do wait_count "$all/$(echo done gone runs | cut -d' ' -f$((i + 1))).counts" 20 "${pids[$i]}"; done
kill -KILL "${pids[0]}" "${pids[1]}"
wait "${pids[0]}" "${pids[1]}" 2>/dev/null || true
rm -f "$all/gone.trace"
gone_live=$(live_files_of "$all/gone.trace" | cut -d' ' -f1)
runs_live=$(live_files_of "$all/runs.trace" | cut -d' ' -f1)
[ -n "$gone_live" ] && [ -n "$runs_live" ] || fail "all: live files missing before --all"
"$GT_BUILD/gotrace" recover --all "$all" >"$CASE_DIR/all.out" 2>&1 ||
    fail "all: recover --all failed: $(head -c 400 "$CASE_DIR/all.out")"
cat "$CASE_DIR/all.out"
assert_eq "$(grep -c . "$CASE_DIR/all.out")" 3 "all: lines of recover --all"
grep -q "^$all/done.trace: recovered " "$CASE_DIR/all.out" || fail "all: done.trace not recovered"
grep -qF "$gone_live: removed (process ${pids[1]}, $all/gone.trace): its trace file is gone" \
    "$CASE_DIR/all.out" || fail "all: the orphan live file's line"
grep -qF "$runs_live: process ${pids[2]} still runs: left alone" "$CASE_DIR/all.out" ||
    fail "all: the running process's line"
[ ! -e "$gone_live" ] || fail "all: the orphan live file is still there"
[ -e "$runs_live" ] || fail "all: the running process's live file was touched"
validate "$all/done.trace"
assert_ge "$(($(sleeps "$all/done.trace") * 1000))" "$(($(counted "$all/done.counts") * 999))" \
    "all: sleeps in done.trace"
kill -KILL "${pids[2]}"
wait "${pids[2]}" 2>/dev/null || true
GT_BG_PIDS=()
"$GT_BUILD/gotrace" recover --all "$all" >"$CASE_DIR/all2.out" 2>&1 ||
    fail "all: second recover --all failed: $(head -c 400 "$CASE_DIR/all2.out")"
grep -q "^$all/runs.trace: recovered " "$CASE_DIR/all2.out" || fail "all: runs.trace: $(cat "$CASE_DIR/all2.out")"
assert_eq "$(grep -c . "$CASE_DIR/all2.out")" 1 "all: lines of the second recover --all"
validate "$all/runs.trace"
assert_eq "$(live_files_of "$all/")" "" "all: live files left"
