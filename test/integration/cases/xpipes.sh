# xpipes: reads of pipes and Unix sockets as waits, ended by the thread that wrote
# (progs/xpipes.c; docs/blocking.md "Pipes and sockets", docs/processes.md "Waits across
# processes"). Every writer writes only once the reader sleeps in the kernel's read, so each
# read really blocks. Checks, each trace validated, the program's output as untraced:
# - pipe: main's read of a pipe a child writes is a block "pipe: read pipe:[INO]", woken in the
#   merged trace by the child's main thread: a GoUnblock on its thread (go tool trace's arrow),
#   contention's "woken by: xpipes[KID] main (1)", summary's "100% ended by xpipes[KID] main";
# - fifo: main's read of a FIFO a child opened and writes: "pipe: read fifo:PATH [MAJ:MIN INO]",
#   woken by the child's main thread;
# - sockets: a socketpair's request and response: the child's recv woken by main, main's recv
#   by the child ("socket: recv socket:[INO] unix");
# - unix: main's recv on a connection it accepted, woken by the child that connected and sent
#   (the peer found over sock_diag);
# - threads: two threads' ping-pong over two pipes, 20 rounds: each side's 20 waits woken by
#   the other thread (one process: the wake is the tracer's own, no merge);
# - poll: main's poll (POLLIN, no timeout) of a pipe a child writes once main sleeps in the
#   kernel's poll is a block "pipe: poll pipe:[INO]" woken by the child's main thread; the
#   same for a socketpair's end the child sends to ("socket: poll socket:[INO] unix");
# - pollthreads: thread poller's 10 ppolls and 10 selects of a pipe ("pipe: select pipe:[INO]"),
#   each woken by main's write;
# - polls: a poll of two pipes, one of a listening Unix socket and a select of two pipes stay
#   the block "network" (-pprof=net's), a poll and a select of one pipe ended by their 20 ms
#   timeout are "pipe: poll" and "pipe: select" that ended themselves, a poll that finds a
#   byte is no wait at all;
# - data: a read that finds its data is no wait (no "pipe:" block; still a read syscall), nor
#   is a read of an empty pipe made nonblocking (pipe2, fcntl: EAGAIN as untraced);
# - a shell pipeline `xpipes produce 5 | xpipes consume`: the consumer (reading its inherited
#   stdin, found by the tracer's scan at start) waits 5 times for the producer's lines, each
#   ended by the producer's main thread.
# itest-timeout: 120

source "$GT_ROOT/test/integration/lib_tree.sh"

prog=$(build_prog xpipes)
G=$GT_BUILD/gotrace
cd "$CASE_DIR"

record_modes "$prog" pipe fifo sockets unix threads data poll pollthreads polls

# reasons TRACE PREFIX: the distinct block reasons of TRACE that start with PREFIX.
reasons() { "$G" dump "$1" | sed -n 's/.* GoBlock reason="\('"$2"'[^"]*\)".*/\1/p' | sort -u; }
# root TRACE KID: the pid of the process of TRACE.d that is not KID.
root() { ls "$1.d" | sed -n 's/^\([0-9]*\)\.trace$/\1/p' | grep -vx "$2"; }

# ---- pipe ----
kid=$(awk '$1 == "writer" { print $2 }' pipe.pids)
mpid=$(root pipe.trace "$kid")
r=$(reasons pipe.trace "pipe: ")
assert_eq "$(echo "$r" | sed 's/[0-9][0-9]*/N/g')" "pipe: read pipe:[N]" "main's read, a block naming the pipe"
assert_eq "$(site_wakers pipe.trace "$r")" "  woken by: xpipes[$kid] main (1)" "the read woken by the writer"
kg=$(gid pipe.trace "xpipes[$kid] main")
mg=$(gid pipe.trace "xpipes[$mpid] main")
[ -n "$kg" ] && [ -n "$mg" ] || fail "no threads xpipes[$kid] main and xpipes[$mpid] main"
"$G" dump pipe.trace >pipe.dump
# main's first move after its read's block is a GoUnblock on the child's thread (go tool trace's
# arrow); its wait for the child, if it blocks (the child may be gone by then), comes after
first=$(awk -v g="$mg" 'blocked && $6 == "g=" g { print $4, $5; exit }
    $4 == "G=" g && $5 == "GoBlock" && /reason="pipe: / { blocked = 1 }' pipe.dump)
assert_eq "$first" "G=$kg GoUnblock" "what ends main's read, in the merged events"
"$G" summary pipe.trace | grep -qF "blocked on $r" || fail "summary: no wait on $r"
"$G" summary pipe.trace | grep -q "^    blocked on pipe: read .* in 1 waits, 100% ended by xpipes\[$kid\] main\$" ||
    fail "summary does not name the writer: $("$G" summary pipe.trace | grep 'pipe: read')"
"$G" dump "pipe.trace.d/$kid.trace" | grep -qF "key=\"gotrace.write\" value=\"${r#pipe: read }\"" ||
    fail "the writer's trace has no gotrace.write log naming ${r#pipe: read }"

# ---- fifo ----
kid=$(awk '$1 == "fifo-writer" { print $2 }' fifo.pids)
r=$(reasons fifo.trace "pipe: ")
assert_eq "$(echo "$r" | sed 's/[0-9a-f][0-9a-f]*:[0-9a-f][0-9a-f]* [0-9]*\]$/D I]/')" \
    "pipe: read fifo:$CASE_DIR/fifo.pids.fifo [D I]" "main's read, a block naming the FIFO"
assert_eq "$(site_wakers fifo.trace "$r")" "  woken by: xpipes[$kid] main (1)" "the FIFO read woken by the writer"

# ---- sockets ----
kid=$(awk '$1 == "server" { print $2 }' sockets.pids)
mpid=$(root sockets.trace "$kid")
r=$(reasons sockets.trace "socket: ")
assert_eq "$(echo "$r" | sed 's/[0-9][0-9]*/N/g' | tr '\n' ' ')" \
    "socket: recv socket:[N] unix socket: recv socket:[N] unix " "two receives, a block each"
ws=$(echo "$r" | while read -r x; do site_wakers sockets.trace "$x"; done | sort)
assert_eq "$ws" "$(printf '  woken by: xpipes[%s] main (1)\n' "$kid" "$mpid" | sort)" \
    "the request woken by main, the response by the server"

# ---- unix ----
kid=$(awk '$1 == "client" { print $2 }' unix.pids)
r=$(reasons unix.trace "socket: ")
assert_eq "$(echo "$r" | sed 's/[0-9][0-9]*/N/g')" "socket: recv socket:[N] unix" "main's receive"
assert_eq "$(site_wakers unix.trace "$r")" "  woken by: xpipes[$kid] main (1)" "the receive woken by the client"

# ---- threads ----
r=$(reasons threads.trace "pipe: ")
assert_eq "$(echo "$r" | grep -c .)" 2 "two pipes waited on"
ws=$(echo "$r" | while read -r x; do site_wakers threads.trace "$x"; done | sort)
assert_eq "$ws" "$(printf '  woken by: %s (20)\n' main ponger | sort)" "each side's 20 waits woken by the other"

# ---- poll ----
kid=$(awk '$1 == "poll-writer" { print $2 }' poll.pids)
r=$(reasons poll.trace "pipe: ")
assert_eq "$(echo "$r" | sed 's/[0-9][0-9]*/N/g')" "pipe: poll pipe:[N]" "main's poll, a block naming the pipe"
assert_eq "$(site_wakers poll.trace "$r")" "  woken by: xpipes[$kid] main (1)" "the poll woken by the writer"
"$G" dump "poll.trace.d/$kid.trace" | grep -qF "key=\"gotrace.write\" value=\"${r#pipe: poll }\"" ||
    fail "the writer's trace has no gotrace.write log naming ${r#pipe: poll }"
r=$(reasons poll.trace "socket: ")
assert_eq "$(echo "$r" | sed 's/[0-9][0-9]*/N/g')" "socket: poll socket:[N] unix" "main's poll of a socket"
assert_eq "$(site_wakers poll.trace "$r")" "  woken by: xpipes[$kid] main (1)" "the socket's poll woken by the sender"
assert_eq "$(reasons poll.trace network)" "" "no network wait in poll mode"

# ---- pollthreads ----
r=$(reasons pollthreads.trace "pipe: ")
assert_eq "$(echo "$r" | sed 's/[0-9][0-9]*/N/g' | tr '\n' ' ')" "pipe: poll pipe:[N] pipe: select pipe:[N] " \
    "the poller's ppolls and selects"
ws=$(echo "$r" | while read -r x; do site_wakers pollthreads.trace "$x"; done)
assert_eq "$ws" "$(printf '  woken by: main (10)\n  woken by: main (10)')" "each woken by main's write"

# ---- polls ----
"$G" contention polls.trace >polls.cont
# waits REASON: the waits of polls.trace's contention sites with exactly that reason, summed
waits() { awk -v r="$1" 'index($0, "  " r "  waits=") { sub(/.*waits=/, ""); n += $1 } END { print n + 0 }' polls.cont; }
assert_eq "$(waits network)" 3 "the polls of two pipes and of a listening socket, the select of two pipes"
r=$(reasons polls.trace "pipe: ")
assert_eq "$(echo "$r" | sed 's/[0-9][0-9]*/N/g' | tr '\n' ' ')" "pipe: poll pipe:[N] pipe: select pipe:[N] " \
    "the timed poll and select of one pipe"
rp=$(echo "$r" | grep "pipe: poll")
assert_eq "$(waits "$rp")" 1 "one pipe poll wait (the poll that finds a byte is none)"
ws=$(echo "$r" | while read -r x; do site_wakers polls.trace "$x"; done)
assert_eq "$ws" "$(printf '  woken by: (ended itself: no waker recorded) (1)\n%.0s' 1 2)" \
    "the timed-out poll and select ended themselves"

# ---- data ----
assert_eq "$(reasons data.trace "pipe: " | grep -c .)" 0 "reads that find data or EAGAIN: no wait"
"$G" dump --stacks data.trace | grep -A1 "GoSyscallBegin" | grep -q "^[[:space:]]*read (libc" ||
    fail "data: no read syscall"

# ---- a shell pipeline ----
rc=0
"$G" record -o pl.trace -- bash -c "$prog produce 5 | $prog consume" >pl.out 2>pl.err || rc=$?
assert_eq "$rc" 0 "record's status for the pipeline"
assert_eq "$(cat pl.out)" "consumed 5 lines" "the pipeline's output"
validate pl.trace
r=$(reasons pl.trace "pipe: ")
assert_eq "$(echo "$r" | sed 's/[0-9][0-9]*/N/g')" "pipe: read pipe:[N]" "the consumer's reads of stdin"
cons=$("$G" summary pl.trace | awk '/^xpipes\[/ { t = $1 } /blocked on pipe: read/ { print t; exit }')
w=$(site_wakers pl.trace "$r")
echo "$w" | grep -q "woken by: xpipes\[[0-9]*\] main (5)" || fail "the consumer's waits: $w"
prod=$(echo "$w" | sed 's/.*woken by: xpipes\[\([0-9]*\)\] main (5).*/\1/')
assert_true "the waker is not the consumer" [ "xpipes[$prod]" != "$cons" ]
"$G" summary pl.trace | grep -q "^xpipes\[$prod\] main " || fail "no producer xpipes[$prod] in the trace"
