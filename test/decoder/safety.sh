#!/usr/bin/env bash
# safety.sh: output safety and honest errors of the commands (issue 21, item 6); run by run.sh.
#   usage: safety.sh GOTRACE GOTRACERAW
# Checks: an output file never replaces the input (same path, symbolic or hard link), nor a
# symbolic link it is written through (to a file made or not yet); a failed
# command leaves no output file (an old one stays as it was) and no temporary file, and with
# -o - no closed JSON document; unreadable inputs and unwritable outputs exit 3 with their own
# message (not "bad trace"); a goroutine created blocked is labelled so and every thread's
# BLOCKS equals the sum of its waits by reason; `--` ends the options; --max-gen-mem 0 and
# out-of-range numbers are usage errors; summary prints names longer than its column whole.
# Invariants: works in its own temporary directory; no sleeps; a few seconds.
set -uo pipefail
G=$(realpath "$1")
RAW=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
FAIL_PREFIX="safety: "
. "$here/lib.sh"
"$RAW" text2bytes <"$here/golden/threads.txt" >good.trace || exit 1
"$RAW" text2bytes <"$here/golden/blocked.txt" >blocked.trace || exit 1
head -c 330 good.trace >cut.trace

# Commands that write a file, as "name args..." with OUT where the output goes.
writers=("export --format chrome IN -o OUT")
[ "$("$G" report --help >/dev/null 2>&1; echo $?)" = 0 ] && writers+=("report IN -o OUT")
run() { # run TEMPLATE IN OUT: the command's exit status (stderr in err)
  local args=() w
  for w in $1; do
    case $w in IN) args+=("$2") ;; OUT) args+=("$3") ;; *) args+=("$w") ;; esac
  done
  "$G" "${args[@]}" >out 2>err
  echo $?
}
for tpl in "${writers[@]}"; do
  c=${tpl%% *}
  cp good.trace in.trace
  [ "$(run "$tpl" in.trace in.trace)" = 2 ] && cmp -s in.trace good.trace && grep -q "input" err &&
    ok || bad "$c: -o the input itself: want status 2, input kept"
  ln -sf in.trace link.out
  [ "$(run "$tpl" in.trace link.out)" = 2 ] && cmp -s in.trace good.trace && ok ||
    bad "$c: -o a symbolic link to the input: want status 2, input kept"
  ln -f in.trace hard.out
  [ "$(run "$tpl" in.trace hard.out)" = 2 ] && cmp -s in.trace good.trace && ok ||
    bad "$c: -o a hard link to the input: want status 2, input kept"
  rm -f new.out
  [ "$(run "$tpl" cut.trace new.out)" = 1 ] && [ ! -e new.out ] && ok ||
    bad "$c: a bad trace must leave no output file"
  echo old >old.out
  [ "$(run "$tpl" cut.trace old.out)" = 1 ] && [ "$(cat old.out)" = old ] && ok ||
    bad "$c: a bad trace must leave an existing output as it was"
  ls -a | grep -q '\.out\.' && bad "$c: temporary file left: $(ls -a)" || ok
  echo old >target.out
  ln -sf target.out via.out
  [ "$(run "$tpl" good.trace via.out)" = 0 ] && [ -L via.out ] && [ "$(cat target.out)" != old ] &&
    ok || bad "$c: -o a symbolic link must write its target and keep the link"
  rm -f new.out && ln -sf new.out via-new.out
  [ "$(run "$tpl" good.trace via-new.out)" = 0 ] && [ -L via-new.out ] && [ -s new.out ] &&
    ok || bad "$c: -o a symbolic link to a file not made yet must make it and keep the link"
  ln -sf nodir/x.out via-nodir.out
  [ "$(run "$tpl" good.trace via-nodir.out)" = 3 ] && [ -L via-nodir.out ] && ok ||
    bad "$c: -o a symbolic link into a missing directory: want status 3, the link kept"
  [ "$(run "$tpl" good.trace /dev/full)" = 3 ] && grep -q "cannot write" err && ok ||
    bad "$c: -o /dev/full: want status 3 and 'cannot write'"
  [ "$(run "$tpl" good.trace nodir/x.out)" = 3 ] && grep -q "cannot create" err && ok ||
    bad "$c: -o into a missing directory: want status 3"
done
"$G" export --format chrome cut.trace -o - >partial.json 2>/dev/null
[ $? = 1 ] && [ -s partial.json ] && ! python3 -m json.tool partial.json >/dev/null 2>&1 && ok ||
  bad "export -o - of a bad trace must not give a whole JSON document"

# I/O errors: their own status and message.
for c in check dump summary contention; do
  [ "$(status "$G" $c "$tmp")" = 3 ] && ok || bad "$c DIRECTORY: want status 3"
  "$G" $c good.trace >/dev/full 2>err
  [ $? = 3 ] && grep -q "cannot write" err && ok || bad "$c >/dev/full: want status 3, message"
done
"$G" check "$tmp" 2>err
grep -q "cannot read" err && ! grep -q "bad file format" err && ok ||
  bad "check DIRECTORY: says '$(cat err)'"
"$G" export --format chrome good.trace -o - >/dev/full 2>err
[ $? = 3 ] && grep -q "cannot write" err && ok || bad "export -o - >/dev/full: want status 3"
[ "$(status "$G" check nonexistent.trace)" = 3 ] && ok || bad "missing file: want status 3"

# Goroutines created blocked; BLOCKS adds up.
"$G" summary blocked.trace >sum
"$G" contention blocked.trace >con
"$G" export --format chrome blocked.trace -o blocked.json
grep -q "blocked on created blocked" sum && grep -q "#[0-9]  created blocked " con &&
  grep -q '"blocked: created blocked"' blocked.json && ok ||
  bad "a goroutine created blocked is not labelled 'created blocked'"
for t in good blocked; do
  "$G" summary $t.trace >sum
  python3 "$here/checks.py" blocks sum && ok || bad "$t: BLOCKS differs from the waits by reason"
done
grep -q "^a-thread-name-longer-than-twenty-eight-characters " sum && ok ||
  bad "summary cuts a long thread name"

# Options.
[ "$(status "$G" check -- good.trace)" = 0 ] && ok || bad "check -- FILE: want 0"
[ "$(status "$G" check --max-gen-mem 0 good.trace)" = 2 ] && ok || bad "--max-gen-mem 0: want 2"
[ "$(status env GOTRACE_MAX_GEN_MEM=0 "$G" check good.trace)" = 2 ] && ok ||
  bad "GOTRACE_MAX_GEN_MEM=0: want 2"
[ "$(status "$G" check --max-gen-mem 99999999999999999999G good.trace)" = 2 ] && ok ||
  bad "--max-gen-mem overflow: want 2"
[ "$(status "$G" contention --top 99999999999999999999 good.trace)" = 2 ] && ok ||
  bad "--top overflow: want 2"

echo "safety: $pass passed, $fail failed"
[ "$fail" = 0 ]
