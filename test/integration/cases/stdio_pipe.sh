# stdio_pipe: stdio calls that read or write their stream's descriptor (preload/hooks/stdio.c)
# are traced as the read or write they make, with the stdio call as the leaf frame; calls the
# stream's buffer serves write nothing. progs/stdio_pipe.c (built with _FORTIFY_SOURCE):
# - read FN: main reads 3 lines with FN from a pipe; the feeder writes each only once main
#   sleeps in the pipe's read, so each line is one read that waits: a block "pipe: read
#   pipe:[INO]" (a pipe the tracer knows: docs/blocking.md "Pipes and sockets") with FN's hook
#   as leaf (getc_unlocked is the macro that calls __uflow; fortified fgets and fread are
#   __fgets_chk and __fread_chk, getline the inline that calls __getdelim; and a fortified
#   read(2) of the descriptor, __read_chk) in read_lines,
#   woken by the feeder thread 3 times (the end of file, when it waited, ends itself);
# - write FN: the filler writes 256 KiB with FN into a pipe main drains only once the filler
#   sleeps in the pipe's write: at least one syscall of the filler with FN's hook as leaf, the
#   pipe named, and at most one per 4 KiB buffer (262,144 fputc calls write nothing but when the
#   buffer is full); with a 1 MiB setvbuf buffer only the fflush calls write (64), fwrite never;
# - a shell pipeline `stdio_pipe produce | uniq -c` under record: uniq reads its stdin through
#   __uflow (getc_unlocked), and its 3 waits are woken by the producer's thread (fputs + fflush,
#   each once uniq sleeps in the read: the tree's shared wait page, a gotrace.write log).
# Every trace validates. On a tracer without the stdio hooks every count is 0.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog stdio_pipe)
cd "$CASE_DIR"

# leaf_count TRACE GID LEAF: syscalls of GID whose leaf frame is LEAF.
leaf_count() { leaves "$1" Syscall "$2" | grep -cx -- "$3" || true; }

for pair in getc_unlocked:__uflow getc:getc fgetc:fgetc fgets:__fgets_chk fread:__fread_chk \
    getline:__getdelim getdelim:getdelim read:__read_chk; do
    fn=${pair%%:*} leaf=${pair#*:}
    trace_run "r-$fn" GOTRACE_PIPES=1 -- "$prog" read "$fn"
    expect_status "stdio_pipe read $fn" 0
    assert_eq "$(cat "$RUN_OUT")" "$fn lines 3" "read $fn: output"
    validate "$RUN_TRACE"
    "$GT_BUILD/gotrace" contention "$RUN_TRACE" >"r-$fn.cont"
    # the pipe's wait site: its waits, first frame, wakers
    site=$(awk '/^#/ { on = index($0, "  pipe: read pipe:[") > 0; if (on) print $5; next }
        on && !f++ { print $1 } on && /woken by:/ { print }' "r-$fn.cont" | tr '\n' '|')
    case "$site" in
    waits=[34]\|"$leaf"\|*"woken by: feeder (3)"*) ;;
    *) fail "read $fn: main's pipe waits: $site (r-$fn.cont)" ;;
    esac
    grep -q "^    read_lines " "r-$fn.cont" || fail "read $fn: the waits' stacks do not run through read_lines"
done

for fn in fwrite fputs fputc putc fflush; do
    trace_run "w-$fn" -- "$prog" write "$fn"
    expect_status "stdio_pipe write $fn" 0
    assert_eq "$(cat "$RUN_OUT")" "$fn bytes 262144" "write $fn: output"
    validate "$RUN_TRACE"
    gf=$(gids_started_at "$RUN_TRACE" filler)
    n=$(leaf_count "$RUN_TRACE" "$gf" "$fn")
    [ "$n" -ge 1 ] && [ "$n" -le 65 ] || fail "write $fn: $n syscalls of the filler in $fn (want 1-65)"
    "$GT_BUILD/gotrace" summary "$RUN_TRACE" >"w-$fn.sum"
    grep -A3 '^filler ' "w-$fn.sum" | grep -qE 'syscalls on pipe:\[[0-9]+\]' ||
        fail "write $fn: the filler's wait does not name the pipe (w-$fn.sum)"
done
assert_eq "$(leaf_count "$RUN_TRACE" "$gf" fflush):$(leaf_count "$RUN_TRACE" "$gf" fwrite)" \
    64:0 "with a 1 MiB buffer, fflush writes and fwrite does not"

# A real filter: uniq reads its pipe with getc_unlocked (__uflow); the producer writes each of
# its 3 lines with fputs + fflush once uniq sleeps in that read (its stdin pipe's wchan), so
# each is a wait that the producer's stdio write ends, across processes (record's wait page).
"$GT_BUILD/gotrace" record -o pl.trace -- sh -c "'$prog' produce | uniq -c" >pl.out 2>pl.err ||
    fail "record of the pipeline failed: $(tail -n 3 pl.err)"
assert_eq "$(tr -s ' ' <pl.out)" " 3 line" "the pipeline's output"
validate pl.trace
"$GT_BUILD/gotrace" summary pl.trace >pl.sum
gp=$(awk '$1 ~ /^stdio_pipe\[[0-9]+\]$/ && $2 == "main" { print $1 }' pl.sum)
[ -n "$gp" ] && grep -q '^uniq\[[0-9]*\] main ' pl.sum || fail "no producer or uniq in the merged trace"
"$GT_BUILD/gotrace" contention pl.trace >pl.cont
# uniq reads at two call sites (its first line, the others): the wakes summed over both
n=$(awk -v p="$gp main (" '/^#/ { on = index($0, "  pipe: read pipe:[") > 0; n = 0; next }
    on && !n++ { f = $1 } on && f == "__uflow" && /woken by:/ && (i = index($0, p)) {
        s += substr($0, i + length(p)) + 0 } END { print s + 0 }' pl.cont)
assert_eq "$n" 3 "uniq's waits in __uflow woken by $gp main"
