# real_programs: real multi-threaded programs from Debian packages (installed by
# scripts/setup.sh) run traced and untraced on generated input: xz -T2, zstd -T2, pigz,
# sort --parallel=2 (10 MB of lines, 1 MB buffer: several runs, each sorted in threads), python3 with
# threading (real/threads.py), a C++ std::thread program (progs/cxx_threads.cc). For each: the
# same stdout bytes and exit status, no "gotrace:" line, and a valid trace. python3 is not run
# under TSan: it dies at start under the TSan runtime alone, untraced.
# itest-timeout: 150

for tool in xz zstd pigz sort python3; do
    command -v "$tool" >/dev/null || fail "$tool missing (make setup installs it)"
done
in=$CASE_DIR/input
python3 -c '
import random, sys
r = random.Random(7)
words = [("%x" % r.getrandbits(40)) for _ in range(5000)]
out = sys.stdout
for i in range(300000):
    out.write("%s %d %s\n" % (words[r.randrange(5000)], r.randrange(10**6), words[i % 5000]))
' >"$in"

cxx=$(build_prog cxx_threads)
check_same() { # check_same NAME CMD...: traced vs untraced
    local name=$1
    shift
    plain_run "plain-$name" -- "$@"
    local p_status=$RUN_STATUS p_out=$RUN_OUT
    trace_run "traced-$name" -- "$@"
    assert_eq "$RUN_STATUS" "$p_status" "$name exit status"
    cmp -s "$p_out" "$RUN_OUT" || fail "$name: traced output differs from untraced"
    assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "$name: gotrace: lines"
    validate "$RUN_TRACE"
    echo "$name: status $RUN_STATUS, $(stat -c %s "$RUN_OUT") output bytes, trace $(stat -c %s "$RUN_TRACE") bytes, $(generations "$RUN_TRACE") generations"
}
check_same xz xz -T2 -0 --block-size=1MiB -c "$in"
check_same zstd zstd -T2 -3 -c "$in"
check_same pigz pigz -p 2 -c "$in"
check_same sort sort --parallel=2 -S 1M "$in"
if [ "$GT_SANITIZER" = tsan ]; then
    skip_part "python3 not run: it crashes at start under the TSan runtime alone, untraced"
else
    check_same python python3 "$GT_ROOT/test/integration/real/threads.py"
fi
check_same cxx "$cxx"
