# lib_fatal_end.sh: helpers of the cases that kill progs/fatal_end.c and recover its trace
# (recover_kill.sh, recover_all.sh), sourced after lib.sh.
# Invariant: fatal_end's threads count their finished sleeps in the first 16 bytes of a shared
# file mapping (two 8-byte counters), so a case knows what the trace must hold without tracing.

# counted FILE: the sleeps both threads finished, from the counts file.
counted() { od -An -t d8 -N 16 "$1" | awk '{ print $1 + $2 }'; }

# wait_count FILE N PID: polls the counts file (bounded) until N sleeps are done.
wait_count() {
    local i
    for ((i = 0; i < 600; i++)); do
        [ -s "$1" ] && [ "$(counted "$1")" -ge "$2" ] && return 0
        kill -0 "$3" 2>/dev/null || fail "the program ended before $2 sleeps"
        sleep 0.05
    done
    fail "$2 sleeps not done within 30 s"
}

# kill_forked_child COUNTS: after fatal_end's `fork` mode was started with trace_start_bg (its
# child counts into COUNTS and writes its pid to COUNTS.pid): waits (bounded) for the child and
# its first 20 sleeps, kills it with SIGKILL and waits for the parent, which must exit 0. Sets
# CHILD to the child's pid.
kill_forked_child() {
    local i parent=$RUN_PID
    for ((i = 0; i < 600; i++)); do [ -s "$1.pid" ] && break; sleep 0.05; done
    CHILD=$(cat "$1.pid")
    wait_count "$1" 20 "$CHILD"
    kill -KILL "$CHILD"
    wait "$parent" || fail "the forking parent exited with status $?"
    GT_BG_PIDS=()
}
