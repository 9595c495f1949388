# xproc: waits that another process of the tree ended, linked to the thread that ended them in
# the merged trace (progs/xproc.c; docs/processes.md "Waits across processes"). Each child acts
# only once its parent sleeps in the expected kernel function, so every wait really blocks.
# Checks, each merged trace validated, the program's output as untraced:
# - child: main's waitpid for a child that computes is woken, in the merged trace, by the
#   child's main thread (its last), in Go's events (a GoUnblock on that thread, so `go tool
#   trace` links them too), in contention ("woken by: xproc[KID] main (exited)") and summary
#   ("100% ended by xproc[KID] main (exited)"); the wait
#   lasts until main's own return from waitpid; main's own trace still says "(child KID
#   exited, status 0)";
# - signal: main's sigsuspend is woken by the thread of the child that sent the SIGUSR1
#   (contention, summary);
# - sem: main's sem_wait on a process-shared semaphore (shared anonymous memory) is woken by
#   the child that posted it (its gotrace.post log): contention and locks --holders name it;
# - cond, condshm, futex, semopen: main's wait on a process-shared condvar (in shared anonymous
#   memory; in a shm_open'd file), a futex word in shared memory (FUTEX_WAIT without the private
#   flag) and a sem_open'd semaphore, each named by its mapping, is woken by the child that
#   signalled, woke or posted it (its gotrace.post log, the only one: main's own wake, with
#   nobody waiting, writes none): contention, summary and locks --holders name it (summary
#   also when no wait of the tree left a sync record: a child whose join did not block); main's
#   own trace says the wait ended itself;
# - rwlock: main's wait to write-lock a process-shared rwlock the child holds for writing names
#   the child's thread as its holder (summary, locks --holders) and its waker (contention);
# - rdlock: the same rwlock held by the child for reading: the wait is woken by the child's
#   unlock (contention; the only gotrace.post log), its holder unknown (glibc keeps no readers);
# - two: main waits for child "first", then child "second": critical-path's default target is
#   the root process's main thread and its path crosses into both children (their work
#   threads, each about 40 ms of CPU, most of the path), through the waits and the forks.
# - signal1: as signal, the sender's kill its first traced call (its tracer takes up its thread
#   there, before the kill): still woken by the sender;
# - group: main's killpg to the group of a child asleep in sigsuspend (the child's own group):
#   the child's wait woken by main's thread; group0: a child leading its own group signals it
#   all (kill(0, ...)): the wait of the child it made there woken by the leader's thread;
# - system, popen, vfork: main runs a child through system(), popen() + pclose(), vfork() +
#   exec + waitpid (the command exec's this program: the shell's process is the child, which
#   computes once main waits): main's trace holds a gotrace.spawn (vfork: gotrace.fork) log
#   naming the child with the call's stack (system, popen or vfork, then mode_system, ...),
#   system's, pclose's and waitpid's waits are "wait: child PID" woken by the child's main
#   thread (contention, summary), and critical-path from main crosses into the child's work
#   thread.
# itest-timeout: 120

source "$GT_ROOT/test/integration/lib_tree.sh"

prog=$(build_prog xproc)
G=$GT_BUILD/gotrace
cd "$CASE_DIR"

record_modes "$prog" child signal two sem cond condshm futex semopen rwlock rdlock signal1 group group0 system popen vfork


# ---- child ----
kid=$(awk '$1 == "computer" { print $2 }' child.pids)
main=$(ls child.trace.d/*.trace | grep -v "/$kid.trace")
mpid=$(basename "$main" .trace)
assert_eq "$(site_wakers child.trace "wait: child $kid")" "  woken by: xproc[$kid] main (exited) (1)" \
    "the wait for the child, woken by its main thread"
kg=$(gid child.trace "xproc[$kid] main")
mg=$(gid child.trace "xproc[$mpid] main")
[ -n "$kg" ] && [ -n "$mg" ] || fail "no threads xproc[$kid] main and xproc[$mpid] main"
assert_eq "$("$G" dump child.trace | grep -c " G=$kg GoUnblock g=$mg ")" 1 \
    "a GoUnblock of main's thread on the child's"
"$G" summary child.trace | grep -q "^    blocked on wait: child $kid .* in 1 waits, 100% ended by xproc\[$kid\] main (exited)\$" ||
    fail "summary does not name the child as the wait's end: $("$G" summary child.trace | grep 'wait: child')"
# the wait ends at main's own return: it is not runnable while the child still exits
end_wait=$("$G" dump child.trace | awk -v g="$mg" '$4 == "G=" g && $5 == "UserLog" && /gotrace.ended/ { print $1 }')
unblock=$("$G" dump child.trace | awk -v g="$kg" -v w="$mg" '$4 == "G=" g && $5 == "GoUnblock" && $6 == "g=" w { print $1 }')
destroy=$("$G" dump child.trace | awk -v g="$kg" '$4 == "G=" g && $5 == "GoDestroy" { print $1 }')
[ -n "$end_wait" ] && [ -n "$unblock" ] && [ -n "$destroy" ] || fail "no gotrace.ended, unblock or exit"
assert_le "$unblock" "$end_wait" "the unblock before main's return"
assert_le "$unblock" "$destroy" "the unblock before the child's end"
"$G" contention "$main" | grep -q "woken by: (child $kid exited, status 0) (1)" ||
    fail "main's own trace does not show the child's exit as the wait's end"

# ---- signal ----
snd=$(awk '$1 == "sender" { print $2 }' signal.pids)
assert_eq "$(site_wakers signal.trace "signal: sigsuspend")" "  woken by: xproc[$snd] main (1)" \
    "sigsuspend woken by the sender's thread"
"$G" summary signal.trace | grep -q "^    blocked on signal: sigsuspend .* in 1 waits, 100% ended by xproc\[$snd\] main\$" ||
    fail "summary does not name the sender: $("$G" summary signal.trace | grep 'sigsuspend')"

# ---- two ----
first=$(awk '$1 == "first" { print $2 }' two.pids)
second=$(awk '$1 == "second" { print $2 }' two.pids)
"$G" critical-path two.trace >two.cp || fail "critical-path failed"
head -1 two.cp | grep -q "^critical path of the main thread xproc\[[0-9]*\] main (G1): " ||
    fail "critical-path's target: $(head -1 two.cp)"
root=$(head -1 two.cp | sed 's/.*xproc\[\([0-9]*\)\] main.*/\1/')
assert_true "root is neither child" [ "$root" != "$first" ] && [ "$root" != "$second" ]
# shares of each child's work thread: each at least 30 ms (40 ms of CPU each, on the path)
for k in "$first" "$second"; do
    ms=$(awk -v n="xproc[$k] work" '/^by thread:/ { on = 1; next } /^$/ { on = 0 }
        on && index($0, n) { v = $2; if (v ~ /ms$/) print int(v); else if (v ~ /s$/) print int(v * 1000); else print 0 }' two.cp)
    assert_ge "${ms:-0}" 30 "critical path share of xproc[$k] work (ms)"
done

# ---- sem ----
poster=$(awk '$1 == "poster" { print $2 }' sem.pids)
reason=$("$G" dump sem.trace | sed -n 's/.* GoBlock reason="\(sync: semaphore shared anon+0x0 [^"]*\)".*/\1/p')
assert_eq "$(echo "$reason" | grep -c .)" 1 "main's wait on the shared semaphore"
assert_eq "$(site_wakers sem.trace "$reason")" "  woken by: xproc[$poster] main (1)" \
    "the semaphore wait woken by the poster's thread"
"$G" locks --holders sem.trace | grep -q "^  posted by xproc\[$poster\] main (G[0-9]*): " ||
    fail "locks --holders does not name the poster: $("$G" locks --holders sem.trace | grep -i posted)"

# ---- cond, condshm, futex, semopen, rwlock ----
# shared MODE KIND WAIT HOW: MODE's main waits once with a reason starting WAIT, woken by child
# KIND's main thread, which `locks --holders` and summary say HOW ("signalled by", ...; "held
# by (unknown)": no holder known, summary names none).
shared() {
    local mode=$1 kid reason own kg posts by
    kid=$(awk -v k="$2" '$1 == k { print $2 }' "$mode.pids")
    reason=$("$G" dump "$mode.trace" | sed -n "s|.* GoBlock reason=\"\($3[^\"]*\)\".*|\1|p")
    assert_eq "$(echo "$reason" | grep -c .)" 1 "$mode: main's wait ($3...)"
    assert_eq "$(site_wakers "$mode.trace" "$reason")" "  woken by: xproc[$kid] main (1)" \
        "$mode: the wait woken by the child's thread"
    by="$4 xproc\[$kid\] main (G[0-9]*)"
    if [ "$4" = "held by (unknown)" ]; then
        by="held by (unknown)"
        "$G" summary "$mode.trace" | grep -F "blocked on $reason " | grep -qv "%" ||
            fail "$mode: summary names a holder: $("$G" summary "$mode.trace" | grep -F "$reason")"
    else
        "$G" summary "$mode.trace" | grep -F "blocked on $reason " | grep -q "100% $4 xproc\[$kid\] main\$" ||
            fail "$mode: summary does not say $4 the child: $("$G" summary "$mode.trace" | grep -F "$reason")"
    fi
    "$G" locks --holders "$mode.trace" | grep -q "^  $by: " ||
        fail "$mode: locks --holders does not say $4: $("$G" locks --holders "$mode.trace")"
    own=$(ls "$mode.trace.d"/*.trace | grep -v "/$kid.trace")
    assert_eq "$(site_wakers "$own" "$reason")" "  woken by: (ended itself: no waker recorded) (1)" \
        "$mode: main's own trace"
    kg=$(gid "$mode.trace" "xproc[$kid] main")
    posts=$("$G" dump "$mode.trace" | grep -c 'UserLog .*key="gotrace.post"')
    # rwlock: main's unlock writes one too: glibc keeps the flag saying writers sleep set after
    # a writer that slept took the lock (docs/blocking.md)
    [ "$mode" = rwlock ] || assert_eq "$posts" 1 "$mode: gotrace.post logs (main's wake of nobody writes none)"
    assert_eq "$("$G" dump "$mode.trace" | grep -c " G=$kg UserLog .*key=\"gotrace.post\"")" 1 \
        "$mode: the child's gotrace.post log"
}
shared cond signaller "sync: condvar shared anon+0x" "signalled by"
shared condshm signaller "sync: condvar shared /dev/shm/gotrace-xproc\.[0-9]*+0x" "signalled by"
shared futex waker "sync: futex shared anon+0x" "woken by"
shared semopen poster "sync: semaphore shared /dev/shm/sem\.[^+]*+0x" "posted by"
shared rwlock writer "sync: rwlock write shared anon+0x" "held by"
shared rdlock reader "sync: rwlock write shared anon+0x" "held by (unknown)"

# ---- signal1 ----
snd=$(awk '$1 == "sender" { print $2 }' signal1.pids)
assert_eq "$(site_wakers signal1.trace "signal: sigsuspend")" "  woken by: xproc[$snd] main (1)" \
    "sigsuspend woken by a sender whose first traced call is the kill"

# ---- group, group0 ----
wt=$(awk '$1 == "waiter" { print $2 }' group.pids)
gmain=$(basename "$(ls group.trace.d/*.trace | grep -v "/$wt.trace")" .trace)
"$G" dump group.trace | grep -q "key=\"gotrace.kill\" value=\"SIGUSR1 to process group $wt by killpg\"" ||
    fail "no gotrace.kill log of the killpg to group $wt"
assert_eq "$(site_wakers group.trace "signal: sigsuspend")" "  woken by: xproc[$gmain] main (1)" \
    "the group member's sigsuspend woken by killpg's caller"
lead=$(awk '$1 == "leader" { print $2 }' group0.pids)
assert_eq "$(site_wakers group0.trace "signal: sigsuspend")" "  woken by: xproc[$lead] main (1)" \
    "the group member's sigsuspend woken by the leader's kill(0)"
"$G" summary group0.trace | grep -q "^    blocked on signal: sigsuspend .* in 1 waits, 100% ended by xproc\[$lead\] main\$" ||
    fail "summary does not name the group's sender: $("$G" summary group0.trace | grep 'sigsuspend')"

# ---- system, popen, vfork ----
for how in system popen vfork; do
    kid=$(awk '$1 == "spawned" { print $2 }' $how.pids)
    [ -n "$kid" ] || fail "$how: no spawned child noted"
    key=$([ $how = vfork ] && echo gotrace.fork || echo gotrace.spawn)
    "$G" dump --stacks $how.trace | awk -v v="key=\"$key\" value=\"pid $kid\"" '
        /^[0-9]/ { on = index($0, v) > 0; n = 0; next }
        on { n++; if (n == 1) print $1; if (n == 2) print $1 }' >$how.spawn
    assert_eq "$(tr '\n' ' ' <$how.spawn)" "$how mode_$how " "$how: the spawn log's stack"
    wait_site=$(case $how in system) echo system ;; popen) echo pclose ;; *) echo waitpid ;; esac)
    "$G" contention $how.trace | awk -v r="wait: child $kid" '/^#/ { on = index($0, "  " r "  ") > 0; n = 0; next }
        on { n++; if (n == 1) print $1 }' >$how.waitstk
    assert_eq "$(cat $how.waitstk)" "$wait_site" "$how: the wait for the child is $wait_site's"
    assert_eq "$(site_wakers $how.trace "wait: child $kid")" "  woken by: xproc[$kid] main (exited) (1)" \
        "$how: the wait for its child woken by the child's main thread"
    "$G" summary $how.trace | grep -q "^    blocked on wait: child $kid .* in 1 waits, 100% ended by xproc\[$kid\] main (exited)\$" ||
        fail "$how: summary does not name the child: $("$G" summary $how.trace | grep 'wait: child')"
    "$G" critical-path $how.trace >$how.cp || fail "$how: critical-path failed"
    ms=$(awk -v n="xproc[$kid] work" '/^by thread:/ { on = 1; next } /^$/ { on = 0 }
        on && index($0, n) { v = $2; if (v ~ /ms$/) print int(v); else if (v ~ /s$/) print int(v * 1000); else print 0 }' $how.cp)
    assert_ge "${ms:-0}" 30 "$how: critical path share of the child's work thread (ms)"
done
