# robust_mlock: a real-time program's mlockall (issue 44, item 3; preload/util/memlock.h).
# progs/mlock_all locks its memory (MCL_CURRENT|MCL_FUTURE, then MCL_CURRENT alone), runs two
# threads (the tracer's flusher thread starts then, after the lock), unlocks, and prints
# mlockall's result and VmLck after each step. Traced, the result is the untraced one and each
# VmLck within 16 MiB of the untraced one (it was 1 GiB more: the live file, read into tmpfs and
# locked). Then, as a user without CAP_IPC_LOCK (nobody when run as root) under an
# RLIMIT_MEMLOCK of 8 MiB: mlockall succeeds traced as untraced (the tracer's memory made the
# program's exceed the limit: ENOMEM), and under 1 MiB and 0 it fails as untraced (ENOMEM,
# EPERM), the same VmLck each time. Every trace valid.

[ -z "$GT_SANITIZER" ] || skip_case "a sanitizer's shadow memory is not locked in a test"
prog=$(build_prog mlock_all)

# same_as_untraced WHAT PLAIN TRACED: the outputs of an untraced and a traced run agree.
same_as_untraced() {
    local what=$1 plain=$2 traced=$3 a b i
    assert_eq "$(grep '^mlockall' "$traced")" "$(grep '^mlockall' "$plain")" "$what: mlockall"
    mapfile -t a < <(awk '/^VmLck/ { print $(NF - 1) }' "$plain")
    mapfile -t b < <(awk '/^VmLck/ { print $(NF - 1) }' "$traced")
    assert_eq "${#a[@]} ${#b[@]}" "3 3" "$what: VmLck lines untraced and traced"
    for i in 0 1 2; do
        echo "$what: VmLck ${a[i]} kB untraced, ${b[i]} kB traced"
        assert_le "${b[i]}" "$((a[i] + 16384))" "$what: VmLck traced (kB), step $((i + 1))"
        assert_ge "${b[i]}" "$((a[i] - 16384))" "$what: VmLck traced (kB), step $((i + 1))"
    done
}

for flags in current,future current; do
    plain_run "plain-$flags" -- "$prog" "$flags"
    expect_status "mlock_all $flags untraced" 0
    plain=$RUN_OUT
    trace_run "traced-$flags" -- "$prog" "$flags"
    expect_status "mlock_all $flags traced" 0
    same_as_untraced "$flags" "$plain" "$RUN_OUT"
    validate "$RUN_TRACE"
done

# The limited runs: the tracer loaded inside prlimit (and setpriv), its trace in a directory the
# user may write.
as_user=()
if [ "$(id -u)" = 0 ]; then
    as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
if ! command -v prlimit >/dev/null || ! command -v "${as_user[0]:-test}" >/dev/null; then
    skip_part "limited runs not run: no prlimit, or no setpriv to leave root"
    exit 0
fi
if ! "${as_user[@]}" test -x "$prog" -a -r "$GT_LIB"; then
    skip_part "limited runs not run: ${as_user[*]:-this user} cannot reach $GT_BUILD"
    exit 0
fi
udir=$CASE_DIR/user
mkdir -p "$udir"
chmod 1777 "$udir"
for lim in 8388608 1048576 0; do
    limited=("${as_user[@]}" prlimit "--memlock=$lim")
    plain_run "plain-$lim" -- "${limited[@]}" "$prog" current,future
    expect_status "mlock_all under $lim bytes untraced" 0
    plain=$RUN_OUT
    plain_run "traced-$lim" -- "${limited[@]}" env "LD_PRELOAD=$GT_PRELOAD" \
        "GOTRACE_OUT=$udir/$lim.trace" GOTRACE_SYMCACHE=0 "$prog" current,future
    expect_status "mlock_all under $lim bytes traced" 0
    same_as_untraced "limit $lim" "$plain" "$RUN_OUT"
    assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "gotrace: lines under $lim bytes"
    validate "$udir/$lim.trace"
done
assert_contains "$CASE_DIR/plain-8388608.out" "mlockall: ok" "untraced under 8 MiB"
assert_contains "$CASE_DIR/plain-1048576.out" "mlockall: ENOMEM" "untraced under 1 MiB"
assert_contains "$CASE_DIR/plain-0.out" "mlockall: EPERM" "untraced under 0"
