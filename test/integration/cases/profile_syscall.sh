# profile_syscall: a pipe written every 20 ms, 15 times, read by main (progs/sync_pipe.c raw:
# made by a raw system call, so the tracer does not know it for a pipe and the reads stay
# system calls, as any read of a descriptor it does not know).
# Checks: valid trace; `go tool trace -pprof=syscall` totals 300 ms (main's wait in read)
# within 10 %, and names read and read_all.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_pipe)
trace_run run -- "$prog" raw
expect_status sync_pipe 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
stack_checks_follow
assert_within "syscall profile total (ms)" "$(pprof_total_ms "$tr" syscall)" 300 10
for want in read read_all; do
    assert_true "syscall profile names $want" pprof_names "$tr" syscall "$want"
done
