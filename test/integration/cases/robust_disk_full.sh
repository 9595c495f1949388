# robust_disk_full: write errors. GOTRACE_OUT=/dev/full (every write fails with ENOSPC): the
# program's stdout, stderr (besides one "gotrace:" warning) and exit status are as untraced.
# Then a 128 KiB tmpfs that fills up after a few generations of a thread-churning program
# (its 1.5 s write 1.3 MiB in 35 generations of 50 ms, 39 KiB each: a 32 KiB one held none once
# ended threads stopped counting memo pages they never used toward GOTRACE_FLUSH_MB, which had
# switched generations more often; 96 KiB did not always fill on a loaded machine when the run
# wrote less): same output and status, exactly one warning, and the file keeps whole
# generations (validates).

prog=$(build_prog transparency)
plain_run plain -- "$prog"
p_status=$RUN_STATUS p_out=$RUN_OUT p_err=$RUN_ERR
trace_run full GOTRACE_OUT=/dev/full -- "$prog"
assert_eq "$RUN_STATUS" "$p_status" "exit status (/dev/full)"
cmp -s "$p_out" "$RUN_OUT" || fail "stdout differs (/dev/full)"
assert_eq "$(gotrace_lines "$RUN_ERR")" 1 "gotrace: lines (/dev/full)"
grep -v '^gotrace:' "$RUN_ERR" >"$CASE_DIR/err-rest" || true
cmp -s "$p_err" "$CASE_DIR/err-rest" || fail "stderr besides the warning differs: $(cat "$RUN_ERR")"

[ "$(id -u)" = 0 ] || fail "mounting a small tmpfs needs root"
mnt=$CASE_DIR/mnt
mkdir -p "$mnt"
mount -t tmpfs -o size=128k gotrace-itest "$mnt"
trap 'umount "$mnt" 2>/dev/null || true; gt_cleanup' EXIT
churn=$(build_prog churn)
secs=1.5
[ -z "$GT_SANITIZER" ] || secs=5 # its slowdown: 80-130 KiB of trace in 1.5 s under TSan
plain_run plain-churn -- "$churn" "$secs"
p_status=$RUN_STATUS
trace_run small GOTRACE_OUT="$mnt/t.trace" GOTRACE_PERIOD_MS=50 -- "$churn" "$secs"
assert_eq "$RUN_STATUS" "$p_status" "exit status (full tmpfs)"
assert_eq "$(gotrace_lines "$RUN_ERR")" 1 "gotrace: lines (full tmpfs)"
assert_contains "$RUN_ERR" "No space left on device" "the warning"
validate "$mnt/t.trace"
assert_ge "$(generations "$mnt/t.trace")" 1 "generations kept"
echo "kept $(generations "$mnt/t.trace") generations, $(stat -c %s "$mnt/t.trace") bytes"
