#!/usr/bin/env bash
# names_table.sh LIB [OUTDIR]: runs the real programs of docs/real-programs.md traced with LIB
# (a libgotrace.so) and prints one markdown row per program: its threads' names as
# `gotrace summary` shows them (count x name), the stack frames with a source line (the
# tracer's own not counted) of all frames,
# mangled names and tracer frames in `gotrace dump --stacks`, the sync waits (blocks whose
# reason begins with "sync") and how many of them another thread's wake-up ended, and the
# trace's duration against the process's wall time. Programs not installed are left out. Used to write the doc's
# before/after table (LIB of the commit before issue 19's work, then of the current tree).
set -uo pipefail
lib=$(realpath "$1")
out=${2:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/../../.." && pwd)
gotrace=$root/build/gotrace
mkdir -p "$out"
in=$out/input
[ -s "$in" ] || python3 -c '
import random
r = random.Random(7)
for i in range(200000): print("%x %d" % (r.getrandbits(40), r.randrange(10**6)))' >"$in"
printf 'all:\n\t@true\n' >"$out/Makefile"
progs=$root/test/integration/progs
bins=$out/bin
mkdir -p "$bins"
g++ -std=c++17 -O1 -g -pthread -o "$bins/names_cxx" "$progs/names_cxx.cc" 2>/dev/null
clang++ -std=c++17 -O1 -g -pthread -o "$bins/names_cxx_clang" "$progs/names_cxx.cc" 2>/dev/null
rustc -g -C opt-level=1 -o "$bins/names_rust" "$progs/names_rust.rs" 2>/dev/null
gcc -O1 -g -fopenmp -o "$bins/names_omp" "$progs/names_omp.c" 2>/dev/null
clang -O1 -g -fopenmp -o "$bins/names_omp_clang" "$progs/names_omp.c" 2>/dev/null
clang -O1 -g -pthread -o "$bins/names_c_clang" "$progs/names_c.c" 2>/dev/null
g++ -std=c++20 -O1 -g -pthread -o "$bins/futex_cxx" "$progs/futex_cxx.cc" 2>/dev/null
rustc -g -O -o "$bins/futex_rust" "$progs/futex_rust.rs" 2>/dev/null

row() { # row NAME CMD...
    local name=$1 t=$out/$1.trace
    shift
    command -v "$1" >/dev/null || [ -x "$1" ] || return 0
    rm -f "$t"
    local t0 t1
    t0=$(date +%s%N)
    (cd "$out" && GOTRACE_OUT=$t LD_PRELOAD=$lib "$@" >/dev/null 2>&1 </dev/null)
    t1=$(date +%s%N)
    [ -s "$t" ] || return 0
    "$gotrace" dump --stacks "$t" >"$t.dump" 2>/dev/null
    "$gotrace" summary "$t" >"$t.sum" 2>/dev/null
    local names frames lines mangled tracer dur
    names=$(awk 'NR > 3 && /^[^ ]/ && !/^TOTAL/' "$t.sum" | sed -E 's/ +[0-9]+ +[0-9]+ +[0-9.]+[mun]?s .*//' |
        sort | uniq -c | sort -rn | awk '{ c = $1; $1 = ""; sub(/^ /, ""); printf "%s%s`%s`", sep, (c > 1 ? c " x " : ""), $0; sep = ", " }')
    grep -E $'^\t[^\t]' "$t.dump" | grep -vE $'^\t[a-z_]+:$' >"$t.frames"
    frames=$(grep -c . "$t.frames")
    lines=$(grep -E ':[1-9][0-9]*$' "$t.frames" | grep -vc 'preload/')
    mangled=$(grep -cE $'^\t_(Z[NSZ0-9]|R[NCM])[A-Za-z0-9_]' "$t.dump")
    tracer=$(grep -cE 'preload/|[[:space:]]tr_[a-z_]+ ' "$t.dump")
    dur=$(sed -n 's/.*duration \([^ ]*\)$/\1/p' "$t.sum" | head -n1)
    waits=$(awk '/^[0-9]+ .* GoBlock reason="sync/ { split($4, g, "="); open[g[2]] = 1; n++ }
                 /^[0-9]+ .* GoUnblock / { split($6, t, "="); split($4, g, "=")
                     if (open[t[2]] && g[2] != "-") w++; open[t[2]] = 0 }
                 END { printf "%d (%d)", n, w }' "$t.dump")
    printf '| %s | %s | %s of %s | %s | %s | %s | %s / %d ms |\n' "$name" "$names" "$lines" \
        "$frames" "$mangled" "$tracer" "$waits" "${dur:-?}" $(((t1 - t0) / 1000000))
}

echo '| program | threads (summary) | frames with a line | mangled | tracer frames | sync waits (woken) | trace / wall |'
echo '|---|---|---|---|---|---|---|'
row xz xz -T2 -0 -c "$in"
row zstd zstd -T2 -3 -c "$in"
row pigz pigz -p 2 -c "$in"
row sort sort --parallel=2 -S 1M "$in"
row make make -s -f "$out/Makefile"
row git git -C "$root" grep -c pthread_create
row sqlite3 sqlite3 :memory: 'pragma threads=2; create table t(x); with recursive c(i) as (select 1 union all select i+1 from c where i<200000) insert into t select random() from c; select count(*) from (select x from t order by x);'
row curl curl -s "file://$in"
if command -v gm >/dev/null; then
    [ -s "$out/plasma.png" ] || gm convert -size 1200x1200 plasma:fractal "$out/plasma.png"
    OMP_NUM_THREADS=2 row GraphicsMagick gm convert "$out/plasma.png" -blur 0x3 -resize 50% "$out/small.png"
fi
row ffmpeg ffmpeg -nostdin -f lavfi -i testsrc=duration=2:size=640x360:rate=25 -c:v libx264 \
    -preset ultrafast -threads 2 -f null -
row pbzip2 pbzip2 -p2 -c "$in"
row python3 "$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')" "$root/test/integration/real/threads.py"
row "C++ (g++)" "$bins/names_cxx"
row "C++ (clang++)" "$bins/names_cxx_clang"
row "Rust" "$bins/names_rust"
row "OpenMP (gcc)" "$bins/names_omp"
row "OpenMP (clang)" "$bins/names_omp_clang"
row "C (clang)" "$bins/names_c_clang"
row "C++20 waits (g++)" "$bins/futex_cxx"
row "Rust std sync" "$bins/futex_rust"
