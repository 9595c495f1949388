# stack_unwinder: libunwind is loaded only when a stack needs it (issue 20: a library mapped into
# every traced process cost each about 0.1 ms). A traced process that needs no fallback never
# maps libunwind or liblzma (awk reading its own /proc/self/maps). progs/stack_unwinder.c naps
# through a frame whose CFA is an expression (the walker stops there): libunwind is not mapped
# at its start, the flusher loads it once a capture asked (the program naps until it sees it
# mapped, at most 10 s, then 100 times more, 1 ms each: the flusher looks its functions up
# after mapping it), and from then on the naps' stacks go on past that frame; the ones before
# it end there, with the frames above it (never empty). Checks: output, valid trace, both kinds
# of stacks, none cut after a whole one, the last one whole. Not under TSan: libunwind's
# per-thread cache destructor runs at the thread's exit after TSan's runtime has finished that
# thread (see stack_fallback before 2026-11-28).
source "$GT_ROOT/test/integration/lib_profiles.sh"
[ "$GT_SANITIZER" != tsan ] || skip_case "libunwind's per-thread cache destructor locks a mutex" \
    "after TSan's runtime has finished the exiting thread"

trace_run maps -- awk '/libunwind|liblzma/ { n++ } END { print n + 0 }' /proc/self/maps
expect_status maps 0
assert_eq "$(cat "$RUN_OUT")" 0 "libunwind or liblzma mapped in a traced awk"
validate "$RUN_TRACE"

prog=$(build_prog stack_unwinder)
trace_run run GOTRACE_PERIOD_MS=50 -- "$prog"
expect_status stack_unwinder 0
assert_eq "$(tr '\n' ' ' <"$RUN_OUT")" "libunwind at start: no libunwind loaded " "output"
validate "$RUN_TRACE"
tr=$RUN_TRACE
if stacks_on; then
    naps() { gt_trans "$tr" | awk -F'\t' -v re="$1" '$3 == "Waiting" && $4 == "sleep" && $6 ~ re' |
        grep -c .; }
    assert_ge "$(naps '^nanosleep\\|nap\\|realigned\\|?$')" 1 \
        "naps before libunwind was loaded: the frames above realigned"
    assert_ge "$(naps '^nanosleep\\|nap\\|realigned\\|napper(\\||$)')" 1 \
        "naps after: past realigned, through libunwind"
    assert_eq "$(gt_trans "$tr" | awk -F'\t' '$3 == "Waiting" && $4 == "sleep" {
            whole = $6 ~ /napper$/; if (had && !whole) cut_after++; had = had || whole; last = $6 }
        END { print cut_after + 0, last }')" "0 nanosleep|nap|realigned|napper" \
        "naps cut after a whole one, and the last nap's stack"
else
    skip_part "stack checks: GOTRACE_STACKS=0"
fi
