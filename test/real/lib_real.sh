# lib_real.sh: helpers of the real-server cases (test/real/cases/*.sh, `make test-real`),
# sourced after test/integration/lib.sh.
# Invariants: a server runs in the foreground of a process the case started (killed at the case's
# end by lib.sh), listens on 127.0.0.1 only, on a port of its own, with its data and logs under
# $CASE_DIR; waiting for a server to be ready is bounded polling of its own readiness check.

# tree_dir NAME: an empty folder for the trace files of a process tree, writable by a server
# that drops root (every process of the tree writes its own file there).
tree_dir() {
    local d=$CASE_DIR/$1
    rm -rf "$d"
    mkdir -p "$d"
    chmod 1777 "$d"
    echo "$d"
}

# poll_until SECONDS WHAT CMD...: runs CMD every 0.1 s until it succeeds; fails after SECONDS.
poll_until() {
    local limit=$(($1 * 10)) what=$2 i=0
    shift 2
    until "$@" >/dev/null 2>&1; do
        i=$((i + 1))
        [ "$i" -lt "$limit" ] || fail "$what: not ready after ${limit}00 ms"
        sleep 0.1
    done
}

# wait_gone PID SECONDS: waits for PID (a child of the case) to end; fails after SECONDS.
wait_gone() {
    local i=0
    while kill -0 "$1" 2>/dev/null; do
        i=$((i + 1))
        [ "$i" -lt $(($2 * 10)) ] || fail "pid $1 still running after $2 s"
        sleep 0.1
    done
    wait "$1" 2>/dev/null || true
}

# record_bg TRACE CMD...: runs CMD under `gotrace record -o TRACE` in the background (RUN_PID:
# record's pid; killed at the case's end); its output in TRACE.record.
record_bg() {
    local tr=$1
    shift
    "$GT_BUILD/gotrace" record -o "$tr" -- "$@" >"$tr.record" 2>&1 </dev/null &
    RUN_PID=$!
    GT_BG_PIDS+=("$RUN_PID")
}

# check_tree TRACE MIN: the merged trace TRACE and every process's own trace (TRACE.d/) pass
# the validator, there are at least MIN processes, and record said so; prints how many.
check_tree() {
    local f n=0
    for f in "$1".d/*.trace; do
        [ -f "$f" ] || continue
        validate "$f"
        n=$((n + 1))
    done
    [ "$n" -ge "$2" ] || fail "$1.d: $n trace files, expected one per process, >= $2"
    validate "$1"
    grep -q "$n processes on one timeline" "$1.record" ||
        fail "record's message: $(grep 'gotrace:' "$1.record" | head -c 300)"
    echo "$n"
}

# no_live_files DIR: no live file (/dev/shm) of a trace under DIR is left behind.
no_live_files() {
    local left
    left=$(live_files_of "$1/")
    [ -z "$left" ] || fail "live files left: $left"
}
