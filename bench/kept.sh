#!/usr/bin/env bash
# kept.sh (make bench-kept): how much of a trace survives a bad end. Two threads count their
# completed 2 ms sleeps in a shared file mapping (test/integration/progs/fatal_end.c), so the
# sleeps done before the end are known exactly; the trace's sleep waits of those threads are
# the ones it kept. SIGKILL at 20 moments from 0.05 s to 5 s (sent from outside), then SIGTERM,
# SIGSEGV and abort() at 0.3 s (from inside; the tracer's last write, issue 17), each with the
# default period (1 s). After a SIGKILL the file is counted as the process left it, then again
# after `gotrace recover` (the live file, issue 17). Prints a table and rewrites the "kept"
# section of bench/RESULTS.md.
# Invariants: builds its program into build/bench/; writes only there and that section.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/bench/section.sh"
B=$top/build/bench/kept
LIB=${BENCH_LIB:-$top/build/libgotrace.so}
RESULTS=${BENCH_RESULTS:-$top/bench/RESULTS.md}
mkdir -p "$B"
cc -O1 -g -pthread -o "$B/fatal_end" "$top/test/integration/progs/fatal_end.c"

counted() { od -An -t d8 -N 16 "$1" | awk '{ print $1 + $2 }'; }
kept() { # sleep waits of the goroutines other than main
    [ -s "$1" ] || { echo 0; return; }
    { "$top/build/gotrace" dump "$1" 2>/dev/null || true; } |
        awk '$4 != "G=1" && / GoBlock reason="sleep"/ { n++ } END { print n + 0 }'
}
valid() { "$top/build/tools/gotracevalidate" <"$1" >/dev/null 2>&1 && echo yes || echo no; }

rows=()
pct() { awk -v k="$1" -v c="$2" 'BEGIN { printf "%.1f", c ? 100 * k / c : 0 }'; }
row() { # row END COUNTED KEPT VALID [KEPT_AFTER_RECOVER VALID_AFTER]
    local p r="| - | - |"
    p=$(pct "$3" "$2")
    [ $# -gt 4 ] && r="| $5 ($(pct "$5" "$2") %) | $6 |"
    rows+=("| $1 | $2 | $3 | $p % | $4 $r")
    echo "kept: $1: $3 of $2 sleeps ($p %), valid: $4; after recover: ${5:--} valid: ${6:--}"
}

for t in 0.05 0.1 0.2 0.3 0.5 0.7 0.9 1.1 1.3 1.5 1.8 2.0 2.3 2.6 3.0 3.3 3.7 4.1 4.5 5.0; do
    rm -f "$B/k.trace" "$B/k.counts"
    GOTRACE_OUT=$B/k.trace LD_PRELOAD=$LIB "$B/fatal_end" wait "$B/k.counts" &
    pid=$!
    sleep "$t"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    n=$(counted "$B/k.counts")
    k=$(kept "$B/k.trace")
    v=$(valid "$B/k.trace")
    "$top/build/gotrace" recover "$B/k.trace" >/dev/null 2>&1 || true
    row "SIGKILL at $t s" "$n" "$k" "$v" "$(kept "$B/k.trace")" "$(valid "$B/k.trace")"
done
for how in TERM SEGV abort; do
    rm -f "$B/k.trace" "$B/k.counts"
    (ulimit -c 0; GOTRACE_OUT=$B/k.trace LD_PRELOAD=$LIB "$B/fatal_end" "$how" "$B/k.counts") || true
    row "$how at 0.3 s" "$(counted "$B/k.counts")" "$(kept "$B/k.trace")" "$(valid "$B/k.trace")"
done

{
    echo "Measured $(date -u +%Y-%m-%d) by \`make bench-kept\` on $(nproc) CPUs (default period 1 s):"
    echo
    echo "| end | sleeps counted | in the trace | kept | valid | after \`gotrace recover\` | valid |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} | results_section "$RESULTS" kept kept.sh "## What a bad end keeps (issue 17)"
