#!/usr/bin/env bash
# run.sh: runs the integration cases test/integration/cases/*.sh, or those of the folder
# ITEST_CASES (make test-real: test/real/cases) (or those named on the command line, by file
# name without .sh), one after the other, each with lib.sh sourced, in
# its own work dir build/itest/<case>/ and bounded by `timeout`.
# Prints "PASS name", "PASS name (notes)" (parts not run: lib.sh's skip_part),
# "SKIP name: reason" (lib.sh's skip_case) or "FAIL name: reason" per case, then
# "N passed, M failed, S skipped" alone on a line; exits 1 if any case failed, 2 if the tools
# are missing.
# A case may set its time limit with a line "# itest-timeout: SECONDS" (default 90).
# ITEST_VERBOSE=1 prints the tail of a failing case's log.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
cases=$(cd "${ITEST_CASES:-$here/cases}" && pwd)

check_tools() {
    local t
    for t in build/tools/gotracevalidate build/tools/gotraceraw /usr/lib/go-1.23/bin/go; do
        if [ ! -x "$t" ]; then
            echo "run.sh: $t missing; run make setup" >&2
            exit 2
        fi
    done
}

case_timeout() {
    local t
    t=$(sed -n 's/^# itest-timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n1)
    echo "${t:-90}"
}

# drop_live_files DIR: removes the live files (/dev/shm, docs/robustness.md) that the case's
# killed processes left (those whose trace is under DIR, by a process that is gone): tmpfs is
# memory. Another run's files (other trace paths) are left alone.
drop_live_files() {
    local f pid out
    for f in /dev/shm/gotrace.*.live; do
        [ -f "$f" ] || continue
        out=$(dd if="$f" bs=64 skip=1 count=64 2>/dev/null | tr '\0' '\n' | head -n1) # out_path
        case $out in "$1"/*) ;; *) continue ;; esac
        pid=${f#/dev/shm/gotrace.}
        pid=${pid%%[.-]*}
        kill -0 "$pid" 2>/dev/null || rm -f "$f"
    done
}

# run_case FILE: runs one case, prints its line; returns 0 (passed), 3 (skipped) or 1.
run_case() {
    local file=$1 name dir rc=0 reason note
    name=$(basename "$file" .sh)
    dir=$root/build/itest/$name
    rm -rf "$dir"
    mkdir -p "$dir"
    CASE_NAME=$name CASE_DIR=$dir timeout -k 10 "$(case_timeout "$file")" \
        bash -c 'set -euo pipefail; source "$1"; source "$2"' _ "$here/lib.sh" "$file" \
        >"$dir/case.log" 2>&1 || rc=$?
    drop_live_files "$dir"
    if [ "$rc" = 0 ]; then
        note=$(awk 'NR > 1 { printf "; " } { printf "%s", $0 }' "$dir/skipped" 2>/dev/null || true)
        case $note in
        "") echo "PASS $name" ;;
        "SKIP: "*)
            echo "SKIP $name: ${note#SKIP: }"
            return 3
            ;;
        *) echo "PASS $name ($note)" ;;
        esac
        return 0
    fi
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        reason="timed out after $(case_timeout "$file")s"
    elif [ -s "$dir/reason" ]; then
        reason=$(head -n1 "$dir/reason")
    else
        reason="exited with status $rc"
    fi
    echo "FAIL $name: $reason (log: build/itest/$name/case.log)"
    if [ "${ITEST_VERBOSE:-0}" = 1 ]; then tail -n 20 "$dir/case.log" | sed 's/^/    /'; fi
    return 1
}

main() {
    check_tools
    local files=() f passed=0 skipped=0 failed=0 rc
    if [ $# -gt 0 ]; then
        for f in "$@"; do
            [ -f "$cases/$f.sh" ] || {
                echo "run.sh: no case $f" >&2
                exit 2
            }
            files+=("$cases/$f.sh")
        done
    else
        files=("$cases"/*.sh)
    fi
    mkdir -p build/itest
    for f in "${files[@]}"; do
        rc=0
        run_case "$f" || rc=$?
        case $rc in
        0) passed=$((passed + 1)) ;;
        3) skipped=$((skipped + 1)) ;;
        *) failed=$((failed + 1)) ;;
        esac
    done
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" = 0 ]
}

main "$@"
