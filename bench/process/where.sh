#!/usr/bin/env bash
# where.sh ROUNDS OUT-DIR COMMAND...: where the time the tracer adds to a short process goes.
# Runs COMMAND ROUNDS times under the preload of the tracer's libraries alone (libnoop_libs.so)
# and ROUNDS times traced, in alternation (which goes first swaps every round), all under one
# `perf record -g -e cpu-clock` (20 kHz samples, kernel included, with call chains); each sample
# is charged to its run's variant by process id. Prints, per run, the ms each module adds traced
# (the kernel, libgotrace.so, ...), the kernel's time by cause (the system call a sample's
# kernel frames run under, or a page fault), and the kernel's (with their cause) and the
# tracer's functions that add the most, in µs.
# Alternation cancels the machine's drift, which two separate recordings do not; what is left is
# the sampling error (a few µs a row at 200 rounds) and the command's own variation: with the
# same preload in both variants, python's 100 rounds a side still differed by -2.2 to +1.4 ms a
# run, nearly all in libpython (docs/cost.md, "Where the time goes"). Read the tracer's rows, which
# are zero without it, and the kernel's functions, not the modules' totals.
# Invariants: trace files go to OUT-DIR (kept: see process.sh); exits 0 without output when
# perf cannot record (not installed, or not allowed).
# Environment: LIBS, LIB (the two preloads), GOTRACE_SYMCACHE and others pass through.
set -euo pipefail
rounds=$1 out=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
record() { # FILE CMD...
    perf record -q -g -e cpu-clock -F 20000 -o "$1" -- "${@:2}" >/dev/null 2>&1
}
record "$work/probe.data" true || exit 0
cmd=$(printf '%q ' "$@") trace=$(printf '%q' "$out/t.%p.trace")
cat >"$work/runs.sh" <<EOF
for ((i = 0; i < $rounds; i++)); do
    order="libs gotrace"; ((i % 2)) && order="gotrace libs"
    for v in \$order; do
        pre=\$LIBS; [ \$v = gotrace ] && pre=\$LIB
        GOTRACE_OUT=$trace LD_PRELOAD=\$pre $cmd >/dev/null 2>&1 &
        echo "\$! \$v" >>"$work/pids"; wait
    done
done
EOF
record "$work/perf.data" bash "$work/runs.sh"
perf script -i "$work/perf.data" -F pid,ip,sym,dso 2>/dev/null |
    awk -v rounds="$rounds" -v pids="$work/pids" '
    BEGIN {
        while ((getline line < pids) > 0) { split(line, f, " "); variant[f[1]] = f[2] }
        RS = ""; FS = "\n" # a sample: its pid, then its frames, innermost first
    }
    function frame(line, f) { # f["sym"], f["dso"] of one "ip sym (dso)" line
        sub(/^[ \t]+[0-9a-f]+ /, "", line)
        f["dso"] = line; sub(/.* \(/, "", f["dso"]); sub(/\)$/, "", f["dso"])
        sub(/.*\//, "", f["dso"])
        f["sym"] = line; sub(/ \([^(]*\)$/, "", f["sym"])
        if (f["sym"] == "") f["sym"] = "[unknown]"
    }
    {
        pid = $1; gsub(/[ \t]/, "", pid)
        if (!(pid in variant) || NF < 2) next
        v = variant[pid]
        frame($2, leaf)
        n[v]++; by_dso[v, leaf["dso"]]++; dsos[leaf["dso"]] = 1
        if (leaf["dso"] !~ /kernel/) {
            if (leaf["dso"] != "libgotrace.so") next
            key = "tracer" SUBSEP leaf["sym"]
            by_sym[v, key]++; syms[key] = 1
            next
        }
        cause = ""
        for (i = 2; i <= NF; i++) {
            frame($i, f)
            if (f["dso"] !~ /kernel/) break
            outer = f["sym"]
            if (f["sym"] ~ /^__(x64|do|se)_sys_/ && cause !~ /^system call/) {
                cause = f["sym"]; sub(/^__(x64|do|se)_sys_/, "", cause)
                cause = "system call " cause
            }
            if (f["sym"] ~ /exc_page_fault$/) cause = "page fault"
        }
        if (cause == "") cause = outer ~ /^entry_SYSCALL/ ? "system call, no frame names it" : outer
        by_cause[v, cause]++; causes[cause] = 1
        key = "kernel" SUBSEP leaf["sym"] " (" cause ")"
        by_sym[v, key]++; syms[key] = 1
    }
    function per_run(c) { return c / rounds / 20 } # ms: 20 samples a ms
    function added(a, b) { return per_run(a["gotrace", b] - a["libs", b]) }
    END {
        printf "%d rounds each; ms added a run (traced minus libraries only): %+.3f\n", rounds,
            per_run(n["gotrace"] - n["libs"])
        top = "sort -b -k2,2gr | head -6"
        for (d in dsos) printf "  module %+.3f ms  %s\n", added(by_dso, d), d | top
        close(top)
        top = "sort -b -k2,2gr | head -8"
        for (c in causes) printf "  cause  %+.3f ms  %s\n", added(by_cause, c), c | top
        close(top)
        top = "sort -b -k2,2gr | head -24"
        for (k in syms) {
            split(k, p, SUBSEP)
            printf "  %s %+7.1f µs  %s\n", p[1], 1000 * added(by_sym, k), p[2] | top
        }
    }' -
