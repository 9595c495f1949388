# end_of_run: the trace ends when the process ends (issue 19), not at its last event. The
# program's threads wait 1 ms each, then compute without any event until main returns 600 ms
# after it began (the worker still computing). Checks: valid trace; in `gotrace summary`, main's
# and the worker's lifetimes are main's own running time (which the program prints), at least
# 99 % of it and at most 10 % over (the trace ends when the tracer's exit handler runs, after
# main returned: 52 ms later once on a machine loaded 12 times over) (before the fix: ~1 ms,
# the time of the last event), and almost all of it is running time.

prog=$(build_prog end_spin)
trace_run run -- "$prog" 600
expect_status end_spin 0
validate "$RUN_TRACE"
ran=$(cat "$RUN_OUT")
"$GT_BUILD/gotrace" summary "$RUN_TRACE" >"$CASE_DIR/summary.txt"
# ms of a duration as summary prints it (1.003s, 501.31ms, 12.5us, 800ns)
to_ms() { awk -v d="$1" 'BEGIN { n = d + 0; u = d; sub(/^[0-9.]+/, "", u)
    print (u == "s" ? n * 1e3 : u == "ms" ? n : u == "us" ? n / 1e3 : n / 1e6) }'; }
row() { awk -v n="$1" '$1 == n && $2 ~ /^[0-9]+$/ { print $4, $5; exit }' "$CASE_DIR/summary.txt"; }
for name in main worker; do
    read -r life running <<<"$(row "$name")"
    [ -n "$life" ] || fail "no summary row for $name"
    life=$(to_ms "$life")
    running=$(to_ms "$running")
    awk -v l="$life" -v r="$ran" 'BEGIN { exit !(l >= r * 0.99 && l <= r * 1.10) }' ||
        fail "$name's lifetime ${life} ms, main ran ${ran} ms (must be 99 %..110 % of it)"
    awk -v l="$life" -v r="$running" 'BEGIN { exit !(r >= l * 0.97) }' ||
        fail "$name's running time ${running} ms of a ${life} ms lifetime"
done
