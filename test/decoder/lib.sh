# lib.sh: the counters and helpers of the decoder's test scripts (run.sh, safety.sh), sourced.
# ok / bad MSG count a passed / failed check (bad prints "FAIL: $FAIL_PREFIX MSG");
# status CMD... prints CMD's exit status (its output discarded).
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
  echo "FAIL: ${FAIL_PREFIX:-}$*"
  fail=$((fail + 1))
}
status() {
  "$@" >/dev/null 2>&1
  echo $?
}
