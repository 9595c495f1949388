# processes: a whole process tree on one timeline (docs/processes.md). `gotrace record` follows
# every process the program starts and leaves ONE valid trace of them all, each process's own
# trace kept in FILE.d/; `gotrace merge` does the same for files written with
# GOTRACE_OUT=x.%p.trace. Checked with what is known from each program's design:
# - a shell pipeline `seq | sort -n | uniq | gzip`: 5 processes (the shell and a forked child per
#   command, each exec'ing it), each command one thread under its own name and pid; the pipes
#   force an order (sort cannot end before seq's last write or close of its output, its last
#   system call; uniq before sort's, gzip before uniq's), and the merged trace keeps it;
# - `make -j2` building a tiny C project (test/integration/mkproj): make, 4 gcc drivers, 3 cc1
#   and 3 as, one collect2 and one ld, one thread each; the link starts after every compile
#   and assembly ended; make's critical path runs through the link (ld) and a compile (cc1);
# - Python multiprocessing Pool(2) with fork (3 processes: the pool's, with its main thread and 3
#   handler threads, and 2 workers of one thread) and with spawn (4: the resource tracker too);
#   system('/bin/true') (once Python waits) and popen('/bin/echo hi'): a shell each, and true
#   and echo; system's child named in Python's trace (gotrace.spawn with system's stack), its
#   wait woken by the shell's exit;
# - the pipeline's files written with GOTRACE_OUT=x.%p.trace merged by `gotrace merge`, folder
#   and file list alike, and cut into 1 ms generations (many output generations, each valid).
# - a program whose lock holders are known (progs/locks.c chain) run by a shell: `locks --holders`
#   on the merged trace says what it says on the program's own trace (holders carried over),
#   but for the process in each thread's and object's name and the renumbered goroutines
#   (test/integration/cases/merge_locks.sh: lock tracking, objects of one name in two processes).
# Every merged trace validates, and Go's own reader names each thread with its process; a Go
# program's trace (events the tracer never writes) is refused with the event's name.
# itest-timeout: 240

G=$GT_BUILD/gotrace
cd "$CASE_DIR"

# images TRACE: "name[pid] threads" per process image of TRACE, sorted (summary's names).
images() {
    "$G" summary "$1" | awk '$1 ~ /\[[0-9]+\]$/ { n[$1]++ } END { for (k in n) print k, n[k] }' |
        sort
}
# pids TRACE: how many processes (distinct pids) TRACE holds.
pids() { images "$1" | sed 's/.*\[\([0-9]*\)\] .*/\1/' | sort -u | wc -l; }
# count_named TRACE NAME: how many processes of image NAME, each with one thread (else "bad").
count_named() {
    images "$1" | awk -v n="$2" 'index($1, n "[") == 1 { k++; if ($2 != 1) bad = 1 }
                                 END { print bad ? "bad" : k + 0 }'
}
# gid_of TRACE IMAGE: the goroutine of process image IMAGE's (one) thread ("sort[123]").
gid_of() { "$G" summary "$1" | awk -v n="$2" '$1 == n { print $3; exit }'; }
# last_line / first_line DUMP GID: the line of GID's last (first) event in global order.
last_line() { awk -v g="G=$2" '$4 == g { n = NR } END { print n + 0 }' "$1"; }
# last_call DUMP GID: the line of GID's last GoSyscallBegin (its last write or close of its
# output, for a filter), else of its first event.
last_call() {
    awk -v g="G=$2" '$4 == g && !f { f = NR } $4 == g && $5 == "GoSyscallBegin" { n = NR }
                     END { print n ? n : f + 0 }' "$1"
}
first_line() { awk -v g="new_g=$2" '$0 ~ (g "( |$)") { print NR; exit }' "$1"; }

# 1. The pipeline through record.
mkdir -p pipe && cd pipe
rc=0
"$G" record -o run.trace -- sh -c 'seq 1 200000 | sort -n | uniq | gzip -c > out.gz' \
    >rec.out 2>rec.err || rc=$?
assert_eq "$rc" 0 "record's status for the pipeline"
assert_eq "$(gzip -dc out.gz | wc -l)" 200000 "the pipeline's output"
validate run.trace
assert_contains rec.err "trace written to run.trace" "record's message"
assert_contains rec.err "processes on one timeline, each one's own trace in run.trace.d/" \
    "record's message names the folder"
for f in run.trace.d/*; do validate "$f"; done
assert_eq "$(pids run.trace)" 5 "processes in the pipeline's trace"
for c in seq sort uniq gzip; do
    assert_eq "$(count_named run.trace "$c")" 1 "$c processes of one thread"
done
assert_eq "$(count_named run.trace sh)" 5 "sh images (the shell and its 4 children before exec)"
"$G" dump run.trace >dump
# Each command ends after its producer's last write or close of the pipe (its last system call:
# the producer's own exit may come later, as it has nothing left to do).
prev=0
for c in seq sort uniq gzip; do
    img=$(images run.trace | awk -v n="$c" 'index($1, n "[") == 1 { print $1 }')
    g=$(gid_of run.trace "$img")
    end=$(last_line dump "$g")
    [ "$end" -gt "$prev" ] ||
        fail "$img ends at event $end, before its producer's last system call (event $prev)"
    prev=$(last_call dump "$g")
done
# The Chrome export: a process track per pid, named by its last image, each thread on its
# process's; the report: each row's process rank, equal exactly for threads of one pid.
"$G" export --format chrome run.trace -o run.json
"$G" report run.trace -o run.html
python3 - run.json run.html <<'PY' || fail "export or report without the processes"
import json, re, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name" and e["pid"] != 1}
assert sorted(re.sub(r"\[\d+\]", "", n) for n in procs.values()) == ["gzip", "seq", "sh", "sort", "uniq"], procs
assert all(n.endswith("[%d]" % p) for p, n in procs.items()), procs
tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
assert len(tracks) == 9 and all(n.split(" ")[0].endswith("[%d]" % p) for (p, t), n in tracks.items()), tracks
assert all(e["pid"] in procs for e in ev if e.get("ph") == "X"), "a slice outside the processes"
page = open(sys.argv[2]).read()
data = json.loads(re.search(r'type="application/json"[^>]*>(.*?)</script>', page, re.S).group(1))
rank = {}
for t in data["threads"]:
    pid = re.search(r"\[(\d+)\]", t[0]).group(1)
    assert rank.setdefault(pid, t[12]) == t[12], (pid, t)
assert len(set(rank.values())) == 5, rank
PY
"$G" export --format chrome "$(ls run.trace.d/*.trace | head -1)" -o one.json
assert_eq "$(grep -c '"process_name"' one.json)" 1 "process tracks of a single process's export"
# Go's reader: each thread named with its process.
assert_eq "$(gids_started_at run.trace "$(images run.trace | awk '/^sort\[/ { print $1 }') main" |
    wc -l)" 1 "go tool trace's goroutine named sort[PID] main"
cd ..

# 2. make -j2 building the tiny C project.
cp -r "$GT_ROOT/test/integration/mkproj" proj
rc=0
"$G" record -o make.trace -- make -s -j2 -C proj CC=gcc >make.out 2>make.err || rc=$?
assert_eq "$rc" 0 "record's status for make -j2"
assert_eq "$(proj/calc)" 35 "the project's program"
validate make.trace
assert_eq "$(pids make.trace)" 13 "processes of make -j2"
for c in make:1 gcc:4 cc1:3 as:3 collect2:1 ld:1; do
    assert_eq "$(count_named make.trace "${c%:*}")" "${c#*:}" "${c%:*} processes of one thread"
done
"$G" dump make.trace >make.dump
link=$(first_line make.dump "$(gid_of make.trace "$(images make.trace | awk '/^collect2\[/ { print $1 }')")")
for img in $(images make.trace | awk '/^(cc1|as)\[/ { print $1 }'); do
    end=$(last_line make.dump "$(gid_of make.trace "$img")")
    [ "$link" -gt "$end" ] || fail "the link starts at event $link, before $img ended ($end)"
done
# critical-path's default target is make's main thread, and the chain crosses into the
# processes make waited for: the link (ld) and, before it, a compile (cc1): through the waits
# for children and, at each child's start, back to its parent (docs/processes.md)
"$G" critical-path make.trace >make.cp || fail "critical-path of make -j2 failed"
head -1 make.cp | grep -q "^critical path of the main thread make\[[0-9]*\] main " ||
    fail "critical-path's target: $(head -1 make.cp)"
for img in ld cc1; do
    sed -n '/^by thread:/,/^$/p' make.cp | grep -q " $img\[[0-9]*\] main " ||
        fail "no $img on make's critical path: $(sed -n '/^by thread:/,/^$/p' make.cp | tr '\n' ' ')"
done

# 3. Python multiprocessing, fork and spawn.
py=$(python3 -c 'import sys; print(sys.executable)')
pyname=$(basename "$py")
cat >mp.py <<'EOF'
import multiprocessing as mp, sys
def work(x):
    return sum(i % (x + 1) for i in range(20000))
if __name__ == '__main__':
    mp.set_start_method(sys.argv[1])
    with mp.Pool(2) as p:
        print(sum(p.map(work, range(8))))
EOF
want=$("$py" mp.py fork)
for m in fork:3 spawn:4; do
    rc=0
    "$G" record -o "${m%:*}.trace" -- "$py" mp.py "${m%:*}" >"${m%:*}.out" 2>"${m%:*}.err" || rc=$?
    assert_eq "$rc" 0 "record's status for multiprocessing ${m%:*}"
    assert_eq "$(cat "${m%:*}.out")" "$want" "multiprocessing ${m%:*}'s output"
    validate "${m%:*}.trace"
    assert_eq "$(pids "${m%:*}.trace")" "${m#*:}" "processes of multiprocessing ${m%:*}"
    # The pool's process: main and the pool's 3 handler threads; every other one thread.
    assert_eq "$(images "${m%:*}.trace" | awk -v n="$pyname" 'index($1, n "[") == 1 { print $2 }' |
        sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" "1:$((${m#*:} - 1)) 4:1 " \
        "threads per process of multiprocessing ${m%:*}"
done

# system() and popen() (posix_spawn of /bin/sh, which runs the command): both followed.
# system's shell runs /bin/true once Python sleeps in its wait (shell builtins only: no more
# processes), so that the wait blocks.
cat >sp.py <<'EOF'
import os
os.system('while read w </proc/$PPID/wchan; [ "$w" != do_wait ]; do :; done; /bin/true')
print(os.popen('/bin/echo hi').read().strip())
EOF
rc=0
"$G" record -o sp.trace -- "$py" sp.py >sp.out 2>sp.err || rc=$?
assert_eq "$rc:$(cat sp.out)" "0:hi" "system and popen under record"
validate sp.trace
for c in "$pyname:1" sh:2 true:1 echo:1; do
    assert_eq "$(count_named sp.trace "${c%:*}")" "${c#*:}" "${c%:*} processes under system/popen"
done
# system(): Python's trace names the shell it made (gotrace.spawn, system's stack) and its wait
# for it ("wait: child PID", not running time) is woken by the shell's exit.
spid=$("$G" dump --stacks sp.trace | awk '/ key="gotrace.spawn" value="pid / {
    p = $0; sub(/.* value="pid /, "", p); sub(/".*/, "", p); getline; if ($1 == "system") print p }')
[ -n "$spid" ] || fail "no gotrace.spawn log with system's stack in Python's trace"
assert_eq "$(images sp.trace | grep -c "^sh\[$spid\] ")" 1 "the spawned shell is in the merged trace"
"$G" contention sp.trace | awk -v r="wait: child $spid" '/^#/ { on = index($0, "  " r "  ") > 0 }
    on && /woken by:/ { print; exit }' >sp.woken
assert_eq "$(cat sp.woken)" "  woken by: sh[$spid] main (exited) (1)" "system's wait woken by the shell"

# 4. gotrace merge of files written with GOTRACE_OUT=x.%p.trace.
mkdir -p m
timeout 60 env GOTRACE_OUT="$CASE_DIR/m/x.%p.trace" LD_PRELOAD="$GT_PRELOAD" \
    sh -c 'seq 1 200000 | sort -n | uniq | gzip -c > m/out.gz'
"$G" merge -o merged.trace m 2>merge.err
validate merged.trace
assert_eq "$(pids merged.trace)" 5 "processes in the merged trace"
for c in seq sort uniq gzip; do
    assert_eq "$(count_named merged.trace "$c")" 1 "$c in the merged trace"
done
"$G" merge --window 1 -o list.trace m/x.*.trace 2>/dev/null
validate list.trace
assert_eq "$(images list.trace)" "$(images merged.trace)" "a file list merges as the folder"
GOTRACE_PERIOD_MS=10 "$G" record -o spawn10.trace -- "$py" mp.py spawn >/dev/null 2>&1
"$G" merge --window 1 -o w1.trace spawn10.trace.d 2>/dev/null
validate w1.trace
gens=$("$G" check w1.trace | sed 's/.*valid: \([0-9]*\) generations.*/\1/')
assert_ge "$gens" 20 "1 ms generations of a spawn pool's merge"
assert_eq "$(images w1.trace)" "$(images spawn10.trace)" "the same processes and threads at 1 ms"
rc=0
"$G" merge -o none.trace "$CASE_DIR/proj" 2>none.err || rc=$?
assert_eq "$rc" 2 "merge of a folder without traces"

# 5. Holders survive the merge.
locks=$(build_prog locks)
"$G" record -o lk.trace -- sh -c "$locks chain; true" >lk.out 2>lk.err
validate lk.trace
own=$(ls lk.trace.d/*.trace | while read -r f; do
    "$G" summary "$f" | grep -q chain_first && echo "$f"
done)
[ -n "$own" ] || fail "no per-process trace of the locks program"
assert_ge "$(pids lk.trace)" 2 "processes of the locks run"
# normalize: no header, no durations, no goroutine ids, no process in the names (of threads,
# and of objects: "mutex chain_lock in locks[PID]")
norm() {
    tail -n +2 | sed -E 's/[0-9.]+(ns|us|ms|s)\b//g; s/G[0-9]+/G/g; s/ in [A-Za-z0-9_.-]+\[[0-9]+\]//g
        s/[A-Za-z0-9_.-]+\[[0-9]+\] //g'
}
"$G" locks --holders "$own" | norm >lk.own
"$G" locks --holders lk.trace | norm >lk.merged
grep -q "held by chain_first" lk.own || fail "the program's own trace has no holder"
diff lk.own lk.merged >lk.diff || fail "locks --holders differs after the merge: $(head -c 300 lk.diff)"

# A Go program's trace (GC and heap events) is refused, naming the event; nothing is written.
rc=0
"$G" merge -o go.trace "$GT_ROOT/test/decoder/corpus/go122-annotations.bin" pipe/run.trace \
    2>go.err || rc=$?
assert_eq "$rc" 1 "merge of a Go program's trace"
assert_contains go.err "event ProcsChange is not merged" "merge's message"
[ ! -e go.trace ] || fail "merge wrote go.trace for a refused input"
