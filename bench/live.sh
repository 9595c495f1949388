#!/usr/bin/env bash
# live.sh (make bench-live): what the live file costs (issue 17: buffers, records and tables in a
# shared file on /dev/shm so that a killed process's trace can be recovered). Each workload of
# bench/workloads runs traced (stacks on) with GOTRACE_LIVE=1 and GOTRACE_LIVE=0, alternating,
# BENCH_LIVE_RUNS times (default 7); medians of wall and CPU time. Then the instructions of the
# whole traced process (callgrind, exact) for condvar and pipe, both ways. Prints a table and
# rewrites the "live" section of bench/RESULTS.md.
# Invariants: uses the workloads bench-build made; writes only build/bench/live/ and that section.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/bench/section.sh"
W=$top/build/bench
B=$W/live
LIB=${BENCH_LIB:-$top/build/libgotrace.so}
RESULTS=${BENCH_RESULTS:-$top/bench/RESULTS.md}
RUNS=${BENCH_LIVE_RUNS:-7}
mkdir -p "$B"

WORKLOADS=("mutex 40000000" "mutex_mt 40000000" "contended 20000000" "condvar 50000"
    "condvar_1cpu 200000" "pipe 300000" "churn 10000")

# one LIVE NAME N: "wall cpu" of one traced run.
one() {
    local live=$1 name=$2 n=$3 t0 t1 pin=()
    [[ $name == *_1cpu ]] && pin=(taskset -c 0)
    t0=$EPOCHREALTIME
    "${pin[@]}" /usr/bin/time -f "%U %S" -o "$B/time.out" env LD_PRELOAD="$LIB" \
        GOTRACE_OUT="$B/t.trace" GOTRACE_LIVE="$live" "$W/${name%_1cpu}" "$n" >/dev/null
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" '{ printf "%.4f %.3f\n", b - a, $1 + $2 }' "$B/time.out"
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[++n] = $1 } END { print (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }
insns() { # insns LIVE CMD...: instructions of the whole traced process
    local live=$1
    shift
    rm -f "$B/cg.out"
    GOTRACE_OUT="$B/cg.trace" GOTRACE_LIVE="$live" LD_PRELOAD="$LIB" valgrind --tool=callgrind \
        --callgrind-out-file="$B/cg.out" "$@" >/dev/null 2>&1 || true
    awk '/^summary:|^totals:/ { print $2; exit }' "$B/cg.out" 2>/dev/null || true
}

rows=()
for w in "${WORKLOADS[@]}"; do
    read -r name n <<<"$w"
    off_w=() on_w=() off_c=() on_c=()
    for ((r = 0; r < RUNS; r++)); do
        for live in $((r % 2)) $((1 - r % 2)); do # alternate which goes first
            read -r wall cpu < <(one "$live" "$name" "$n")
            if [ "$live" = 1 ]; then on_w+=("$wall") on_c+=("$cpu"); else off_w+=("$wall") off_c+=("$cpu"); fi
        done
    done
    a=$(median "${off_w[@]}") b=$(median "${on_w[@]}") c=$(median "${off_c[@]}") d=$(median "${on_c[@]}")
    rw=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%+.1f %%", 100 * (b - a) / a }')
    rc=$(awk -v a="$c" -v b="$d" 'BEGIN { printf "%+.1f %%", c = (a ? 100 * (b - a) / a : 0) }')
    rows+=("| $name $n | $a | $b | $rw | $c | $d | $rc |")
    echo "live: $name $n: wall $a -> $b s ($rw), cpu $c -> $d s ($rc)"
done
irows=()
if command -v valgrind >/dev/null; then
    for w in "condvar 5000" "pipe 20000" "churn 2000"; do
        read -r name n <<<"$w"
        i0=$(insns 0 "$W/$name" "$n")
        i1=$(insns 1 "$W/$name" "$n")
        ri=$(awk -v a="$i0" -v b="$i1" 'BEGIN { printf "%+.2f %%", 100 * (b - a) / a }')
        irows+=("| $name $n | $i0 | $i1 | $ri |")
        echo "live: $name $n: $i0 -> $i1 instructions ($ri)"
    done
fi

{
    echo "Measured $(date -u +%Y-%m-%d) by \`make bench-live\` on $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg),"
    echo "traced with stacks, GOTRACE_LIVE=0 and =1 alternating, medians of $RUNS runs:"
    echo
    echo "| workload N | wall, LIVE=0 (s) | wall, LIVE=1 (s) | change | CPU, LIVE=0 (s) | CPU, LIVE=1 (s) | change |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    if [ ${#irows[@]} -gt 0 ]; then
        echo
        echo "Instructions of the whole traced process (callgrind):"
        echo
        echo "| workload N | LIVE=0 | LIVE=1 | change |"
        echo "|---|---|---|---|"
        printf '%s\n' "${irows[@]}"
    fi
} | results_section "$RESULTS" live live.sh "## What the live file costs (issue 17)"
