# proc_waits: waits that another process ends (progs/proc_waits.c; docs/blocking.md "Across
# processes"). Each child ends its part only once its parent sleeps in the expected kernel
# function, so every wait below really blocks. Checks, each trace validated, same output as untraced:
# - child: main's waitpid is a block "wait: child PID" (PID the child's, as the gotrace.fork log
#   says), not running time, ended by the gotrace.ended log "child PID exited, status 3", which
#   contention shows as what ended the wait;
# - signals: sigsuspend, sigwait, sigwaitinfo, sigtimedwait and a signalfd read are blocks
#   "signal: CALL"; the sigwait family's waits and the signalfd read end with "SIGUSR1 from pid
#   PID" naming the child that sent it; each
#   child's trace has the gotrace.kill log "SIGUSR1 to pid MAIN by kill" (or sigqueue);
# - shared: the process-shared mutex and semaphore in /dev/shm and the mutex in shared anonymous
#   memory are named alike in main's and the child's traces, by file (or anon), offset, device
#   and inode, not by address: both name the shm mutex and the anon one as the same objects.
# - pipes: main's read of a pipe and recv of a socketpair that a child writes once main sleeps
#   in them are blocks naming them ("pipe: read pipe:[INODE]", the pipe's inode as /proc shows
#   it; "socket: recv socket:[INODE] unix"), in summary's "blocked on" lines; not recorded, the
#   child logs no write (nothing shared: xpipes.sh has the links).
# Also bash waiting for a `sleep` child: its wait is a block ended by that child's exit.
# itest-timeout: 120

prog=$(build_prog proc_waits)
G=$GT_BUILD/gotrace

# ended_logs FILE: the texts of FILE's gotrace.ended logs, one a line.
ended_logs() { "$G" dump "$1" | sed -n 's/.*key="gotrace.ended" value="\([^"]*\)".*/\1/p'; }
# reasons FILE: the block reasons of FILE, one a line.
reasons() { "$G" dump "$1" | sed -n 's/.* GoBlock reason="\([^"]*\)".*/\1/p'; }

for mode in child signals shared pipes; do
    rm -f "$CASE_DIR/plain.$mode.pids" "$CASE_DIR/$mode.pids"
    plain_run "plain-$mode" -- "$prog" "$mode" "$CASE_DIR/plain.$mode.pids"
    expect_status "proc_waits $mode untraced" 0
    assert_eq "$(cat "$RUN_OUT")" ok "untraced $mode output"
    mkdir -p "$CASE_DIR/$mode"
    trace_run "$mode" GOTRACE_PIPES=1 GOTRACE_OUT="$CASE_DIR/$mode/t.%p.trace" -- "$prog" "$mode" "$CASE_DIR/$mode.pids"
    expect_status "proc_waits $mode traced" 0
    assert_eq "$(cat "$RUN_OUT")" ok "traced $mode output"
    for f in "$CASE_DIR/$mode"/t.*.trace; do validate "$f"; done
done

# ---- child ----
kid=$(awk '$1 == "spinner" { print $2 }' "$CASE_DIR/child.pids")
main=$(ls "$CASE_DIR"/child/t.*.trace | grep -v "t.$kid.trace")
assert_eq "$(echo "$main" | wc -l)" 1 "main's trace"
"$G" dump "$main" | grep -q "key=\"gotrace.fork\" value=\"pid $kid\"" || fail "no gotrace.fork log of pid $kid"
assert_eq "$(reasons "$main" | grep -c "^wait: child $kid\$")" 1 "main's wait for the spinner, a block"
assert_eq "$(ended_logs "$main")" "child $kid exited, status 3" "the wait's end"
"$G" contention "$main" | grep -q "woken by: (child $kid exited, status 3) (1)" ||
    fail "contention does not show the child's exit as the wait's end"
"$G" summary "$main" | grep -q "blocked on wait: child $kid " || fail "summary: no 'blocked on wait: child $kid'"
# (main's only system calls are the fflush of the pid file: stdio writes, docs/blocking.md)
assert_eq "$(gt_trans "$main" | awk -F'\t' '$1 == 1 && $2 == "Running" && $3 == "Syscall" &&
    $6 !~ /^fflush\|/' | grep -c . || true)" 0 "main's syscalls but the pid file's (the wait is no syscall)"

# ---- signals ----
main=$(ls "$CASE_DIR"/signals/t.*.trace | while read -r f; do
    if [ -n "$(reasons "$f" | grep '^signal: ')" ]; then echo "$f"; fi; done)
assert_eq "$(echo "$main" | grep -c .)" 1 "traces with signal waits (main's)"
assert_eq "$(reasons "$main" | grep '^signal: ' | tr '\n' ' ')" \
    "signal: sigsuspend signal: sigwait signal: sigwaitinfo signal: sigtimedwait signal: signalfd " "main's signal waits"
for call in sigwait sigwaitinfo sigtimedwait signalfd; do
    pid=$(awk -v k=$call '$1 == k { print $2 }' "$CASE_DIR/signals.pids")
    assert_eq "$(ended_logs "$main" | grep -c "^SIGUSR1 from pid $pid, uid ")" 1 "$call ended by $pid's SIGUSR1"
done
mainpid=$(basename "$main" .trace | sed 's/^t\.//')
for call in sigsuspend sigwait sigwaitinfo sigtimedwait signalfd; do
    pid=$(awk -v k=$call '$1 == k { print $2 }' "$CASE_DIR/signals.pids")
    by=kill
    [ $call = sigwaitinfo ] && by=sigqueue
    assert_eq "$("$G" dump "$CASE_DIR/signals/t.$pid.trace" | grep -c "key=\"gotrace.kill\" value=\"SIGUSR1 to pid $mainpid by $by\"")" 1 "the $call sender's log"
done
"$G" contention "$main" | awk '/^#/ { site = $0 } /woken by:/ && site ~ /signal: sigwaitinfo/' |
    grep -q "woken by: (SIGUSR1 from pid" ||
    fail "contention does not show the sigwaitinfo's sender"

# ---- shared ----
shm=$(awk '$1 == "shm" { print $2 }' "$CASE_DIR/shared.pids")
anon=$(awk '$1 == "anon" { print $2 }' "$CASE_DIR/shared.pids")
main=$(ls "$CASE_DIR"/shared/t.*.trace | grep -v "t.$shm.trace" | grep -v "t.$anon.trace")
assert_eq "$(echo "$main" | wc -l)" 1 "main's trace"
mutex=$(reasons "$main" | grep '^sync: mutex shared /dev/shm/gotrace_proc_waits\.[0-9]*+0x0 \[[0-9a-f:]* [0-9]*\]$')
amutex=$(reasons "$main" | grep '^sync: mutex shared anon+0x0 \[[0-9a-f:]* [0-9]*\]$')
assert_eq "$(echo "$mutex" | grep -c .)" 1 "main's wait for the shm mutex, named by file and offset"
assert_eq "$(echo "$amutex" | grep -c .)" 1 "main's wait for the anon mutex, named by inode and offset"
assert_eq "$(reasons "$CASE_DIR/shared/t.$shm.trace" | grep -cxF "$mutex")" 1 "the shm child's wait, the same mutex"
assert_eq "$(reasons "$CASE_DIR/shared/t.$anon.trace" | grep -cxF "$amutex")" 1 "the anon child's wait, the same mutex"
sem=$(echo "$mutex" | sed 's/^sync: mutex /sync: semaphore /; s/+0x0 /+0x40 /')
assert_eq "$(reasons "$CASE_DIR/shared/t.$shm.trace" | grep -cxF "$sem")" 1 "the shm child's semaphore wait"
"$G" locks "$CASE_DIR/shared/t.$shm.trace" | grep -q "mutex shared /dev/shm/gotrace_proc_waits" ||
    fail "locks does not name the shared mutex by its file"

# ---- pipes ----
kid=$(awk '$1 == "writer" { print $2 }' "$CASE_DIR/pipes.pids")
main=$(ls "$CASE_DIR"/pipes/t.*.trace | grep -v "t.$kid.trace")
fds=$(reasons "$main" | grep -E '^(pipe|socket): ')
assert_eq "$(echo "$fds" | sed 's/[0-9][0-9]*/N/g' | tr '\n' ' ')" "pipe: read pipe:[N] socket: recv socket:[N] unix " "main's waits on the pipe and the socket"
pipe=$(sed -n 1p <<<"$fds") # (not `echo | head`: echo may meet the closed pipe, SIGPIPE)
"$G" summary "$main" | grep -qF "blocked on $pipe " || fail "summary: no 'blocked on $pipe'"
assert_eq "$("$G" dump "$CASE_DIR/pipes/t.$kid.trace" | grep -c gotrace.write)" 0 "the child's write logs, not recorded"

# ---- bash waits for a sleep child ----
mkdir -p "$CASE_DIR/bash"
trace_run bash GOTRACE_OUT="$CASE_DIR/bash/t.%p.trace" -- bash -c 'sleep 0.2; echo done'
expect_status "bash" 0
assert_eq "$(cat "$RUN_OUT")" done "bash output"
for f in "$CASE_DIR"/bash/t.*.trace; do validate "$f"; done
b=$(ls "$CASE_DIR"/bash/t.*.trace | grep -v exec)
kid=$("$G" dump "$b" | sed -n 's/.*key="gotrace.fork" value="pid \([0-9]*\)".*/\1/p')
assert_eq "$(echo "$kid" | grep -c .)" 1 "bash's fork log"
[ -s "$CASE_DIR/bash/t.$kid-exec1.trace" ] || fail "no trace of the forked pid $kid's sleep"
assert_eq "$(reasons "$b" | grep -c '^wait: ')" 1 "bash's wait for its child, a block"
assert_eq "$(ended_logs "$b")" "child $kid exited, status 0" "bash's wait ended by the sleep's exit"
