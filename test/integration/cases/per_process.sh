# per_process: what the tracer's tables cost a short process (issue 20). short_process
# initializes 1000 mutexes and writes at 300 recursion depths (32 distinct stacks once cut to
# the default 32 frames), then exits: traced, its trace is valid with its 300 writes; with
# GOTRACE_DEBUG=1 (only then) it prints the tracer's own time by part, every part counted; and it takes at most 400 minor page faults more than untraced
# (a page fault costs 2-4 us on the CI machines). Measured: about 146 more; 1,620 more when the
# string, stack, unwind-rule and sync-object tables were flat arrays touched at random (one
# page per new key), 1,300 of them even with GOTRACE_DISABLE=1 (the sync-object table). And
# /bin/true, which does nothing: at most 90 more than untraced (the tracer's start and end
# alone: 106 more when its small variables lay among its big arrays and libunwind was set up at
# start, 77 now: util/pages.h, docs/cost.md "Page faults"); and, counted exactly, at most 140
# more system calls (strace, readlink aside) and 500 K more instructions (callgrind) than
# untraced. Not checked under a sanitizer runtime, which has page faults of its own.

prog=$(build_prog short_process)
faults() { # faults ENV... -- CMD...: the minor page faults of CMD run with ENV (-1 if it failed)
    python3 - "$@" <<'PY'
import os, sys
a = sys.argv[1:]
i = a.index("--")
env = dict(os.environ)
env.update(kv.split("=", 1) for kv in a[:i])
pid = os.fork()
if pid == 0:
    os.execvpe(a[i + 1], a[i + 1:], env)
_, st, ru = os.wait4(pid, 0)
print(ru.ru_minflt if os.waitstatus_to_exitcode(st) == 0 else -1)
PY
}

trace_run traced -- "$prog"
expect_status traced 0
assert_eq "$(cat "$RUN_OUT")" "done" "output"
validate "$RUN_TRACE"
assert_eq "$("$GT_BUILD/gotrace" summary "$RUN_TRACE" | awk '$1 == "TOTAL" { print $(NF - 1) }')" 302 \
    "system calls (300 writes, open, close)"
assert_eq "$(grep -c "own time" "$RUN_ERR" || true)" 0 "a cost line without GOTRACE_DEBUG"

# The tracer's own time as it reports it at exit with GOTRACE_DEBUG=1 (util/selfcost.h): each
# part counted and timed; a walk for each distinct stack of the 302 system calls at least (the
# first capture of a stack always walks) and one a capture at most.
trace_run selfcost GOTRACE_DEBUG=1 -- "$prog"
expect_status selfcost 0
validate "$RUN_TRACE"
line=$(grep "own time here" "$RUN_ERR" || true)
echo "$line"
[ -n "$line" ] || fail "no cost line with GOTRACE_DEBUG=1"
read -r start walks t_walk rules t_rules pages t_back tables t_sym t_final forks t_forks t_child \
    extra <<<"$(echo "$line" | grep -oE '[0-9]+' | tr '\n' ' ')"
[ -n "$t_child" ] && [ -z "$extra" ] || fail "the cost line has not 13 numbers: $line"
assert_eq "$forks $t_forks $t_child" "0 0 0" "forks, their time and a forked child's set-up"
assert_ge "$start" 1 "start-up time"
assert_ge "$t_final" 1 "final write time"
assert_ge "$tables" 2 "stack tables written (the last generation and the end's)"
assert_ge "$pages" 1 "live-file pages backed"
if stacks_on; then
    distinct=$("$GT_BUILD/gotrace" dump "$RUN_TRACE" | grep -oE 'GoSyscallBegin .*stack=[0-9]+' |
        grep -oE 'stack=[0-9]+$' | sort -u | wc -l)
    assert_ge "$walks" "$distinct" "stack walks (distinct system call stacks: $distinct)"
    assert_le "$walks" 302 "stack walks (captures: 302)"
    assert_ge "$rules" 1 "new unwind rules"
    assert_ge "$t_walk" "$t_rules" "walk time, its new rules' included"
fi

if [ -z "$GT_SANITIZER" ]; then
    untraced=$(faults GOTRACE_UNUSED=1 -- "$prog" | tail -n1)
    traced=$(faults "LD_PRELOAD=$GT_PRELOAD" "GOTRACE_OUT=$CASE_DIR/faults.trace" -- "$prog" | tail -n1)
    echo "minor page faults: $untraced untraced, $traced traced"
    assert_ge "$untraced" 1 "untraced run"
    assert_ge "$traced" 1 "traced run"
    validate "$CASE_DIR/faults.trace"
    assert_le "$((traced - untraced))" 400 "page faults the tracer adds to a short process"
    untraced=$(faults GOTRACE_UNUSED=1 -- /bin/true | tail -n1)
    traced=$(faults "LD_PRELOAD=$GT_PRELOAD" "GOTRACE_OUT=$CASE_DIR/true.trace" -- /bin/true | tail -n1)
    echo "minor page faults of /bin/true: $untraced untraced, $traced traced"
    assert_ge "$untraced" 1 "untraced /bin/true"
    assert_ge "$traced" 1 "traced /bin/true"
    validate "$CASE_DIR/true.trace"
    assert_le "$((traced - untraced))" 90 "page faults the tracer adds to /bin/true"

    # Exact counts of one /bin/true (its symbol cache warm: the traced run above filled it).
    # System calls (strace -f), less the readlink calls that resolve the trace's path (one a
    # component: they follow where the tree lies): 130 more than untraced now, 147 before the
    # fatal handlers went in with one sigaction call each (stop 32). Instructions (callgrind):
    # about 350 K more, the loading of the tracer and its libraries included; a symbolization
    # with libdw at every exit (no cache) adds about 1 M.
    counted() { # counted syscalls|instructions ENV... -- CMD...: that count of one run of CMD
        local kind=$1 out=$CASE_DIR/$1.out i
        shift
        for ((i = 1; i <= $#; i++)); do [ "${!i}" = -- ] && break; done
        local envs=("${@:1:i-1}") cmd=("${@:i+1}") sets=() e
        if [ "$kind" = syscalls ]; then # the environment is the command's, not strace's
            for e in "${envs[@]}"; do sets+=(-E "$e"); done
            strace -f -c -o "$out" "${sets[@]}" "${cmd[@]}" >/dev/null 2>&1 || { echo -1; return; }
            awk '$NF == "total" { t = $4 } $NF == "readlink" { r = $4 } END { print t - r }' "$out"
        else
            env "${envs[@]}" valgrind --tool=callgrind --callgrind-out-file="$out" "${cmd[@]}" \
                >/dev/null 2>&1 || { echo -1; return; }
            awk '/^summary:/ { print $2 }' "$out"
        fi
    }
    for spec in "syscalls strace 140 system calls" "instructions valgrind 500000 instructions"; do
        read -r kind tool budget what <<<"$spec"
        if ! command -v "$tool" >/dev/null; then
            skip_part "$what not counted: $tool is not installed"
            continue
        fi
        untraced=$(counted "$kind" GOTRACE_UNUSED=1 -- /bin/true)
        traced=$(counted "$kind" "LD_PRELOAD=$GT_PRELOAD" "GOTRACE_OUT=$CASE_DIR/count.trace" \
            -- /bin/true)
        echo "$what of /bin/true: $untraced untraced, $traced traced"
        assert_ge "$untraced" 1 "untraced /bin/true under $tool"
        assert_ge "$traced" 1 "traced /bin/true under $tool"
        assert_le "$((traced - untraced))" "$budget" "$what the tracer adds to /bin/true"
    done
fi
