# hangs_procs: deadlocks across processes on a pipe or a socket (progs/hangs_procs.c;
# docs/locks.md section 6, "Across processes"), recorded with `gotrace record` and
# GOTRACE_HANG_MS=200, answers known from the programs' design:
# - parent: the child "reader" reads a pipe until EOF while main, holding its only write end,
#   waits for it (waitpid): one live report naming the reader's thread and pipe and main's wait
#   for it, the reader's stack, and no second report in the next 6 rounds of the check; then
#   the tree is killed; `gotrace hangs` on the merged trace names both waits (each until it
#   ended), on the reader's own trace the reader;
# - late: the same, and a byte written into the pipe from outside after the report ends the
#   read it rests on: `hangs` gives no verdict from that report (one from each later one);
# - socket: as parent, on a Unix socketpair read with recv: the report names the socket and its
#   peer, held by main only; `hangs` on the merged trace names both waits;
# - self: the reader holds the only write end itself (main closed both ends and waits): the
#   report says so, and `hangs` on the merged trace names the reader;
# - sibling, wnohang, timed (negatives): the same shape, but another child holds the write end
#   and sleeps 1 s before it writes, or main polls with WNOHANG, or waits for SIGCHLD with a
#   timeout, and writes after about a second: no report, live or offline; the output and status
#   those of the untraced run.
# itest-timeout: 180

prog=$(build_prog hangs_procs)
G=$GT_BUILD/gotrace
cd "$CASE_DIR"
num='[0-9]+'

# kill_tree MODE: kills every process MODE's pids file names, all stopped first: a process
# killed while another still runs could end that one's wait (main's death ends the reader's
# read with EOF, the reader's its wait) and let it go on before its own kill.
kill_tree() {
    local p pids
    pids=$(awk '{ print $2 }' "$1.pids" 2>/dev/null)
    for p in $pids; do kill -STOP "$p" 2>/dev/null || true; done
    for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
}

# until_ok SECONDS CMD...: polls CMD (every 0.1 s) until it succeeds, at most SECONDS.
until_ok() {
    local n=$(($1 * 10)) i
    shift
    for ((i = 0; i < n; i++)); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}

# more_gens FILE N: FILE holds N generations or more.
more_gens() { [ "$(generations "$1")" -ge "$2" ]; }

# poke KID: writes a byte into the pipe process KID reads (its fd 3), through /proc.
poke() { echo x >"/proc/$1/fd/3"; }

# hung MODE [TAG]: records MODE (files TAG.*, TAG defaults to MODE) in the background (a generation every 50 ms) until its stderr has a
# live report and the reader's trace its log (at most 30 s each), runs $HUNG_HOOK KID if set,
# waits for 12 generations more, then kills the tree; record recovers and merges it.
hung() {
    local pmode=$1 mode=${2:-$1} rc=0 rec kid
    rm -rf "$mode".*
    GOTRACE_HANG_MS=200 GOTRACE_PERIOD_MS=50 "$G" record -o "$mode.trace" -- "$prog" "$pmode" \
        "$CASE_DIR/$mode.pids" >"$mode.out" 2>"$mode.err" &
    rec=$!
    if ! until_ok 30 grep -q '^gotrace: deadlock: ' "$mode.err"; then
        kill_tree "$mode"
        fail "$mode: no live report within 30 s: $(head -c 300 "$mode.err")"
    fi
    kid=$(awk '$1 == "reader" { print $2 }' "$mode.pids")
    until_ok 30 grep -qa 'gotrace.deadlock' "$mode.trace.d/$kid.trace" ||
        { kill_tree "$mode"; fail "$mode: the reader's trace has no gotrace.deadlock log"; }
    [ -z "${HUNG_HOOK:-}" ] || "$HUNG_HOOK" "$kid"
    # 12 more generations (600 ms: 6 more rounds of the check, in which a second report would come)
    local gens=$(($(generations "$mode.trace.d/$kid.trace") + 12))
    until_ok 30 more_gens "$mode.trace.d/$kid.trace" "$gens" ||
        { kill_tree "$mode"; fail "$mode: the reader's trace did not reach $gens generations"; }
    kill_tree "$mode"
    wait "$rec" || rc=$?
    assert_eq "$rc" 137 "record's status for $mode (killed)"
    validate "$mode.trace"
    validate "$mode.trace.d/$kid.trace"
}

# heads FILE: the live reports' first lines in FILE.
heads() { grep '^gotrace: deadlock: [^ ]' "$1" || true; }

# ---- parent: main waits for the reader, holding the pipe's only write end ----
hung parent
kid=$(awk '$1 == "reader" { print $2 }' parent.pids)
main=$(awk '$1 == "parent" { print $2 }' parent.pids)
assert_eq "$(heads parent.err | wc -l)" 1 "parent: live reports"
heads parent.err | grep -qE "^gotrace: deadlock: thread $kid of hangs_procs\[$kid\] waits $num ms reading pipe:\[$num\], whose write end only hangs_procs\[$main\] holds; hangs_procs\[$main\] thread $main waits in wait4\($kid\)\$" ||
    fail "parent: the report: $(heads parent.err)"
if stacks_on; then
    grep -qE "^gotrace: deadlock:   thread $kid waits at read < main \(hangs_procs.c:$num\)" parent.err ||
        fail "parent: the reader's stack: $(grep 'waits at' parent.err)"
fi
text=$(heads parent.err | sed 's/^gotrace: deadlock: //')
"$G" hangs parent.trace >parent.hangs
grep -qF "deadlock: across processes, found live at" parent.hangs && grep -qF ": $text" parent.hangs ||
    fail "parent: hangs on the merged trace: $(head -c 600 parent.hangs)"
grep -qE "^  hangs_procs\[$kid\] main \(G$num\) (in a system call|waiting \((pipe|socket): [a-z]+ [^)]*\)) until it ended at" parent.hangs ||
    fail "parent: hangs does not name the reader: $(cat parent.hangs)"
grep -qE "^  hangs_procs\[$main\] main \(G$num\) waiting \(wait: child $kid\) until it ended at" parent.hangs ||
    fail "parent: hangs does not name main's wait: $(cat parent.hangs)"
assert_eq "$(tail -1 parent.hangs)" "1 deadlock" "parent: deadlocks in the merged trace"
"$G" hangs "parent.trace.d/$kid.trace" >parent.own.hangs
grep -qE "^  main \(G$num\) (in a system call|waiting \((pipe|socket): [a-z]+ [^)]*\)) at the end" parent.own.hangs ||
    fail "parent: hangs on the reader's own trace: $(cat parent.own.hangs)"
assert_eq "$(tail -1 parent.own.hangs)" "1 deadlock" "parent: deadlocks in the reader's own trace"
"$G" hangs "parent.trace.d/$main.trace" >parent.main.hangs
assert_eq "$(tail -1 parent.main.hangs)" "0 deadlocks" "parent: main's own trace (no log, its wait a child's)"

# ---- late: the same, but once reported the test writes a byte into the reader's pipe (through
# /proc/KID/fd/3: a write end from outside the tree) before the tree is killed ----
# The read that the first report rests on ends (it returns, logs, reads again), so `hangs` gives
# no verdict from that log; the live check may report the new read (after 200 ms) before the
# kill: the merged trace has one deadlock per report after the first.
HUNG_HOOK=poke hung parent late
reports=$(heads late.err | wc -l)
assert_ge "$reports" 1 "late: live reports"
"$G" hangs late.trace >late.hangs
assert_eq "$(tail -1 late.hangs)" "$((reports - 1)) deadlock$([ "$reports" = 2 ] || echo s)" \
    "late: deadlocks in the merged trace after $reports live reports ($(cat late.hangs))"

# ---- socket: the same on a Unix socketpair read with recv: the peer end ----
hung socket
kid=$(awk '$1 == "reader" { print $2 }' socket.pids)
main=$(awk '$1 == "parent" { print $2 }' socket.pids)
assert_eq "$(heads socket.err | wc -l)" 1 "socket: live reports"
heads socket.err | grep -qE "^gotrace: deadlock: thread $kid of hangs_procs\[$kid\] waits $num ms reading socket:\[$num\] unix, peer socket:\[$num\], whose peer end only hangs_procs\[$main\] holds; hangs_procs\[$main\] thread $main waits in wait4\($kid\)\$" ||
    fail "socket: the report: $(heads socket.err)"
if stacks_on; then
    grep -qE "^gotrace: deadlock:   thread $kid waits at recv < main \(hangs_procs.c:$num\)" socket.err ||
        fail "socket: the reader's stack: $(grep 'waits at' socket.err)"
fi
"$G" hangs socket.trace >socket.hangs
grep -qE "^  hangs_procs\[$kid\] main \(G$num\) (in a system call|waiting \((pipe|socket): [a-z]+ [^)]*\)) until it ended at" socket.hangs &&
    grep -qE "^  hangs_procs\[$main\] main \(G$num\) waiting \(wait: child $kid\) until it ended at" socket.hangs ||
    fail "socket: hangs on the merged trace: $(cat socket.hangs)"
assert_eq "$(tail -1 socket.hangs)" "1 deadlock" "socket: deadlocks in the merged trace"

# ---- self: the reader holds the only write end itself ----
hung self
kid=$(awk '$1 == "reader" { print $2 }' self.pids)
assert_eq "$(heads self.err | wc -l)" 1 "self: live reports"
heads self.err | grep -qE "^gotrace: deadlock: thread $kid of hangs_procs\[$kid\] waits $num ms reading pipe:\[$num\], whose write end only hangs_procs\[$kid\] itself holds; hangs_procs\[$kid\] has no other thread\$" ||
    fail "self: the report: $(heads self.err)"
"$G" hangs self.trace >self.hangs
grep -qE "^deadlock: across processes, found live at .*whose write end only hangs_procs\[$kid\] itself holds" self.hangs &&
    grep -qE "^  hangs_procs\[$kid\] main \(G$num\) (in a system call|waiting \((pipe|socket): [a-z]+ [^)]*\)) until it ended at" self.hangs ||
    fail "self: hangs on the merged trace: $(cat self.hangs)"
assert_eq "$(tail -1 self.hangs)" "1 deadlock" "self: deadlocks in the merged trace"

# ---- negatives: a holder that can move ----
for mode in sibling wnohang timed; do
    rm -rf "$mode".* "plain.$mode.pids"
    plain_run "plain-$mode" -- "$prog" "$mode" "$CASE_DIR/plain.$mode.pids"
    expect_status "hangs_procs $mode untraced" 0
    assert_eq "$(cat "$RUN_OUT")" ok "untraced $mode output"
    rc=0
    GOTRACE_HANG_MS=200 "$G" record -o "$mode.trace" -- "$prog" "$mode" "$CASE_DIR/$mode.pids" \
        >"$mode.out" 2>"$mode.err" || rc=$?
    assert_eq "$rc" 0 "record's status for $mode"
    assert_eq "$(cat "$mode.out")" ok "traced $mode output"
    assert_eq "$(grep -c 'deadlock' "$mode.err")" 0 "$mode: live reports ($(head -c 300 "$mode.err"))"
    validate "$mode.trace"
    assert_eq "$("$G" hangs "$mode.trace" | tail -1)" "0 deadlocks" "$mode: deadlocks in the merged trace"
done
