# syscall_pipe: a writer thread writes one byte into a pipe every 20 ms, 15 times, and closes
# it; main reads until end of file (progs/sync_pipe.c). Checks: output; valid trace; every read
# is a syscall of main with stack read|read_all|main (16: 15 bytes + end of file), every write
# one of the writer with stack write|writer (15), then its close; all syscalls end; main's
# reads that waited are blocks on the pipe ("pipe: read pipe:[N]"), each woken by the writer
# but the one the close ended (docs/blocking.md "Pipes and sockets"), with GOTRACE_PIPES=1; without
# it, every read a system call, no pipe wait.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_pipe)
trace_run run GOTRACE_PIPES=1 -- "$prog"
expect_status sync_pipe 0
assert_eq "$(cat "$RUN_OUT")" "reads 16 writes 15" "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE
gw=$(gids_started_at "$tr" writer)
assert_eq "$(count_trans "$tr" Running Syscall)" "$(count_trans "$tr" Syscall Running)" "syscall begins vs ends"
stack_checks_follow
gt_trans "$tr" >"$tr.sel"
reads=$(awk -F'\t' '$1 == 1 && $3 == "Syscall" && $6 == "read|read_all|main"' "$tr.sel" | grep -c . || true)
assert_eq "$reads" 16 "main's read syscalls"
writes=$(awk -F'\t' -v g="$gw" '$1 == g && $3 == "Syscall" && $6 == "write|writer"' "$tr.sel" | grep -c . || true)
assert_eq "$writes" 15 "writer's write syscalls"
assert_eq "$(leaves "$tr" Syscall "$gw" | tail -n1)" close "writer's last syscall"
w=$("$GT_BUILD/gotrace" contention "$tr" | awk '/^#/ { on = index($0, "  pipe: read pipe:[") > 0 }
                                                  on && /woken by:/ { print; exit }')
echo "$w" | grep -Eq '^  woken by: writer \([0-9]+\)(, \(ended itself: no waker recorded\) \(1\))?$' ||
    fail "main's waits on the pipe: $w"

# Without GOTRACE_PIPES (and outside gotrace record) the tracer does not learn pipes: every
# read is the system call it was, and no wait names the pipe (docs/blocking.md).
trace_run plain -- "$prog"
expect_status "sync_pipe, pipes off" 0
validate "$RUN_TRACE"
assert_eq "$(gt_trans "$RUN_TRACE" | awk -F'\t' '$1 == 1 && $3 == "Syscall" && $6 ~ /^read\|/' | grep -c . || true)" 16 \
    "main's reads, all system calls, with pipes off"
assert_eq "$("$GT_BUILD/gotrace" dump "$RUN_TRACE" | grep -c 'GoBlock reason="pipe:' || true)" 0 \
    "pipe waits with pipes off"
