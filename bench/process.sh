#!/usr/bin/env bash
# process.sh (make bench-process): what the tracer costs a short process, and a build.
# Short processes (build/bench/procbench: paired, alternating runs, medians): /bin/true,
# `gcc -c` of a one-line file (gcc, cc1, as: three processes), `python3 -c pass` (the first
# python3 on PATH whose interpreter links a libpython, else /usr/bin/python3; that one again
# with -S when it links one; then Debian's /usr/bin/python3 when that was another one), each
# untraced,
# under the do-nothing interposer (libnoop.so), under the same interposer linked with exactly
# the shared libraries libgotrace.so loads (libnoop_libs.so: the floor of "a preload that only
# loads the same libraries"), traced with the symbol cache warm (it was filled by one traced
# run before), the same without the live file of issue 17 (GOTRACE_LIVE=0), and traced without
# the cache (GOTRACE_SYMCACHE=0: every process symbolizes with libdw, as before the cache). The
# same three commands once more under callgrind and strace -f (when installed): the exact
# instructions and system calls the tracer adds, which the times cannot resolve on shared CPUs.
# /bin/true and python (-S when it links a libpython) once more, alternating under perf (when it
# can record: where.sh): which modules and functions, the kernel's and the tracer's, the added
# time goes to. The same single-process commands traced with GOTRACE_DEBUG=1
# (bench/process/inside.py): the tracer's own time
# by part, as it times itself (preload/util/selfcost.h). Then `make -j2`
# of this repository (a copy of HEAD's tree under build/bench/process/), untraced and traced
# (warm cache) in alternation, from clean each time.
# Prints the tables and rewrites the "process" section of bench/RESULTS.md.
# Invariants: builds nothing of the tracer (bench.mk does); writes only under
# build/bench/process/ and that section; deletes no trace file until it ends (each measurement
# writes into a directory of its own: on an ext4 without a journal, creating a file soon after
# many deletions costs the kernel a scan of the deleted inodes, which would be charged to the
# tracer; docs/cost.md, "Creating the trace file"); the symbol cache it uses is its own
# (build/bench/process/symcache), so the user's cache is neither read nor filled.
# Knobs: BENCH_PROC_ROUNDS (default 30: rounds per short command; python's are 3× as many: its
# run varies by milliseconds from one round to the next), BENCH_MAKE_RUNS (default 3; 0: no build),
# BENCH_LIB (another build of libgotrace.so), BENCH_RESULTS (where the section goes),
# BENCH_NO_INSTALL=1 (perf is not installed when missing).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/bench/section.sh"
B=$top/build/bench
W=$B/process
LIB=${BENCH_LIB:-$top/build/libgotrace.so}
ROUNDS=${BENCH_PROC_ROUNDS:-30}
MAKE_RUNS=${BENCH_MAKE_RUNS:-3}
RESULTS=${BENCH_RESULTS:-$top/bench/RESULTS.md}
log() { echo "bench-process: $*" >&2; }

rm -rf "$W"
mkdir -p "$W/out" "$W/symcache"
fresh_out() { # points GOTRACE_OUT at a new, empty directory (in a subshell too)
    GOTRACE_OUT=$(mktemp -d "$W/out/m.XXXXXX")/t.%p.trace
    export GOTRACE_OUT
}
CACHE=GOTRACE_SYMCACHE=$W/symcache
echo 'int one(void) { return 1; }' >"$W/one.c"

python=/usr/bin/python3
for p in $(type -ap python3); do
    real=$(command -v "$p" >/dev/null && "$p" -c 'import sys; print(sys.executable)' 2>/dev/null || true)
    if [ -n "$real" ] && ldd "$real" 2>/dev/null | grep -q libpython; then
        python=$real
        break
    fi
done
libpython=$(ldd "$python" | awk '/libpython/ { print $3 }')
pysize=$( [ -n "$libpython" ] && du -m "$libpython" | cut -f1 || echo 0)

variants=(untraced= "noop=$B/libnoop.so" "libs=$B/libnoop_libs.so" "again=$B/libnoop_libs.so"
    "gotrace=$LIB+$CACHE"
    "nolive=$LIB+$CACHE+GOTRACE_LIVE=0" "nocache=$LIB+GOTRACE_SYMCACHE=0")
rows=()
measure() { # measure ROUNDS LABEL COMMAND...
    local rounds=$1 label=$2
    shift 2
    fresh_out
    (cd "$W" && env "LD_PRELOAD=$LIB" "$CACHE" "$@" >/dev/null 2>&1) || true # fill the cache
    local out
    out=$(cd "$W" && "$B/procbench" "$rounds" "${variants[@]}" -- "$@")
    log "$label: $(echo "$out" | tr '\n' ';')"
    # columns: name wall-median q1 q3 wall-paired-difference cpu-median cpu-paired-difference
    rows+=("$(echo "$out" | awk -v label="$label ($rounds rounds)" '
        { wall[$1] = $2; dw[$1] = $5; cpu[$1] = $6; dc[$1] = $7 }
        function row(what, abs, d) {
            printf "| %s, %s | %.2f | %+.2f | %+.2f | %+.2f | %+.2f (%+.2f) | %+.2f (%+.2f) | %+.2f (%+.2f) |\n",
                label, what, abs["untraced"], d["noop"], d["libs"], d["again"] - d["libs"],
                d["gotrace"], d["gotrace"] - d["libs"],
                d["nolive"], d["nolive"] - d["libs"], d["nocache"], d["nocache"] - d["libs"]
        }
        END { row("wall", wall, dw); row("CPU", cpu, dc) }')")
}

log "short processes, $ROUNDS alternating rounds each"
measure "$ROUNDS" "/bin/true" /bin/true
measure "$ROUNDS" "gcc -c one.c (3 processes)" gcc -c one.c -o one.o
measure $((3 * ROUNDS)) "$(basename "$python") -c pass (libpython ${pysize} MB)" "$python" -c pass
# The same interpreter without its site step (-S): a site-packages .pth file runs code at every
# start (on our VMs one imports certifi), whose run varies by ±8 ms between two values and
# swamps the tracer's part; without it the run varies by ~1 ms and the big libpython's cost
# (its stacks, its symbols) resolves to ~0.1 ms (docs/cost.md, "A big libpython, resolved").
[ -n "$libpython" ] && measure $((3 * ROUNDS)) "$(basename "$python") -S -c pass (no site)" \
    "$python" -S -c pass
# What a fresh Debian 12 machine runs (its libpython is in the binary, without DWARF): steadier.
if [ "$python" != /usr/bin/python3 ] && [ -x /usr/bin/python3 ]; then
    measure $((3 * ROUNDS)) "/usr/bin/python3 -c pass (Debian's)" /usr/bin/python3 -c pass
fi

# ---- inside the process: the tracer's own time by part, as it reports it (selfcost.h) ----
inside_rows=()
inside() { # inside RUNS LABEL COMMAND...
    local runs=$1 label=$2 row
    shift 2
    fresh_out
    row=$(cd "$W" && python3 "$top/bench/process/inside.py" "$runs" "$label" "LD_PRELOAD=$LIB" \
        "$CACHE" -- "$@") && inside_rows+=("$row")
}
log "inside the process: the tracer's own time by part"
inside $((3 * ROUNDS)) "/bin/true" /bin/true
inside $((3 * ROUNDS)) "$(basename "$python") -c pass" "$python" -c pass
[ -n "$libpython" ] && inside $((3 * ROUNDS)) "$(basename "$python") -S -c pass" \
    "$python" -S -c pass
if [ "$python" != /usr/bin/python3 ] && [ -x /usr/bin/python3 ]; then
    inside $((3 * ROUNDS)) "/usr/bin/python3 -c pass (Debian's)" /usr/bin/python3 -c pass
fi

# ---- exact counts: what the time above cannot resolve on shared CPUs ----
# counts LABEL COMMAND...: the instructions (callgrind, every process of the command) and system
# calls (strace -f) of one run, under the libraries-only preload and traced (warm cache), as a
# table row. PYTHONHASHSEED=0: python's run repeats exactly.
count_rows=()
counts() {
    local label=$1 pre ir=() sc=()
    shift
    for pre in "$B/libnoop_libs.so" "$LIB"; do
        fresh_out
        (cd "$W" && env "LD_PRELOAD=$pre" "$CACHE" PYTHONHASHSEED=0 valgrind --tool=callgrind \
            --trace-children=yes --callgrind-out-file="$W/cg.%p.out" "$@" >/dev/null 2>&1) || true
        ir+=("$(cat "$W"/cg.*.out 2>/dev/null | awk '/^summary:/ { s += $2 } END { print s + 0 }')")
        (cd "$W" && env "$CACHE" PYTHONHASHSEED=0 strace -f -c -o "$W/strace.txt" \
            -E "LD_PRELOAD=$pre" "$@" >/dev/null 2>&1) || true
        sc+=("$(awk '$NF == "total" { print $4 }' "$W/strace.txt" 2>/dev/null)")
        rm -f "$W"/cg.*.out "$W/strace.txt"
    done
    count_rows+=("$(awk -v l="$label" -v a="${ir[0]}" -v b="${ir[1]}" -v c="${sc[0]:-0}" \
        -v d="${sc[1]:-0}" 'BEGIN { printf "| %s | %d | %d (+%d) | %d | %d (+%d) |", l, a, b, b - a, c, d, d - c }')")
}
count_rows_text="| not measured (valgrind or strace missing) | | | | |"
if command -v valgrind >/dev/null && command -v strace >/dev/null; then
    log "exact counts: instructions and system calls"
    counts "/bin/true" /bin/true
    counts "gcc -c one.c (3 processes)" gcc -c one.c -o one.o
    counts "$(basename "$python") -c pass" "$python" -c pass
    count_rows_text=$(printf '%s\n' "${count_rows[@]}")
fi

# ---- where the added time goes: perf samples of alternating runs, by process (where.sh) ----
where_text="not measured (perf cannot record here)"
if want_pkg perf linux-perf; then
    log "where the time goes (perf)"
    where() { # where ROUNDS COMMAND...
        local rounds=$1
        shift
        fresh_out
        echo "\$ $*"
        (cd "$W" && env "LIBS=$B/libnoop_libs.so" "LIB=$LIB" "$CACHE" PYTHONHASHSEED=0 \
            bash "$top/bench/process/where.sh" "$rounds" "${GOTRACE_OUT%/*}" "$@")
    }
    w1=$(where $((10 * ROUNDS)) /bin/true) || w1=""
    # with a libpython, without its site step (-S): that step's own variation swamps the rest
    w2=$(where $((5 * ROUNDS)) "$python" ${libpython:+-S} -c pass) || w2=""
    [ -n "$w1$w2" ] && where_text=$(printf '```\n%s\n\n%s\n```' "$w1" "$w2")
fi

# ---- make -j2 of this repository ----
make_rows="| \`make -j2\` | not run (BENCH_MAKE_RUNS=0) | | | |"
if [ "$MAKE_RUNS" -gt 0 ]; then
log "make -j2, $MAKE_RUNS alternating runs"
mkdir -p "$W/tree"
git -C "$top" archive HEAD | tar -x -C "$W/tree"
make_once() { # make_once PRELOAD [VAR=VALUE]: prints "wall-ms cpu-s traces"
    make -C "$W/tree" clean >/dev/null 2>&1
    fresh_out
    local t0 t1 cpu
    t0=$(date +%s%N)
    cpu=$( { TIMEFORMAT='%U %S'; time env ${1:+LD_PRELOAD=$1} "$CACHE" ${2:+"$2"} \
        make -C "$W/tree" -j2 >"$W/make.log" 2>&1; } 2>&1 | awk '{ print $1 + $2 }')
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000000)) $cpu $(find "${GOTRACE_OUT%/*}" -name 't.*.trace*' | wc -l)"
}
make_once "$LIB" >/dev/null # fills the cache with the compilers' frames
declare -a mu=() mt=() ml=() cu=() ct=() cl=()
procs=0
for ((i = 0; i < MAKE_RUNS; i++)); do
    read -r w c _ < <(make_once "")
    mu+=("$w") cu+=("$c")
    read -r w c procs < <(make_once "$LIB")
    mt+=("$w") ct+=("$c")
    read -r w c _ < <(make_once "$LIB" GOTRACE_LIVE=0)
    ml+=("$w") cl+=("$c")
    log "make -j2 run $((i + 1)): untraced ${mu[-1]} ms ${cu[-1]} s CPU, traced ${mt[-1]} ms ${ct[-1]} s, GOTRACE_LIVE=0 ${ml[-1]} ms ${cl[-1]} s ($procs traces)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
make_row() { # make_row LABEL WALL-UNTRACED WALL CPU-UNTRACED CPU
    awk -v l="$1" -v a="$2" -v b="$3" -v c="$4" -v d="$5" 'BEGIN {
        printf "| %s | %.2f s | %.2f s (%.2f×) | %.2f s | %.2f s (%.2f×) |\n", l, a / 1000, b / 1000, b / a, c, d, d / c }'
}
mwu=$(median "${mu[@]}") mcu=$(median "${cu[@]}")
make_rows=$(make_row "\`make -j2\` of this repository, traced ($procs processes; median of $MAKE_RUNS)" \
    "$mwu" "$(median "${mt[@]}")" "$mcu" "$(median "${ct[@]}")"
    make_row "the same, GOTRACE_LIVE=0" "$mwu" "$(median "${ml[@]}")" "$mcu" "$(median "${cl[@]}")")
rm -rf "$W/tree"
fi
rm -rf "$W/out"

# ---- the section ----
load=$(cut -d' ' -f1-3 /proc/loadavg)
{
    echo "Measured $(date +%F) by \`make bench-process\` (bench/process.sh) on $(nproc) CPUs (load average $load; the"
    echo "CPUs are shared: medians of alternating rounds, as many as each row says). ms added = the median of the paired"
    echo "differences against the untraced run of the same round, in wall time (spawn to reaped) and in CPU"
    echo "time (user + system of the process and its children); in brackets, against the preload that"
    echo "loads the same libraries (the target: ≤ 1 ms). The libraries' preload runs twice in each round:"
    echo "the difference between its two runs is what the same configuration measures against itself,"
    echo "the resolution of the other figures. The build's wall time follows the machine's load"
    echo "(other work on the shared CPUs); its CPU time (user + system of every process) is the steadier."
    echo
    echo "| command, time | untraced ms | do-nothing interposer | + its libraries | the same again, minus the first (the noise) | gotrace, warm symbol cache (vs libraries) | the same, GOTRACE_LIVE=0 (vs libraries) | gotrace, no symbol cache (vs libraries) |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "The tracer's own time inside the process, as it reports it at exit with \`GOTRACE_DEBUG=1\`"
    echo "(preload/util/selfcost.h; bench/process/inside.py): medians of that many traced runs, µs. A walk's"
    echo "time includes its new unwind rules' and its stack-table insert (with the pages it backs); the"
    echo "final write includes the last stack table's; the last column adds start-up, walks and final write"
    echo "(the hooks' time on the program's own calls and the kernel's page faults are not in it):"
    echo
    echo "| command | start-up | stack walks: n, µs (new unwind rules: n, µs) | live-file pages backed: n, µs | stack tables: n, µs | final write | start-up + walks + final |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${inside_rows[@]}"
    echo
    echo "Exact counts of one run (callgrind: instructions of every process; strace -f: system calls),"
    echo "under the preload of the same libraries and traced with the symbol cache warm:"
    echo
    echo "| command | instructions, libraries only | traced (added) | system calls, libraries only | traced (added) |"
    echo "|---|---|---|---|---|"
    echo "$count_rows_text"
    echo
    echo "Where the time added to a process goes (bench/process/where.sh: perf's samples of alternating"
    echo "runs, libraries only and traced, charged to each run by its process id):"
    echo
    echo "$where_text"
    echo
    echo "| build | untraced wall | traced wall | untraced CPU | traced CPU |"
    echo "|---|---|---|---|---|"
    echo "$make_rows"
} >"$W/section.md"
cat "$W/section.md"

results_section "$RESULTS" process process.sh "## What a process costs (issue 20)" <"$W/section.md"
