# merge_locks: lock tracking and sync objects on a merged process tree (docs/processes.md, "merge:
# the design"; docs/locks.md section 7). Answers known from the programs' design:
# - progs/lockorder.c family, recorded with GOTRACE_LOCK_ORDER=1 GOTRACE_LOCK_HOLDS=1: the parent
#   and a child it forks before taking any lock each run abba, holds and exit_held, with the same
#   lock names at the same addresses. The merged trace's `locks --order`, `locks --holds` and
#   held-at-exit listings say for each process exactly what its own trace says, but for the
#   process in the lock and thread names, goroutine numbers and times since the trace's start
#   (hold numbers and durations alike: carried in ns): 4 locks, 4 edges, 2 inversions (one per
#   process, of its lock_a and lock_b), hold_lock with 20 acquisitions and 20 owner changes in
#   each, quit_lock held at grab_and_quit's exit once per process (`hangs` too). Before
#   2026-12-07 merge dropped these records (and stopped reading a generation's records at them).
# - progs/locks.c chain run twice at once by a shell: each process's chain_lock is an object of
#   its own in the merged `locks --holders` and `contention` (2 waits each, blamed on that
#   process's chain_first and chain_second), said as on the process's own trace; a merge of one
#   file keeps the names as they are.
# - a trace whose sync batch holds a record of a type merge does not know is refused, naming the
#   type (its length is unknown: it could be neither carried nor skipped).
# - a program killed by SIGKILL under record: its recovered trace names its program, so the merged
#   trace shows its threads as fatal_end[PID] (they were named by the file, PID-exec1.trace).
# itest-timeout: 120

source "$GT_ROOT/test/integration/lib_locks.sh"
G=$GT_BUILD/gotrace
cd "$CASE_DIR"

# per_proc OWN|TAG: stdin (a `locks --order` or `--holds` output) as the lines that concern one
# process, comparable between its own trace (OWN: everything) and the merged one (TAG, e.g.
# lockorder[123]: the paragraphs and held-at-exit lines naming it): without the header, the
# process in names, goroutine numbers, list ranks and exit times; paragraphs sorted.
per_proc() {
    python3 -c '
import re, sys
tag = sys.argv[1]
own = tag == "OWN"
out = []
for para in sys.stdin.read().split("\n\n"):
    lines = [l for l in para.split("\n") if l]
    if not lines or lines[0].startswith("trace: "):
        continue
    if lines[0].startswith("held at thread exit:"):
        lines = [l for l in lines[1:] if own or tag in l]
    elif not own and tag not in lines[0]:
        continue
    text = "\n".join(lines)
    if not own:
        text = text.replace(" in " + tag, "").replace(tag + " ", "")
    text = re.sub(r"\(G\d+\)", "(G)", text)
    text = re.sub(r"^(inversion |#)\d+", r"\1N", text, flags=re.M)
    text = re.sub(r"exited at [0-9.]+[a-z]+", "exited at T", text)
    out.append(text)
print("\n\n".join(sorted(out)))
' "$1"
}

# 1. Lock order, holds and exits of two processes.
prog=$(build_prog lockorder)
rc=0
GOTRACE_LOCK_ORDER=1 GOTRACE_LOCK_HOLDS=1 "$G" record -o fam.trace -- "$prog" family \
    >fam.out 2>fam.err || rc=$?
assert_eq "$rc" 0 "record's status for lockorder family"
assert_eq "$(grep -c 'quit_lock still held: 1' fam.out)" 2 "both processes' own view"
validate fam.trace
own=(fam.trace.d/*.trace)
assert_eq "${#own[@]}" 2 "process traces of lockorder family"
"$G" locks --order fam.trace >fam.order || fail "locks --order on the merged trace failed"
"$G" locks --holds fam.trace >fam.holds || fail "locks --holds on the merged trace failed"
"$G" hangs fam.trace >fam.hangs || fail "hangs on the merged trace failed"
assert_contains fam.order "lock order: 4 locks, 4 edges, 2 inversions" "the merged graph"
assert_contains fam.holds "lock holds: 8 locks" "the merged holds"
for f in "${own[@]}"; do
    validate "$f"
    pid=$(basename "$f" .trace)
    tag="lockorder[$pid]"
    "$G" locks --order "$f" >"$f.order"
    "$G" locks --holds "$f" >"$f.holds"
    assert_contains "$f.order" "lock order: 2 locks, 2 edges, 1 inversions" "$tag's own graph"
    grep -qF "inversion 1: mutex lock_b -> mutex lock_a -> mutex lock_b" "$f.order" ||
        grep -qF "inversion 1: mutex lock_a -> mutex lock_b -> mutex lock_a" "$f.order" ||
        fail "$tag's own inversion: $(grep '^inversion' "$f.order")"
    assert_eq "$(grep -oF "in $tag -> mutex lock_" fam.order | wc -l)" 2 "$tag's locks in its merged inversion"
    grep -qE "^#[0-9]+  mutex hold_lock in lockorder\\[$pid\\]  acquisitions=20  owner changes=20  " fam.holds ||
        fail "$tag's hold_lock in the merged holds: $(grep hold_lock fam.holds)"
    grep -qE "^  lockorder\\[$pid\\] grab_and_quit \\(G[0-9]+\\) exited at .* holding mutex quit_lock in lockorder\\[$pid\\], taken at grab_and_quit " fam.hangs ||
        fail "hangs on the merged trace does not list $tag's quit_lock held at exit"
    for k in order holds; do
        per_proc OWN <"$f.$k" >"$f.$k.own"
        per_proc "$tag" <"fam.$k" >"$f.$k.merged"
        [ -s "$f.$k.own" ] || fail "$tag's own locks --$k says nothing"
        diff "$f.$k.own" "$f.$k.merged" >"$f.$k.diff" ||
            fail "locks --$k of $tag differs in the merged trace: $(head -c 600 "$f.$k.diff")"
    done
done

# 2. Two processes' private locks of one name stay two objects.
# block LOCKS NAME PID: object NAME's block of a `locks --holders` output, without durations,
# goroutine numbers, rank and process PID, as on the process's own trace.
block() {
    awk -v n="$2" '/^#[0-9]+  / { on = index($0, n "  waits=") > 0 } on' "$1" |
        sed -E "s/[0-9.]+(ns|us|ms|s)\\b//g; s/G[0-9]+/G/g; s/ in locks\\[$3\\]//; s/locks\\[$3\\] //g; s/^#[0-9]+/#/"
}
locks=$(build_prog locks)
rc=0
"$G" record -o two.trace -- sh -c "$locks chain & $locks chain; wait" >two.out 2>two.err || rc=$?
assert_eq "$rc" 0 "record's status for two locks chain"
validate two.trace
"$G" contention two.trace >two.cont || fail "contention on the merged trace failed"
n=0
for f in two.trace.d/*.trace; do
    "$G" summary "$f" | grep -q chain_first || continue
    n=$((n + 1))
    pid=$(basename "$f" .trace)
    pid=${pid%-exec*}
    name="mutex chain_lock in locks[$pid]"
    assert_eq "$(lock_field two.trace "$name" waits)" 2 "waits on $name in the merged trace"
    assert_eq "$(lock_field "$f" "mutex chain_lock" waits)" 2 "waits on chain_lock in its own trace"
    block "$f.locks" "mutex chain_lock" "$pid" >"$f.block"
    block two.trace.locks "$name" "$pid" >"$f.merged"
    grep -q "held by chain_first" "$f.block" || fail "no holder on locks[$pid]'s own trace"
    diff "$f.block" "$f.merged" >"$f.diff" ||
        fail "locks[$pid]'s chain_lock differs in the merged trace: $(head -c 600 "$f.diff")"
    assert_eq "$(awk -v n="#  sync: $name  waits=" '{ s = $0; sub(/^#[0-9]+/, "#", s) }
        index(s, n) == 1 { sub(/.*waits=/, "", s); w += s + 0 } END { print w + 0 }' two.cont)" 2 \
        "contention's waits on $name (second's and third's sites)"
    "$G" merge -o "$f.one" "$f" 2>/dev/null || fail "merge of one file failed"
    assert_eq "$(lock_field "$f.one" "mutex chain_lock" waits)" 2 "chain_lock in a merge of one file"
done
assert_eq "$n" 2 "locks processes in two.trace.d"
if grep -q "chain_lock  waits" two.trace.locks; then fail "an unqualified chain_lock in the merged trace"; fi

# 3. A sync record of a type merge does not know stops the merge, named.
python3 - "${own[0]}" bad.trace <<'PY' || fail "no sync batch to patch"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
def uv(p):
    v = s = 0
    while True:
        c = b[p]; p += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, p
p = 16
while p < len(b):
    exp = b[p + 1] if b[p] == 49 else 0
    p += 2 if exp else 1
    for _ in range(3):
        _, p = uv(p)
    n, p = uv(p)
    if exp == 7 and n:
        b[p] = 0x7f  # the first record's type
        open(sys.argv[2], "wb").write(b)
        sys.exit(0)
    p += n
sys.exit(1)
PY
validate bad.trace
rc=0
"$G" merge -o badm.trace bad.trace "${own[1]}" 2>bad.err || rc=$?
assert_eq "$rc" 1 "merge's status for an unknown sync record"
assert_contains bad.err "sync record of type 127 is not known to this merge" "merge's message"
assert_contains bad.err "bad.trace" "merge's message names the input"

# 4. A program killed under record is named by its program in the merged trace.
fe=$(build_prog fatal_end)
rc=0
"$G" record -o k.trace -- sh -c "$fe wait $CASE_DIR/k.counts; true" >k.out 2>k.err &
rpid=$!
for ((i = 0; i < 600; i++)); do
    [ -s k.counts ] && [ "$(od -An -t d8 -N 16 k.counts | awk '{ print $1 + $2 }')" -ge 20 ] && break
    sleep 0.05
done
pkill -KILL -f "^$fe wait $CASE_DIR/k.counts" || fail "no fatal_end to kill"
wait "$rpid" || rc=$?
assert_eq "$rc" 0 "record's status (the shell's)"
assert_contains k.err "recovered" "record's recover"
# record's stdout is the program's alone (it printed nothing): the recovery's line goes to stderr
assert_eq "$(cat k.out)" "" "record's stdout with a process recovered"
validate k.trace
"$G" summary k.trace >k.sum
assert_eq "$(grep -cE '^fatal_end\[[0-9]+\] ' k.sum)" 3 "fatal_end's threads named by its program"
if grep -q '\.trace' <(sed 1d k.sum); then fail "a thread named by its file: $(grep '\.trace' k.sum)"; fi
