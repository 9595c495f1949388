# stdio_pipe: stdio calls that wait for a pipe's other end are system calls on that pipe, with
# the stdio call as the leaf frame (preload/hooks/stdio.c); calls the stream's buffer serves
# write nothing. progs/stdio_pipe.c (built with _FORTIFY_SOURCE):
# - read FN: main reads 3 lines with FN; the feeder writes each only once main sleeps in the
#   pipe's read, so each line is one read of the descriptor, and so is the end of file: exactly 4
#   syscalls of main whose leaf is FN's hook (getc_unlocked is the macro that calls __uflow;
#   fortified fgets and fread are __fgets_chk and __fread_chk, getline the inline that calls
#   __getdelim), in read_lines, and the pipe named (3 waits, the end of file when it waited);
# - write FN: the filler writes 256 KiB with FN into a pipe main drains only once the filler
#   sleeps in the pipe's write: at least one syscall of the filler with FN's hook as leaf, the
#   pipe named, and at most one per 4 KiB buffer (262,144 fputc calls write nothing but when the
#   buffer is full); with a 1 MiB setvbuf buffer only the fflush calls write (64), fwrite never;
# - a shell pipeline `seq | uniq | wc -l` under record: uniq (getc_unlocked -> __uflow, fwrite)
#   reads its pipe through __uflow.
# Every trace validates. On a tracer without the stdio hooks every count is 0.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog stdio_pipe)
cd "$CASE_DIR"

# leaf_count TRACE GID LEAF: syscalls of GID whose leaf frame is LEAF.
leaf_count() { leaves "$1" Syscall "$2" | grep -cx -- "$3" || true; }

for pair in getc_unlocked:__uflow getc:getc fgetc:fgetc fgets:__fgets_chk fread:__fread_chk \
    getline:__getdelim getdelim:getdelim; do
    fn=${pair%%:*} leaf=${pair#*:}
    trace_run "r-$fn" -- "$prog" read "$fn"
    expect_status "stdio_pipe read $fn" 0
    assert_eq "$(cat "$RUN_OUT")" "$fn lines 3" "read $fn: output"
    validate "$RUN_TRACE"
    assert_eq "$(leaf_count "$RUN_TRACE" 1 "$leaf")" 4 "read $fn: main's syscalls in $leaf"
    gt_trans "$RUN_TRACE" | awk -F'\t' -v l="$leaf" '$1 == 1 && $3 == "Syscall" &&
        index($6, l "|") == 1 && $6 ~ /\|read_lines\|/ { n++ } END { exit n != 4 }' ||
        fail "read $fn: the syscalls' stacks do not run through read_lines"
    "$GT_BUILD/gotrace" summary "$RUN_TRACE" >"r-$fn.sum"
    grep -A2 '^main ' "r-$fn.sum" | grep -qE 'syscalls on pipe:\[[0-9]+\] .* in [34] calls' ||
        fail "read $fn: main's waits do not name the pipe (r-$fn.sum)"
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

# A real filter: uniq reads its pipe with getc_unlocked (__uflow).
"$GT_BUILD/gotrace" record -o pl.trace -- sh -c 'seq 1 300000 | uniq | wc -l' >pl.out 2>pl.err ||
    fail "record of the pipeline failed: $(tail -n 3 pl.err)"
assert_eq "$(cat pl.out)" 300000 "the pipeline's output"
validate pl.trace
gu=$("$GT_BUILD/gotrace" summary pl.trace | awk '$1 ~ /^uniq\[[0-9]+\]$/ && $2 == "main" { print $3 }')
[ -n "$gu" ] || fail "no uniq main thread in the merged trace"
[ "$(leaf_count pl.trace "$gu" __uflow)" -ge 1 ] || fail "uniq's reads are not syscalls in __uflow"
