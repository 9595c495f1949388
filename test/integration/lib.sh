# lib.sh: helpers for the integration cases (test/integration/cases/*.sh), sourced by run.sh
# before each case. Not executable on its own.
#
# What it gives a case:
#   build_prog NAME            compile progs/NAME.c (or .cc) into build/itest/bin/NAME, print path
#                              (with -D_GNU_SOURCE, or the flags of the source's "itest-cflags:" line)
#   trace_run TAG [V=X..] -- PROG ARGS   run PROG traced (LD_PRELOAD, GOTRACE_OUT=$CASE_DIR/TAG.trace)
#   plain_run TAG [V=X..] -- PROG ARGS   same, untraced (with only the sanitizer runtime preloaded
#                              under make test-sanitize); both set RUN_STATUS/RUN_OUT/RUN_ERR/RUN_TRACE
#   trace_start_bg TAG [V=X..] -- PROG   start traced in the background (RUN_PID), killed at case exit
#   validate FILE              gotracevalidate < FILE, fail with its message (is_valid: status)
#   generations FILE           number of generations in FILE (gotraceraw batch gen numbers)
#   transitions FILE           parse `go tool trace -d=1` once into FILE.trans (TSV, see below)
#   count_trans FILE FROM TO [GID]       goroutine transitions FROM->TO (status ones ignored)
#   count_reason FILE GID TEXT           Running->Waiting of GID whose reason contains TEXT
#   gids_started_at FILE FUNC            goroutines whose creation names start routine FUNC
#   creator_stack FILE GID / start_stack FILE GID   frames of GID's creation ("|"-separated)
#   gid_sequence FILE GID      GID's transitions in order, "FROM->TO" per line
#   check_balanced FILE        each G created <= 1, ends <= 1, wakes as often as it blocks
#   stack_frames_outside_creations FILE, max_stack_depth FILE   for GOTRACE_STACKS=0
#   wait_for_generations FILE PID N      poll a growing trace (bounded) for N generations
#   d1_count FILE ERE          lines of the -d=1 output matching ERE (events, labels, samples)
#   expect_status WHAT N, gotrace_lines FILE ("gotrace:" lines on a stderr capture)
#   live_files_of PREFIX       "LIVE PATH" per live file on /dev/shm whose trace path starts so
#   fail MSG, assert_eq, assert_ge, assert_le, assert_contains, assert_true
#   skip_case REASON           end the case here, skipped (run.sh prints "SKIP name: REASON")
#   stacks_on                  stack capture is on for the whole run (not GOTRACE_STACKS=0)
#   stack_checks_follow        the checks after it read stacks: with stack capture off for the
#                              whole run (GOTRACE_STACKS=0: make test-tsan), end the case here
#                              as passed, noted "stack checks skipped"
#   skip_part NOTE             a part of the case is not run here: passed, noted
#   GT_SANITIZER               asan or tsan under make test-sanitize (GOTRACE_SANITIZER), else ""
#
# Invariants: every helper that runs a program bounds it with `timeout`; a case fails through
# `fail` (first reason wins, kept in $CASE_DIR/reason for run.sh) or through any failing
# command (set -e; the ERR trap records the line and command); a case ends early and passes
# only through skip_case or stack_checks_follow; these and skip_part leave their note in
# $CASE_DIR/skipped.
# Under a sanitizer, a run (gt_run) whose stderr holds a sanitizer report fails the case. Transitions whose from-state is
# Undetermined, or equal to the to-state, are generation-start statuses or mid-generation
# status fix-ups; the counting helpers never count them.
#
# FILE.trans columns (tab-separated): gid from to reason tstack stack m
#   tstack = TransitionStack frames, stack = Stack frames, innermost first, joined with "|".
#   For a creation (NotExist->Runnable) tstack is the new goroutine's start stack and stack
#   the creator's stack.

GT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GT_BUILD=$GT_ROOT/build
GT_LIB=${GOTRACE_LIB:-$GT_BUILD/libgotrace.so} # make test-sanitize: a sanitizer build
GT_PRELOAD=${GOTRACE_PRELOAD:-$GT_LIB}          # ...followed by its runtime
GT_PLAIN_PRELOAD=${GOTRACE_PLAIN_PRELOAD:-}     # ...which untraced runs preload alone
GT_SANITIZER=${GOTRACE_SANITIZER:-}             # ...named: asan or tsan
GT_VALIDATE=$GT_BUILD/tools/gotracevalidate
GT_RAW=$GT_BUILD/tools/gotraceraw
GT_GO=${GT_GO:-/usr/lib/go-1.23/bin/go}
GT_PROGS=$GT_ROOT/test/integration/progs
GT_BIN=$GT_BUILD/itest/bin
RUN_TIMEOUT=${RUN_TIMEOUT:-60} # seconds, per program run
export GOCACHE=$GT_BUILD/gocache GOTOOLCHAIN=local GOFLAGS=-mod=mod

: "${CASE_NAME:=adhoc}"
: "${CASE_DIR:=$GT_BUILD/itest/$CASE_NAME}"
mkdir -p "$CASE_DIR" "$GT_BIN"

# ---- failing ----

# fail MSG: records MSG as the case's failure reason (first one wins) and exits.
fail() {
    [ -s "$CASE_DIR/reason" ] || printf '%s\n' "$*" >"$CASE_DIR/reason"
    echo "FAIL: $*" >&2
    exit 1
}

gt_on_err() { # records only in the case's own shell: subshells report through their caller
    local rc=$1 line=$2 cmd=$3
    [ "$BASH_SUBSHELL" = 0 ] || return 0
    [ -s "$CASE_DIR/reason" ] ||
        printf 'line %s: `%s` exited with status %s\n' "$line" "$cmd" "$rc" >"$CASE_DIR/reason"
}

GT_BG_PIDS=()
gt_cleanup() {
    local p
    for p in "${GT_BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
}
set -E
trap 'gt_on_err $? $LINENO "$BASH_COMMAND"' ERR
trap gt_cleanup EXIT
trap 'gt_cleanup; exit 143' TERM INT

# ---- ending early ----

# skip_case REASON: the case cannot run here (a sanitizer's limits); it ends, skipped.
skip_case() {
    printf 'SKIP: %s\n' "$*" >"$CASE_DIR/skipped"
    echo "skipped: $*"
    exit 0
}

# stacks_on: whether stack capture is on for the whole run.
stacks_on() { [ "${GOTRACE_STACKS:-1}" != 0 ]; }

# stack_checks_follow: ends the case, passed with a note, when stack capture is off for the
# whole run; the programs already ran and their non-stack checks held.
stack_checks_follow() {
    ! stacks_on || return 0
    skip_part "stack checks skipped: GOTRACE_STACKS=0"
    exit 0
}

# skip_part NOTE: a part of the case is not run here (a sanitizer's limits); run.sh shows NOTE.
skip_part() {
    echo "$*" >>"$CASE_DIR/skipped"
    echo "$*"
}

# ---- assertions (WHAT describes the quantity, for the message) ----

assert_eq() { [ "$1" = "$2" ] || fail "$3: got $1, expected $2"; }
assert_ge() { [ "$1" -ge "$2" ] || fail "$3: got $1, expected >= $2"; }
assert_le() { [ "$1" -le "$2" ] || fail "$3: got $1, expected <= $2"; }
assert_true() { # assert_true WHAT CMD...
    local what=$1
    shift
    "$@" || fail "$what"
}
assert_contains() { # assert_contains FILE TEXT WHAT
    grep -qF -- "$2" "$1" || fail "$3: \"$2\" not found in $1"
}

# ---- building and running programs ----

# build_prog NAME: compiles progs/NAME.c or progs/NAME.cc (when newer than the binary) and
# prints the binary's path. A source that has a line "/* itest-cflags: FLAGS */" is built with
# FLAGS instead of -D_GNU_SOURCE (a strict-C build: -std=c99 -D_POSIX_C_SOURCE=200809L).
build_prog() {
    local name=$1 src out=$GT_BIN/$1 compiler flags
    if [ -f "$GT_PROGS/$name.c" ]; then
        src=$GT_PROGS/$name.c
        compiler=${CC:-cc}
    elif [ -f "$GT_PROGS/$name.cc" ]; then
        src=$GT_PROGS/$name.cc
        compiler=${CXX:-c++}
    else
        fail "no program $GT_PROGS/$name.c or .cc"
    fi
    flags=$(sed -n 's|^/\* itest-cflags: \(.*\) \*/$|\1|p' "$src" | head -n1)
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        # (flags unquoted: its words are separate arguments)
        "$compiler" -O1 -g -pthread ${flags:--D_GNU_SOURCE} -Wall -o "$out.tmp" "$src" 2>"$CASE_DIR/build-$name.log" ||
            fail "cannot build $name: $(head -c 300 "$CASE_DIR/build-$name.log")"
        mv "$out.tmp" "$out"
    fi
    printf '%s\n' "$out"
}

# omp_build CC SRC BIN: SRC built with CC -fopenmp into BIN; else 1, the part skipped and said
# (CC missing or failing, or clang under TSan: libomp races under its runtime alone, untraced).
omp_build() {
    if [ "$1" = clang ] && [ "$GT_SANITIZER" = tsan ]; then
        skip_part "clang: libomp races under the TSan runtime alone, untraced"
        return 1
    fi
    if ! command -v "$1" >/dev/null ||
        ! "$1" -O1 -g -fopenmp -I"$GT_PROGS" -o "$3" "$2" 2>>"$CASE_DIR/build.log"; then
        skip_part "$1 -fopenmp: not built"
        return 1
    fi
}

# gt_split_env ARGS...: sets GT_ENV (VAR=VAL words before "--") and GT_CMD (the rest).
gt_split_env() {
    GT_ENV=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        GT_ENV+=("$1")
        shift
    done
    [ "${1:-}" = "--" ] || fail "missing -- before the program"
    shift
    [ $# -gt 0 ] || fail "no program to run"
    GT_CMD=("$@")
}

gt_run() { # gt_run TAG traced(0/1) ENV... -- CMD...
    local tag=$1 traced=$2
    shift 2
    gt_split_env "$@"
    RUN_OUT=$CASE_DIR/$tag.out
    RUN_ERR=$CASE_DIR/$tag.err
    RUN_TRACE=$CASE_DIR/$tag.trace
    rm -f "$RUN_TRACE" "$RUN_TRACE".* "$RUN_OUT" "$RUN_ERR"
    local pre=()
    if [ "$traced" = 1 ]; then
        pre=("LD_PRELOAD=$GT_PRELOAD" "GOTRACE_OUT=$RUN_TRACE")
    elif [ -n "$GT_PLAIN_PRELOAD" ]; then
        pre=("LD_PRELOAD=$GT_PLAIN_PRELOAD")
    fi
    RUN_STATUS=0
    timeout -k 5 "$RUN_TIMEOUT" env "${pre[@]}" "${GT_ENV[@]}" "${GT_CMD[@]}" \
        >"$RUN_OUT" 2>"$RUN_ERR" </dev/null || RUN_STATUS=$?
    if [ "$RUN_STATUS" = 124 ] || [ "$RUN_STATUS" = 137 ]; then
        fail "$tag: ${GT_CMD[*]} did not finish within ${RUN_TIMEOUT}s (status $RUN_STATUS)"
    fi
    gt_no_sanitizer_report "$tag" "$RUN_ERR"
}

# gt_no_sanitizer_report TAG FILE: under a sanitizer, FILE (a run's stderr) holds no report.
gt_no_sanitizer_report() {
    [ -n "$GT_SANITIZER" ] || return 0
    local first
    first=$(grep -m1 -E '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: AddressSanitizer|SUMMARY: (Address|Undefined|Thread)Sanitizer)|runtime error:' "$2" || true)
    [ -z "$first" ] || fail "$1: sanitizer report: $first (see $(basename "$2"))"
}

trace_run() {
    [ -f "$GT_LIB" ] || fail "$GT_LIB missing (make all)"
    gt_run "$1" 1 "${@:2}"
}
plain_run() { gt_run "$1" 0 "${@:2}"; }

# trace_start_bg TAG ENV... -- CMD...: starts CMD traced in the background; sets RUN_PID,
# RUN_TRACE, RUN_OUT, RUN_ERR. The process is killed when the case ends.
trace_start_bg() {
    local tag=$1
    shift
    gt_split_env "$@"
    RUN_OUT=$CASE_DIR/$tag.out
    RUN_ERR=$CASE_DIR/$tag.err
    RUN_TRACE=$CASE_DIR/$tag.trace
    rm -f "$RUN_TRACE" "$RUN_TRACE".* "$RUN_OUT" "$RUN_ERR"
    env "LD_PRELOAD=$GT_PRELOAD" "GOTRACE_OUT=$RUN_TRACE" "${GT_ENV[@]}" "${GT_CMD[@]}" \
        >"$RUN_OUT" 2>"$RUN_ERR" </dev/null &
    RUN_PID=$!
    GT_BG_PIDS+=("$RUN_PID")
}

# expect_status WHAT WANT: RUN_STATUS of the last run must be WANT.
expect_status() {
    [ "$RUN_STATUS" = "$2" ] ||
        fail "$1 exited with status $RUN_STATUS, expected $2; stderr: $(head -c 300 "$RUN_ERR")"
}

# gotrace_lines FILE: the lines of FILE starting with "gotrace:".
gotrace_lines() { grep -c '^gotrace:' "$1" || true; }

# live_files_of PREFIX: one line "LIVE PATH" for each live file on /dev/shm whose trace path (its
# head's out_path, at byte 64: common/gt_live.h) begins with PREFIX.
live_files_of() {
    local f out
    for f in /dev/shm/gotrace.*.live; do
        [ -f "$f" ] || continue
        out=$(dd if="$f" bs=64 skip=1 count=64 2>/dev/null | tr '\0' '\n' | head -n1)
        case $out in "$1"*) echo "$f $out" ;; esac
    done
}

# ---- looking at traces ----

# is_valid FILE: status of gotracevalidate on FILE, nothing recorded.
is_valid() { [ -s "$1" ] && timeout 60 "$GT_VALIDATE" <"$1" >/dev/null 2>&1; }

# validate FILE: the trace must exist and pass gotracevalidate.
validate() {
    local f=$1 msg
    [ -s "$f" ] || fail "trace $f missing or empty"
    if ! msg=$(timeout 60 "$GT_VALIDATE" <"$f" 2>&1); then
        fail "$(basename "$f") does not validate: $(printf '%s' "$msg" | head -c 400 | tr '\n' ' ')"
    fi
}

# generations FILE: number of generations, counted from the batch headers that gotraceraw
# prints (a new generation starts where a batch's gen number changes). Reads as far as the
# file parses, so it also works on a file that is being written.
generations() {
    { timeout 60 "$GT_RAW" bytes2text <"$1" 2>/dev/null || true; } |
        awk '/^(EventBatch|ExperimentalBatch) / {
                 if (match($0, / gen=[0-9]+/)) {
                     g = substr($0, RSTART + 5, RLENGTH - 5) + 0
                     if (n == 0 || g != last) n++
                     last = g
                 }
             }
             END { print n + 0 }'
}

# transitions FILE: writes FILE.d1 (go tool trace -d=1) and FILE.trans once per trace file.
transitions() {
    local f=$1
    if [ -s "$f.trans" ] && [ "$f.trans" -nt "$f" ]; then return 0; fi
    timeout 120 "$GT_GO" tool trace -d=1 "$f" >"$f.d1" 2>"$f.d1err" ||
        fail "go tool trace -d=1 $(basename "$f") failed: $(head -c 300 "$f.d1err")"
    awk -f "$GT_ROOT/test/integration/d1trans.awk" "$f.d1" >"$f.trans.tmp"
    mv "$f.trans.tmp" "$f.trans"
}

# d1_count FILE ERE: lines of `go tool trace -d=1` FILE matching the extended regex ERE (event
# lines look like "M=12 P=0 G=1 RegionBegin Time=... Task=1 Type=\"step\"").
d1_count() {
    transitions "$1"
    grep -cE -- "$2" "$1.d1" || true
}

# gt_trans FILE: the real transitions (no status events), after parsing once.
gt_trans() {
    transitions "$1"
    awk -F'\t' '$2 != "Undetermined" && $2 != $3' "$1.trans"
}

# count_trans FILE FROM TO [GID]: number of FROM->TO goroutine transitions (of GID if given).
count_trans() {
    local f=$1 from=$2 to=$3 gid=${4:-}
    gt_trans "$f" >"$f.sel"
    awk -F'\t' -v from="$from" -v to="$to" -v gid="$gid" \
        '$2 == from && $3 == to && (gid == "" || $1 == gid) { n++ } END { print n + 0 }' "$f.sel"
}

# count_reason FILE GID TEXT: Running->Waiting transitions of GID whose reason contains TEXT.
count_reason() {
    local f=$1 gid=$2 text=$3
    gt_trans "$f" >"$f.sel"
    awk -F'\t' -v gid="$gid" -v text="$text" \
        '$1 == gid && $2 == "Running" && $3 == "Waiting" && index($4, text) { n++ }
         END { print n + 0 }' "$f.sel"
}

# per_gid_counts FILE FROM TO: "gid count" for every goroutine that has a creation or any
# transition, including 0 counts.
per_gid_counts() {
    local f=$1 from=$2 to=$3
    gt_trans "$f" >"$f.sel"
    awk -F'\t' -v from="$from" -v to="$to" \
        '{ seen[$1] = 1 } $2 == from && $3 == to { n[$1]++ }
         END { for (g in seen) print g, n[g] + 0 }' "$f.sel" | sort -n
}

# gids_started_at FILE FUNC: goroutines whose creation's start stack begins with frame FUNC.
gids_started_at() {
    local f=$1 fn=$2
    gt_trans "$f" >"$f.sel"
    awk -F'\t' -v fn="$fn" '$2 == "NotExist" && $3 == "Runnable" {
                                split($5, fr, "|"); if (fr[1] == fn) print $1 }' "$f.sel"
}

# start_stack FILE GID / creator_stack FILE GID: frames of GID's creation.
start_stack() {
    gt_trans "$1" | awk -F'\t' -v g="$2" '$1 == g && $2 == "NotExist" { print $5; exit }'
}
creator_stack() {
    gt_trans "$1" | awk -F'\t' -v g="$2" '$1 == g && $2 == "NotExist" { print $6; exit }'
}

# main_gid FILE: the goroutine of the program's main thread (always 1 in gotrace traces).
main_gid() { echo 1; }

# gid_sequence FILE GID: GID's transitions in trace order, one "FROM->TO" per line.
gid_sequence() {
    gt_trans "$1" | awk -F'\t' -v g="$2" '$1 == g { print $2 "->" $3 }'
}

# check_balanced FILE: every goroutine is created at most once, ends at most once, and wakes
# exactly as often as it blocks (for programs whose threads all finish their waits).
check_balanced() {
    local bad
    bad=$(gt_trans "$1" | awk -F'\t' '
        { seen[$1] = 1 }
        $2 == "NotExist" { c[$1]++ }
        $3 == "NotExist" { d[$1]++ }
        $2 == "Running" && $3 == "Waiting" { b[$1]++ }
        $2 == "Waiting" && $3 == "Runnable" { u[$1]++ }
        END {
            for (g in seen)
                if (c[g] > 1 || d[g] > 1 || b[g] + 0 != u[g] + 0)
                    printf "G%s: %d creations, %d ends, %d blocks, %d wake-ups; ", g, c[g], d[g], b[g], u[g]
        }')
    [ -z "$bad" ] || fail "unbalanced goroutines: $bad"
}

# stack_frames_outside_creations FILE: number of stack frames in the -d=1 output other than the
# start-routine stacks of creations (TransitionStack of NotExist->Runnable).
stack_frames_outside_creations() {
    transitions "$1"
    awk '/^M=/ { creation = ($0 ~ / StateTransition / && $0 ~ / NotExist->Runnable$/); sect = ""; next }
         /^TransitionStack=/ { sect = "t"; next }
         /^Stack=/ { sect = "s"; next }
         /^\t\t/ { next }
         /^\t/ { if (sect == "s" || (sect == "t" && !creation)) n++ }
         END { print n + 0 }' "$1.d1"
}

# max_stack_depth FILE: the largest frame count of any stack in the stack tables.
max_stack_depth() {
    { timeout 60 "$GT_RAW" bytes2text <"$1" 2>/dev/null || true; } |
        awk '/^Stack / && match($0, / nframes=[0-9]+/) {
                 k = substr($0, RSTART + 9, RLENGTH - 9) + 0; if (k > m) m = k }
             END { print m + 0 }'
}

# wait_for_generations FILE PID N: polls FILE (bounded, 30 s) until it holds >= N generations;
# fails if PID exits first.
wait_for_generations() {
    local f=$1 pid=$2 n=$3 i
    for ((i = 0; i < 600; i++)); do
        if [ -s "$f" ] && [ "$(generations "$f")" -ge "$n" ]; then return 0; fi
        kill -0 "$pid" 2>/dev/null || fail "traced program exited before $n generations were written"
        sleep 0.05
    done
    fail "$f did not reach $n generations within 30 s (has $(generations "$f"))"
}
