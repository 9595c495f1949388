# symbols_debuglink: symbolization reads local debug files only (preload/stack/symbolize.c). sync_hold
# is built with -g, its DWARF split into a separate file that the stripped program names by
# .gnu_debuglink. Checks: with the file in .debug/ beside the program, the trace's stacks give
# sync_hold.c:LINE of the known wait; with another build's debug file there instead (another
# build ID), no line of sync_hold.c (that DWARF would lie) but still the ELF symbol
# wait_for_lock; and the traced process never loads libdebuginfod, even with DEBUGINFOD_URLS
# set (glibc's LD_DEBUG=files lists every object loaded, dlopen'ed ones too): a stripped
# system program has no local debug info, which is when elfutils' standard lookup dlopens it
# (run without the symbol cache, so that libdw is loaded and asked).
# Split DWARF (-gsplit-dwarf: the program keeps skeleton units, the functions are in a .dwo
# beside it), built with cc and with clang when present: the known wait's line too.

dir=$CASE_DIR/dl
rm -rf "$dir" && mkdir -p "$dir/.debug"
src=$GT_PROGS/sync_hold.c
cc=${CC:-cc}
"$cc" -O1 -g -pthread -D_GNU_SOURCE -o "$dir/hold" "$src" 2>"$CASE_DIR/build.log" ||
    fail "cannot build sync_hold: $(head -c 300 "$CASE_DIR/build.log")"
"$cc" -O0 -g -pthread -D_GNU_SOURCE -o "$dir/other" "$src" 2>>"$CASE_DIR/build.log" ||
    fail "cannot build the other sync_hold"
objcopy --only-keep-debug "$dir/hold" "$dir/.debug/hold.debug"
strip --strip-debug "$dir/hold"
objcopy --add-gnu-debuglink="$dir/.debug/hold.debug" "$dir/hold"
objcopy --only-keep-debug "$dir/other" "$dir/other.debug"
line=$(grep -n 'the known wait' "$src" | cut -d: -f1)

frames() { "$GT_BUILD/gotrace" dump --stacks "$1" | grep -c "$2" || true; }

trace_run linked -- "$dir/hold"
expect_status sync_hold 0
validate "$RUN_TRACE"
if stacks_on; then
    assert_ge "$(frames "$RUN_TRACE" "sync_hold.c:$line")" 10 "frames at sync_hold.c:$line"
else
    skip_part "stack checks: GOTRACE_STACKS=0"
fi

cp "$dir/other.debug" "$dir/.debug/hold.debug"
trace_run mismatched -- "$dir/hold"
expect_status sync_hold 0
validate "$RUN_TRACE"
if stacks_on; then
    assert_eq "$(frames "$RUN_TRACE" "sync_hold.c:")" 0 "frames from another build's DWARF"
    assert_ge "$(frames "$RUN_TRACE" "wait_for_lock")" 10 "frames named from the ELF symbols"
fi

trace_run nodebuginfod LD_DEBUG=files DEBUGINFOD_URLS=http://127.0.0.1:9/ GOTRACE_SYMCACHE=0 -- /bin/true
expect_status true 0
validate "$RUN_TRACE"
assert_contains "$RUN_ERR" "file=libdw.so.1" "LD_DEBUG's list of loaded objects"
assert_eq "$(grep -c 'libdebuginfod' "$RUN_ERR" || true)" 0 "loads of libdebuginfod"

for c in "$cc" clang; do
    command -v "$c" >/dev/null || continue
    sdir=$CASE_DIR/split-$c
    rm -rf "$sdir" && mkdir -p "$sdir"
    (cd "$sdir" && "$c" -O1 -g -gsplit-dwarf -pthread -D_GNU_SOURCE -o hold "$src") \
        2>>"$CASE_DIR/build.log" || fail "cannot build sync_hold with $c -gsplit-dwarf"
    ls "$sdir"/*.dwo >/dev/null 2>&1 || fail "$c -gsplit-dwarf wrote no .dwo"
    trace_run "split-$c" -- "$sdir/hold"
    expect_status sync_hold 0
    validate "$RUN_TRACE"
    if stacks_on; then
        assert_ge "$(frames "$RUN_TRACE" "sync_hold.c:$line")" 10 "frames at sync_hold.c:$line ($c, split DWARF)"
    fi
done
