# symbols_cache: the machine's symbol cache (preload/stack/symcache.c, docs/stacks.md). sync_hold
# is built with -g and traced with an empty cache directory; then the same binary with its
# DWARF and symbol table stripped (strip keeps the build ID) is traced at another path. Checks:
# the first run names the known wait with sync_hold.c:LINE; the stripped copy, with the cache,
# gives the same frames with lines, and no others (they came from the cache: it has no DWARF
# left);
# the stripped copy without the cache (GOTRACE_SYMCACHE=0) has no such line (what the cache
# gave is not what the file gives); libdw is loaded (dlopen, LD_DEBUG=files) without the cache,
# and for /bin/true in its first run but not in its second (the cache knows every frame); a
# debug file installed beside the stripped copy afterwards (.gnu_debuglink, another build: no
# line) is seen, not hidden by the cache; a cache file made of garbage lines is ignored.

stack_checks_follow
dir=$CASE_DIR/prog
cache=$CASE_DIR/cache
rm -rf "$dir" "$cache" && mkdir -p "$dir/copy"
src=$GT_PROGS/sync_hold.c
cc=${CC:-cc}
"$cc" -O1 -g -pthread -D_GNU_SOURCE -o "$dir/hold" "$src" 2>"$CASE_DIR/build.log" ||
    fail "cannot build sync_hold: $(head -c 300 "$CASE_DIR/build.log")"
line=$(grep -n 'the known wait' "$src" | cut -d: -f1)
strip --strip-all -o "$dir/copy/hold" "$dir/hold"

# The frames a trace names: its events' stacks, and its lock records' (a release's stack,
# which no event carries when the waiter woke before the releaser wrote its wake).
stack_lines() {
    { "$GT_BUILD/gotrace" dump --stacks "$1" | grep '^	' | grep -v '^	new_stack:'
      "$GT_BUILD/gotrace" locks --holders "$1" | grep -E '^ +[^ ].* [^ ]+:[0-9]+$'; } |
        sed 's/^[[:space:]]*//' | sort -u
}
frames() { "$GT_BUILD/gotrace" dump --stacks "$1" | grep -c "$2" || true; }

trace_run fresh GOTRACE_SYMCACHE="$cache" -- "$dir/hold"
expect_status sync_hold 0
validate "$RUN_TRACE"
assert_ge "$(frames "$RUN_TRACE" "sync_hold.c:$line")" 10 "frames at sync_hold.c:$line, fresh"
stack_lines "$RUN_TRACE" >"$CASE_DIR/fresh.stacks"

trace_run cached GOTRACE_SYMCACHE="$cache" -- "$dir/copy/hold"
expect_status sync_hold 0
validate "$RUN_TRACE"
stack_lines "$RUN_TRACE" >"$CASE_DIR/cached.stacks"
assert_ge "$(frames "$RUN_TRACE" "sync_hold.c:$line")" 10 "frames at sync_hold.c:$line from the cache"
# A wait the fresh run did not make (a join that blocked this time) is resolved from the
# stripped file (no line): every frame with a source line must be one the fresh run had.
extra=$(comm -13 "$CASE_DIR/fresh.stacks" "$CASE_DIR/cached.stacks" | grep -c ':[1-9][0-9]*$' || true)
assert_eq "$extra" 0 "frames with a line in the cached run that the fresh run does not have"

trace_run uncached GOTRACE_SYMCACHE=0 LD_DEBUG=files -- "$dir/copy/hold"
expect_status sync_hold 0
validate "$RUN_TRACE"
assert_contains "$RUN_ERR" "file=libdw.so.1" "LD_DEBUG's list of loaded objects, no cache"
assert_eq "$(frames "$RUN_TRACE" "sync_hold.c:")" 0 "frames with a line, stripped and uncached"

# A program whose stacks are the same every run (/bin/true: main's frame): libdw is loaded in
# the first run, and not in the second, whose frames all come from the cache.
for n in 1 2; do
    trace_run "true$n" GOTRACE_SYMCACHE="$CASE_DIR/cache-true" LD_DEBUG=files -- /bin/true
    expect_status "true, run $n" 0
    validate "$RUN_TRACE"
    loads[n]=$(grep -c 'file=libdw' "$RUN_ERR" || true)
done
assert_ge "${loads[1]}" 1 "loads of libdw with an empty cache"
assert_eq "${loads[2]}" 0 "loads of libdw with a warm cache"

# Another build's debug file beside the copy: its DWARF does not match (another build ID), so
# symbolize.c reads no line from it; the cache must not answer from the old state either.
"$cc" -O0 -g -pthread -D_GNU_SOURCE -o "$dir/other" "$src" 2>>"$CASE_DIR/build.log" ||
    fail "cannot build the other sync_hold"
mkdir -p "$dir/copy/.debug"
objcopy --only-keep-debug "$dir/other" "$dir/copy/.debug/hold.debug"
objcopy --add-gnu-debuglink="$dir/copy/.debug/hold.debug" "$dir/copy/hold" "$dir/copy/hold.linked"
mv "$dir/copy/hold.linked" "$dir/copy/hold"
trace_run relinked GOTRACE_SYMCACHE="$cache" -- "$dir/copy/hold"
expect_status sync_hold 0
validate "$RUN_TRACE"
assert_eq "$(frames "$RUN_TRACE" "sync_hold.c:")" 0 "frames with a line after a debug file appeared"

# Garbage in every cache file: ignored, the frames are resolved again.
for f in "$cache"/*.sym; do
    printf 'zz not a line\n12 0 9\tf\tfx\n1 0 1\t\tq\t3\n\x01\x02' >"$f"
done
trace_run garbage GOTRACE_SYMCACHE="$cache" -- "$dir/hold"
expect_status sync_hold 0
validate "$RUN_TRACE"
assert_ge "$(frames "$RUN_TRACE" "sync_hold.c:$line")" 10 "frames at sync_hold.c:$line, garbage cache"
