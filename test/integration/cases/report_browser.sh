# report_browser: `gotrace report` pages of real traces (examples/pipeline, and
# examples/annotations with CPU samples) rendered by headless Chromium: no script error, the
# rendered DOM names the threads, their wait reasons, the Hangs section, the Locks section (the
# queue's mutex and who held it, its condvars and who signalled them: nothing holds a condvar,
# so no "held by (before the trace)") and the Critical path section, and the
# screenshot is not blank (many colours; the running and blocked colours of the timeline); a
# link to one of the collector's waits shows its details: the waiting call and who woke it.
# A deadlocked run (progs/locks.c abba, killed): the page says so at its top (the banner) and
# in its Hangs section (the cycle, main behind it), and its critical path leads into the cycle.
# itest-timeout: 150

G=$GT_BUILD/gotrace
command -v chromium >/dev/null || fail "chromium missing (scripts/setup.sh installs it)"
[ -x "$G" ] || fail "$G missing (make all)"

# render PAGE [#FRAGMENT]: PAGE.dom (--dump-dom) and PAGE.png (--screenshot), each from a
# fresh profile.
render() {
    local page=$1 frag=${2:-} what
    for what in dom png; do
        local prof
        prof=$(mktemp -d "$CASE_DIR/chrome.XXXXXX")
        local out=(--dump-dom)
        [ "$what" = png ] && out=(--screenshot="$page.png")
        timeout -k 5 60 chromium --headless --no-sandbox --disable-gpu --disable-quic \
            --no-first-run --disable-background-networking --disable-component-update \
            --disable-sync --user-data-dir="$prof" --window-size=1400,1200 \
            --enable-logging=stderr --v=0 "${out[@]}" "file://$page$frag" \
            >"$page.$what.out" 2>"$page.$what.err" ||
            fail "chromium failed on $page: $(tail -c 300 "$page.$what.err")"
        rm -rf "$prof"
    done
    mv "$page.dom.out" "$page.dom"
    [ -s "$page.png" ] || fail "no screenshot of $page"
    ! grep -E 'Uncaught|SyntaxError|TypeError|ReferenceError' "$page.dom.err" "$page.png.err" ||
        fail "script errors on the console of $page"
}

trace_run pipe -- "$GT_BUILD/examples/pipeline"
expect_status "traced pipeline" 0
"$G" report "$RUN_TRACE" -o "$CASE_DIR/pipe.html" 2>"$CASE_DIR/report.err" ||
    fail "gotrace report pipeline: $(cat "$CASE_DIR/report.err")"
render "$CASE_DIR/pipe.html"
python3 "$GT_ROOT/test/integration/report_page.py" dom "$CASE_DIR/pipe.html.dom" \
    main producer worker collector "blocked on sync: condvar" "blocked on sync: mutex" \
    "blocked on sync: join" "Hangs" "Locks" "most of the wait" "condvar" "held by worker" \
    "signalled by worker" "Critical path" "By thread" >"$CASE_DIR/check.out" ||
    fail "pipeline page: $(cat "$CASE_DIR/check.out")"
! grep -q 'before the trace) (' "$CASE_DIR/pipe.html.dom" ||
    fail "pipeline page: a lock held by (before the trace)"
python3 "$GT_ROOT/test/integration/report_page.py" png "$CASE_DIR/pipe.html.png" \
    '#3a9d4a' '#d8483e' >"$CASE_DIR/check.out" ||
    fail "pipeline screenshot: $(cat "$CASE_DIR/check.out")"

# A link to the collector's first wait that another thread ended (#select=ID@TIME): the
# details panel names the waiting call and the thread that woke it.
"$G" summary "$RUN_TRACE" >"$CASE_DIR/pipe.sum"
"$G" dump "$RUN_TRACE" >"$CASE_DIR/pipe.dump"
id=$(awk '$1 == "collector" { print $2; exit }' "$CASE_DIR/pipe.sum")
at=$(awk -v g="$id" 'NR == 1 { t0 = $1 } $5 == "GoUnblock" && $6 == "g=" g && $4 != "G=-" {
    print $1 - t0 - 1; exit }' "$CASE_DIR/pipe.dump")
[ -n "$id" ] && [ -n "$at" ] || fail "no wake-up of the collector in the dump"
render "$CASE_DIR/pipe.html" "#select=$id@$at"
python3 "$GT_ROOT/test/integration/report_page.py" details "$CASE_DIR/pipe.html.dom" \
    collector "blocked: sync: condvar" "woken by" "worker (id " pthread_cond_wait \
    >"$CASE_DIR/check.out" || fail "pipeline page, selected wait: $(cat "$CASE_DIR/check.out")"

trace_run annot GOTRACE_CPU_HZ=100 -- "$GT_BUILD/examples/annotations"
expect_status "traced annotations" 0
"$G" report "$RUN_TRACE" -o "$CASE_DIR/annot.html" 2>"$CASE_DIR/report.err" ||
    fail "gotrace report annotations: $(cat "$CASE_DIR/report.err")"
render "$CASE_DIR/annot.html"
python3 "$GT_ROOT/test/integration/report_page.py" dom "$CASE_DIR/annot.html.dom" \
    "worker-0 (worker)" "worker-1 (worker)" janitor "blocked on sync: join" request handle \
    compute "CPU samples (" >"$CASE_DIR/check.out" ||
    fail "annotations page: $(cat "$CASE_DIR/check.out")"
python3 "$GT_ROOT/test/integration/report_page.py" png "$CASE_DIR/annot.html.png" \
    '#3a9d4a' >"$CASE_DIR/check.out" ||
    fail "annotations screenshot: $(cat "$CASE_DIR/check.out")"

# A deadlock: take_a_then_b and take_b_then_a each wait for the lock the other holds; main joins
# the first. Generations every 50 ms; killed once the trace has 6 (the cycle is > 200 ms old).
prog=$(build_prog locks)
trace_start_bg abba GOTRACE_PERIOD_MS=50 -- "$prog" abba
wait_for_generations "$RUN_TRACE" "$RUN_PID" 6
kill -KILL "$RUN_PID"
wait "$RUN_PID" 2>/dev/null || true
"$G" report "$RUN_TRACE" -o "$CASE_DIR/abba.html" 2>"$CASE_DIR/report.err" ||
    fail "gotrace report abba: $(cat "$CASE_DIR/report.err")"
render "$CASE_DIR/abba.html"
# (The DOM holds the page's script and data too: each text below exists only once rendered.)
python3 "$GT_ROOT/test/integration/report_page.py" dom "$CASE_DIR/abba.html.dom" \
    '<p id="verdict" class="alert"><strong>Deadlock</strong> at the end of the trace: take_a_then_b (G2) waiting on mutex lock_b held by take_b_then_a (G3)' \
    "behind it: main (G1) waiting on join take_a_then_b (G2)" \
    "No thread can make progress: the 3 live threads" \
    "the path follows the holders of what it waits for until take_b_then_a (G3)" \
    >"$CASE_DIR/check.out" || fail "abba page: $(cat "$CASE_DIR/check.out")"
