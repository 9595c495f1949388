# syscall_list: main makes one call of each hooked system call that may block and of variants
# that cannot (progs/sync_syscalls.c). Checks: output "ok" (every result right); valid trace;
# main's syscalls are exactly, in order, the blocking calls, each with its own function as the
# leaf of the stack and main below it (O_CREAT open, flock without LOCK_NB, fcntl F_SETLKW);
# waits for children are blocks, not syscalls (docs/blocking.md "Across processes"): waitpid and
# wait of children that end once main sleeps in the wait are "wait: child PID" and "wait: any
# child", each followed by the gotrace.ended log of its child's exit status; wait4 and wait3 of children
# SIGKILL ended before any hook ran in them (whose empty live files the reaping call removes)
# are blocks or nothing (a child already dead is reaped by the try, without an event); the
# non-blocking variants (LOCK_NB, F_GETFL, MSG_DONTWAIT, WNOHANG, syscall(SYS_getpid)) emit
# nothing; the futex wait through syscall() is a sync wait ("sync: futex", futex_waits), its
# stack's leaf syscall.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_syscalls)
trace_run run -- "$prog"
expect_status sync_syscalls 0
assert_eq "$(cat "$RUN_OUT")" ok "program output"
validate "$RUN_TRACE"
tr=$RUN_TRACE
want="open write pwrite writev fsync fdatasync pread readv read open openat close flock fcntl"
want="$want send recv sendto recvfrom sendmsg recvmsg connect accept "
assert_eq "$(count_trans "$tr" Syscall Running 1)" "$(echo $want | wc -w)" "main's syscall ends"
# The children SIGKILL ended before any hook ran in them left live files holding nothing: the
# reaping wait4 and wait3 removed them (before 2026-11-28 they stayed on /dev/shm for good).
left=$(live_files_of "$tr.")
[ -z "$left" ] || fail "a killed child's live file is left: $left"
stack_checks_follow
assert_eq "$(leaves "$tr" Syscall 1 | tr '\n' ' ')" "$want" "main's syscalls"
bad=$(gt_trans "$tr" | awk -F'\t' '$1 == 1 && $3 == "Syscall" && $6 !~ /^[a-z0-9]+\|main$/')
[ -z "$bad" ] || fail "syscall stacks other than CALL|main: $(echo "$bad" | head -3)"
assert_eq "$(count_reason "$tr" 1 'sync: futex')" 1 "main's futex wait, a sync wait"
assert_eq "$(count_reason "$tr" 1 'wait: child ')" "$(leaves "$tr" Waiting 1 | grep -c '^wait[p4]')" "child waits (waitpid, wait4)"
assert_ge "$(count_reason "$tr" 1 'wait: child ')" 1 "waitpid's block"
assert_ge "$(count_reason "$tr" 1 'wait: any child')" 1 "wait's block"
logs=$("$GT_BUILD/gotrace" dump "$tr" | grep -o 'key="gotrace.ended" value="[^"]*"' | sed 's/.*value="//; s/"$//')
assert_eq "$(echo "$logs" | grep -c 'exited, status 7$')" 1 "waitpid's child in a gotrace.ended log"
assert_eq "$(echo "$logs" | grep -c 'exited, status 8$')" 1 "wait's child in a gotrace.ended log"
assert_eq "$(leaves "$tr" Waiting 1 | grep -c '^syscall$')" 1 "its stack's leaf"
