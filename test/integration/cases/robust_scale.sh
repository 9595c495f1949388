# robust_scale: scale (progs/robust_scale.c). 10000 threads over the run, 1000 alive at once:
# valid trace, 10001 creations, 10000 ends besides main's; peak RSS at most 40 MiB (21-26 MiB
# measured; 28-37 MiB when each thread touched its stack memo, 42-46 MiB when each thread
# record held its memo, 60-110 MiB when libunwind was the unwinder with trimmed caches, 280 MiB
# with whole ones, docs/robustness.md), not checked under a sanitizer runtime, whose run takes
# 40 s here (36 s untraced under TSan) and gets 240 s. 1000 and 2000 threads blocked on a
# condvar: valid traces; 1000 at most 10 MiB above untraced (7.2-7.4 MiB measured; 11.2 MiB when
# each thread touched its memo, 14.6-15 MiB when the record held it), and the margin, what the
# tracer adds for the 1000 more, at most 8 KiB a thread (issue 20's target; 5.4 KiB measured,
# 9.4 KiB when each thread touched its memo, 12.8 when the record held it); not under a
# sanitizer. 32 threads on
# one mutex: right count, valid trace, at least one wait on the mutex, balanced. A steady run
# of SOAK_SECONDS (5 here; `make soak` sets 60) of condvar ping-pong: valid trace, and the
# resident size stays bounded: the largest sample of the second half is at most the largest
# of the first half plus 16 MiB; the same in flight mode (a 1 s window kept in memory, written
# at the end: issue 17).
# itest-timeout: 600

prog=$(build_prog robust_scale)
[ -z "$GT_SANITIZER" ] || RUN_TIMEOUT=240
plain_run plain-threads -- "$prog" threads
p_peak=$(awk '/^peak/ {print $2}' "$RUN_ERR")
trace_run threads -- "$prog" threads
expect_status threads 0
assert_eq "$(cat "$RUN_OUT")" "threads 10000" "threads output"
validate "$RUN_TRACE"
assert_eq "$(count_trans "$RUN_TRACE" NotExist Runnable)" 10001 "creations (10000 + main)"
assert_eq "$(gids_started_at "$RUN_TRACE" member | grep -c .)" 10000 "threads started at member"
t_peak=$(awk '/^peak/ {print $2}' "$RUN_ERR")
echo "10000 threads: peak RSS $t_peak KiB traced, $p_peak KiB untraced"
if [ -z "$GT_SANITIZER" ]; then # a sanitizer's runtime (make test-sanitize) has its own
    assert_le "$t_peak" $((40 * 1024)) "peak RSS (KiB) of 10000 threads, 1000 alive"
fi

blocked_above() { # blocked_above N: above = KiB the tracer adds to the RSS of N blocked threads
    plain_run "plain-blocked$1" -- "$prog" blocked "$1"
    local p_rss t_rss
    p_rss=$(awk '/^rss/ {print $2}' "$RUN_ERR")
    trace_run "blocked$1" -- "$prog" blocked "$1"
    expect_status "blocked$1" 0
    assert_eq "$(cat "$RUN_OUT")" "blocked $1" "blocked $1 output"
    validate "$RUN_TRACE"
    t_rss=$(awk '/^rss/ {print $2}' "$RUN_ERR")
    above=$((t_rss - p_rss))
    echo "$1 blocked threads: RSS $t_rss KiB traced, $p_rss KiB untraced: $above KiB above"
}
blocked_above 1000
above1=$above
blocked_above 2000
echo "margin: $((above - above1)) KiB for 1000 more blocked threads"
if [ -z "$GT_SANITIZER" ]; then
    assert_le "$above1" $((10 * 1024)) "RSS (KiB) the tracer adds to 1000 blocked threads"
    assert_le "$((above - above1))" 8000 "RSS (KiB) the tracer adds for 1000 more (8 KiB a thread)"
fi

RUN_TIMEOUT=60
trace_run lock -- "$prog" lock
expect_status lock 0
assert_eq "$(cat "$RUN_OUT")" "count 640000" "lock output"
validate "$RUN_TRACE"
assert_ge "$(count_trans "$RUN_TRACE" Running Waiting)" 1 "waits on the contended mutex"
check_balanced "$RUN_TRACE"

secs=${SOAK_SECONDS:-5}
RUN_TIMEOUT=$((secs + 60))
soak() { # soak TAG ENV...: the steady run, valid trace, RSS bounded
    trace_run "$@" -- "$prog" soak "$secs"
    expect_status "$1" 0
    assert_eq "$(cat "$RUN_OUT")" "soak ok" "$1 output"
    validate "$RUN_TRACE"
    awk -v n="$secs" -v tag="$1" '/^rss/ { i++; if (i <= n / 2) { if ($2 > a) a = $2 } else if ($2 > b) b = $2 }
        END { printf "%s %d s: max RSS %d KiB in the first half, %d KiB in the second\n", tag, n, a, b
              exit !(b <= a + 16384) }' "$RUN_ERR" || fail "$1 RSS grew: $(tr '\n' ' ' <"$RUN_ERR")"
}
soak soak
# The flight recorder keeps a 1 s window in memory the whole run and writes it at the end.
soak soak-flight GOTRACE_MODE=flight GOTRACE_FLIGHT_S=1 GOTRACE_FLIGHT_AT_EXIT=1
