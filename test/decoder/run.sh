#!/usr/bin/env bash
# run.sh: the decoder's test suite (make decoder-test). Every check compares gotrace with an
# independent expectation, so each one can fail:
#   1. golden outputs (check, dump --stacks, summary, contention, export) of the text traces in
#      golden/ (UPDATE_GOLDEN=1 rewrites them; names.txt has a thread name written after the
#      thread woke someone, a task, a region, a log and CPU samples);
#   2. `check` vs gotracevalidate vs the expected outcome on Go's own trace test cases;
#   3. traces written by small Go programs (goprog/, built now with Go 1.23): check agrees
#      with gotracevalidate; summary, contention and export show the known mutex wait;
#   4. a pthreads program (cprog/) recorded through `gotrace record` and libgotrace.so;
#      examples/annotations traced with CPU samples: thread names in summary, contention and
#      export, tasks/regions/logs in dump, summary and export, samples in dump and summary;
#   5. a bounded mutation pass (every truncation of the small traces, byte flips);
#   6. the regression inputs (regress/) and the seed corpus never crash the decoder;
#   7. command-line behaviour: exit statuses, --help, the memory cap; `make install` and
#      `record` finding the library in ../lib.
#   8. safety.sh: outputs never replace the input and appear only whole; I/O errors have their
#      own status (3) and message; created-blocked goroutines, BLOCKS, `--`, number ranges.
# Invariants: everything runs in a temporary directory; no sleeps; well under a minute.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/test/decoder"
G="$top/build/gotrace"
V="$top/build/tools/gotracevalidate"
RAW="$top/build/tools/gotraceraw"
GOROOT_123=/usr/lib/go-1.23
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/lib.sh"

echo "== decoder: golden outputs"
for t in "$here"/golden/*.txt; do
  name=$(basename "$t" .txt)
  "$RAW" text2bytes <"$t" >"$tmp/$name.trace" || { bad "$name: gotraceraw"; continue; }
  for c in check dump summary contention export; do
    args=("$c")
    [ "$c" = dump ] && args+=(--stacks)
    [ "$c" = export ] && args+=(--format chrome -o -)
    (cd "$tmp" && "$G" "${args[@]}" "$name.trace" >"$tmp/out" 2>&1; echo "exit $?" >>"$tmp/out")
    want="$here/golden/$name.$c"
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
      cp "$tmp/out" "$want"
    elif ! diff -u "$want" "$tmp/out" >"$tmp/diff"; then
      bad "golden $name.$c differs:"
      head -20 "$tmp/diff"
    else
      ok
    fi
  done
done

echo "== decoder: Go's trace test cases"
for f in "$GOROOT_123"/src/internal/trace/testdata/tests/*.test; do
  name=$(basename "$f" .test)
  sed -n '/^-- trace --$/,$p' "$f" | tail -n +2 | "$RAW" text2bytes >"$tmp/$name.trace" ||
    { bad "$name: gotraceraw"; continue; }
  expect=$(sed -n 2p "$f" | cut -d' ' -f1)
  go=$(status "$V" <"$tmp/$name.trace")
  me=$(status "$G" check "$tmp/$name.trace")
  want=1
  [ "$expect" = SUCCESS ] && want=0
  if [ "$me" = "$want" ] && [ $((go != 0)) = "$want" ]; then ok; else
    bad "$name: expected $expect, gotrace check=$me, gotracevalidate=$go"
  fi
done

echo "== decoder: traces of Go programs"
if (cd "$here/goprog" && GOCACHE="$top/build/gocache" GOFLAGS=-mod=mod \
  "$GOROOT_123/bin/go" build -o "$tmp/goprog" .) >"$tmp/gobuild.log" 2>&1; then
  for m in mutex chan syscall mixed; do
    "$tmp/goprog" $m "$tmp/go-$m.trace" || { bad "goprog $m"; continue; }
    go=$(status "$V" <"$tmp/go-$m.trace")
    me=$(status "$G" check "$tmp/go-$m.trace")
    if [ "$go" = 0 ] && [ "$me" = 0 ]; then ok; else bad "go-$m: check=$me validate=$go"; fi
    for c in dump summary contention; do
      [ "$(status "$G" $c "$tmp/go-$m.trace")" = 0 ] && ok || bad "go-$m: $c fails"
    done
  done
  t="$tmp/go-mutex.trace"
  "$G" summary "$t" >"$tmp/sum" && "$G" contention "$t" >"$tmp/con" &&
    "$G" export --format chrome "$t" -o "$tmp/t.json" || bad "go-mutex: analyses fail"
  python3 "$here/checks.py" summary "$tmp/sum" main.main main.mutexWait.func1 && ok ||
    bad "go-mutex: summary"
  python3 "$here/checks.py" contention "$tmp/con" sync 'sync.(*Mutex).Lock' 15 main.main && ok ||
    bad "go-mutex: contention does not show the 20 ms mutex wait woken by main"
  python3 "$here/checks.py" export "$tmp/t.json" "$tmp/sum" main.mutexWait.func1 15 && ok ||
    bad "go-mutex: export"
  python3 -m json.tool "$tmp/t.json" >/dev/null && ok || bad "go-mutex: export is not JSON"
else
  cat "$tmp/gobuild.log"
  bad "building test/decoder/goprog"
fi

echo "== decoder: a pthreads program through gotrace record"
if gcc -g -O1 -pthread "$here/cprog/waits.c" -o "$tmp/waits"; then
  (cd "$tmp" && "$G" record -o "$tmp/waits.%p.trace" -- "$tmp/waits" >"$tmp/rec.out" 2>"$tmp/rec.err")
  rc=$?
  t=$(ls "$tmp"/waits.*.trace 2>/dev/null | head -1)
  if [ "$rc" = 0 ] && [ -n "$t" ] && grep -q "trace written to $t" "$tmp/rec.err" &&
    grep -q "gotrace summary" "$tmp/rec.err"; then ok; else bad "record: status $rc, trace '$t'"; fi
  if [ -n "$t" ]; then
    go=$(status "$V" <"$t")
    me=$(status "$G" check "$t")
    [ "$go" = "$me" ] && [ "$me" = 0 ] && ok || bad "waits trace: check=$me validate=$go"
    "$G" summary "$t" >"$tmp/wsum" && "$G" contention "$t" >"$tmp/wcon" || bad "waits: analyses"
    python3 "$here/checks.py" summary "$tmp/wsum" main holder waiter && ok || bad "waits: names"
    python3 "$here/checks.py" contention "$tmp/wcon" sync main 20 && ok ||
      bad "waits: no 20 ms sync wait in main"
  fi
  (cd "$tmp" && "$G" record -- /bin/sh -c 'kill -TERM $$' 2>/dev/null)
  [ $? = 143 ] && ok || bad "record: killed program must give 128+15"
else
  bad "building cprog/waits.c"
fi

echo "== decoder: thread names, annotations and CPU samples (examples/annotations)"
t="$tmp/annot.trace"
if GOTRACE_CPU_HZ=100 GOTRACE_OUT="$t" LD_PRELOAD="$top/build/libgotrace.so" \
  "$top/build/examples/annotations" >"$tmp/annot.out" 2>"$tmp/annot.err" && [ -s "$t" ]; then
  go=$(status "$V" <"$t")
  me=$(status "$G" check "$t")
  [ "$go" = "$me" ] && [ "$me" = 0 ] && ok || bad "annotations trace: check=$me validate=$go"
  "$G" dump "$t" >"$tmp/adump" && "$G" summary "$t" >"$tmp/asum" &&
    "$G" contention "$t" >"$tmp/acon" && "$G" export --format chrome "$t" -o "$tmp/a.json" ||
    bad "annotations: a command fails"
  # Names the example sets: worker-0/1 by main (pthread_setname_np), janitor itself (prctl;
  # its start routine is also "janitor", shown once).
  python3 "$here/checks.py" summary "$tmp/asum" main "worker-0 (worker)" "worker-1 (worker)" janitor &&
    ok || bad "annotations: thread names in summary"
  python3 "$here/checks.py" contention "$tmp/acon" join main 10 "worker-" && ok ||
    bad "annotations: main's join not woken by a named worker"
  python3 "$here/checks.py" export "$tmp/a.json" "$tmp/asum" main 10 && ok ||
    bad "annotations: export"
  python3 "$here/checks.py" annotations "$tmp/adump" "$tmp/asum" "$tmp/a.json" && ok ||
    bad "annotations: tasks, regions, logs"
  python3 "$here/checks.py" samples "$tmp/adump" "$tmp/asum" compute 10 && ok ||
    bad "annotations: CPU samples"
else
  bad "running examples/annotations traced (make all): $(head -c 300 "$tmp/annot.err")"
fi

echo "== decoder: make install"
if make -C "$top" --no-print-directory install PREFIX="$tmp/inst" >"$tmp/inst.log" 2>&1 &&
  [ -x "$tmp/inst/bin/gotrace" ] && [ -f "$tmp/inst/lib/libgotrace.so" ]; then
  (cd "$tmp" && "$tmp/inst/bin/gotrace" record -o "$tmp/inst.trace" -- /bin/true 2>/dev/null)
  [ $? = 0 ] && [ -s "$tmp/inst.trace" ] && ok || bad "installed gotrace record (../lib lookup)"
else
  cat "$tmp/inst.log"
  bad "make install"
fi

echo "== decoder: mutations (truncations, byte flips) vs gotracevalidate"
small=("$tmp"/threads.trace "$tmp"/go122-annotations.trace "$tmp"/go122-task-across-generations.trace
  "$tmp"/go122-syscall-steal-proc-gen-boundary.trace "$tmp"/go122-confuse-seq-across-generations.trace)
[ -f "$tmp/go-mutex.trace" ] && small+=("$tmp/go-mutex.trace")
[ -n "${t:-}" ] && [ -f "$t" ] && small+=("$t")
python3 "$here/mutate.py" "$G" "$V" --max-cuts 600 --flips 150 "${small[@]}" && ok ||
  bad "mutations"

echo "== decoder: regression inputs and seed corpus"
for f in "$here"/regress/* "$here"/corpus/*; do
  [ -e "$f" ] || continue
  s=$(status "$G" check "$f")
  [ "$s" = 0 ] || [ "$s" = 1 ] && ok || bad "$f: gotrace check exit $s"
  s=$(status "$G" dump --stacks "$f")
  [ "$s" = 0 ] || [ "$s" = 1 ] && ok || bad "$f: gotrace dump exit $s"
done

echo "== decoder: output safety and honest errors (safety.sh)"
bash "$here/safety.sh" "$G" "$RAW" && ok || bad "output safety (safety.sh)"

echo "== decoder: command line"
t="$tmp/threads.trace"
[ "$(status "$G")" = 2 ] && ok || bad "no command: want 2"
[ "$(status "$G" frobnicate x)" = 2 ] && ok || bad "unknown command: want 2"
for c in check dump summary contention export record; do
  [ "$(status "$G" $c --help)" = 0 ] && ok || bad "$c --help: want 0"
done
[ "$(status "$G" check)" = 2 ] && ok || bad "check without file: want 2"
[ "$(status "$G" dump --bogus "$t")" = 2 ] && ok || bad "unknown option: want 2"
[ "$(status "$G" export "$t")" = 2 ] && ok || bad "export without -o/--format: want 2"
[ "$(status "$G" check "$tmp/does-not-exist")" = 3 ] && ok || bad "missing file: want 3"
"$G" check --max-gen-mem 1K "$t" 2>"$tmp/err" >/dev/null
[ $? = 1 ] && grep -q "max-gen-mem" "$tmp/err" && ok || bad "memory cap not enforced"
head -c 330 "$t" >"$tmp/cut.trace"
"$G" dump "$tmp/cut.trace" >"$tmp/cut.out" 2>"$tmp/cut.err"
[ $? = 1 ] && [ -s "$tmp/cut.out" ] && grep -q "generation 1, thread 1001, event batch at byte offset 316" "$tmp/cut.err" &&
  ok || bad "truncated file: events before the damage, then an error naming where"

echo "decoder-test: $pass passed, $fail failed"
[ "$fail" = 0 ]
