#!/usr/bin/env bash
# demo.sh: gotrace from nothing to a trace you can open.
#   1. scripts/setup.sh installs what is missing (quick when all is there);
#   2. make builds the tracer, the decoder and the example programs;
#   3. runs examples/pipeline under the tracer, writing build/demo/pipeline.trace;
#   4. checks the trace with Go's strict validator (gotracevalidate);
#   5. prints `build/gotrace summary` of it when the decoder has that command (skipped, with a
#      note, while it does not);
#   6. writes the trace's report, build/demo/pipeline.html (gotrace report: one page to open in
#      any browser, docs/report.md), and prints the command that opens the trace in Go's viewer.
# Exits non-zero with a "demo: error:" line at the first step that fails.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
trace=build/demo/pipeline.trace
page=build/demo/pipeline.html
go_tool_trace="/usr/lib/go-1.23/bin/go tool trace"

say() { printf 'demo: %s\n' "$*"; }
die() {
    printf 'demo: error: %s\n' "$*" >&2
    exit 1
}

setup() {
    say "checking the build and test dependencies (scripts/setup.sh)"
    bash scripts/setup.sh || die "scripts/setup.sh failed"
}

build() {
    say "building (make)"
    make --no-print-directory all build/examples/pipeline || die "the build failed"
}

run_traced() {
    mkdir -p build/demo
    rm -f "$trace"
    say "running build/examples/pipeline under the tracer"
    GOTRACE_OUT="$trace" LD_PRELOAD="$top/build/libgotrace.so" build/examples/pipeline ||
        die "the traced pipeline failed (status $?)"
    [ -s "$trace" ] || die "the tracer wrote no trace at $trace"
    say "wrote $trace ($(stat -c %s "$trace") bytes)"
}

check_trace() {
    local msg
    if ! msg=$(build/tools/gotracevalidate <"$trace" 2>&1); then
        die "$trace does not validate: $msg"
    fi
    say "gotracevalidate: the trace is valid"
}

summary() {
    if build/gotrace summary --help >/dev/null 2>&1; then
        say "build/gotrace summary $trace"
        build/gotrace summary "$trace" || die "build/gotrace summary failed"
    else
        say "build/gotrace has no summary command yet; skipping the summary"
    fi
}

report() {
    build/gotrace report "$trace" -o "$page" || die "build/gotrace report failed"
    say "wrote $page: open it in a browser (no network needed)"
}

setup
build
run_traced
check_trace
summary
report
say "or open the trace in Go's viewer:"
echo "  $go_tool_trace $trace"
