# harness_selftest: proves lib.sh's trace helpers on a trace written by the Go runtime itself
# (go/selftest), whose counts are known: validate accepts it, generations counts >= 3 for a
# 2.5 s trace, transitions finds the 8 main.worker goroutines, one creation, one start and one
# end each, created from main.main; main blocks with reason "sync" at least twice and every
# block is followed by a wake-up and a restart. Also checks that the helpers can say no: a
# truncated file fails gotracevalidate and the status filter drops Undetermined lines.
# itest-timeout: 120

build_selftest() {
    local out=$GT_BUILD/itest/go/selftest
    mkdir -p "$(dirname "$out")"
    (cd "$GT_ROOT/test/integration/go/selftest" && timeout 100 "$GT_GO" build -o "$out" .) ||
        fail "cannot build go/selftest"
    echo "$out"
}

bin=$(build_selftest)
tr=$CASE_DIR/go.trace
timeout 30 "$bin" "$tr" 2500ms || fail "go/selftest failed"
validate "$tr"

gens=$(generations "$tr")
assert_ge "$gens" 3 "generations in a 2.5 s Go trace"
assert_le "$gens" 6 "generations in a 2.5 s Go trace"

workers=$(gids_started_at "$tr" main.worker | wc -l)
assert_eq "$workers" 8 "goroutines started at main.worker"
for g in $(gids_started_at "$tr" main.worker); do
    assert_eq "$(count_trans "$tr" NotExist Runnable "$g")" 1 "creations of G$g"
    assert_ge "$(count_trans "$tr" Runnable Running "$g")" 1 "starts of G$g"
    assert_eq "$(count_trans "$tr" Running NotExist "$g")" 1 "ends of G$g"
    case "|$(creator_stack "$tr" "$g")|" in
    *"|main.main|"*) ;;
    *) fail "creator stack of G$g lacks main.main: $(creator_stack "$tr" "$g")" ;;
    esac
done

sync_blocks=$(count_reason "$tr" 1 sync)
assert_ge "$sync_blocks" 2 "main's Running->Waiting with reason sync"
assert_eq "$(count_trans "$tr" Waiting Runnable 1)" "$(count_trans "$tr" Running Waiting 1)" \
    "main's wake-ups vs blocks"
# The trace starts with main Running (a status), so its starts equal its wake-ups + preemptions.
starts=$(count_trans "$tr" Runnable Running 1)
assert_ge "$starts" "$sync_blocks" "main's restarts"

# Status events exist in the raw parse but are never counted.
undetermined=$(awk -F'\t' '$2 == "Undetermined"' "$tr.trans" | wc -l)
assert_ge "$undetermined" "$gens" "Undetermined status lines in the parse"
assert_eq "$(count_trans "$tr" Undetermined Running)" 0 "counted Undetermined transitions"

# validate must reject a generation cut short.
size=$(stat -c %s "$tr")
head -c $((size - 100)) "$tr" >"$CASE_DIR/cut.trace"
if is_valid "$CASE_DIR/cut.trace"; then fail "gotracevalidate accepted a truncated trace"; fi
