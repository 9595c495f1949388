# sync_pingpong: two threads (ping, pong) hand a turn back and forth 300 times through a mutex
# and a condvar (progs/sync_pingpong.c). Checks: output counts; valid trace; for each side,
# exactly as many "sync: condvar" blocks as the program's pthread_cond_wait calls, every one of
# them (but the spurious returns the program counted) woken on the other side's M, i.e. by the
# signaller, and every wake-up followed by the side's own start; the block stacks name
# pthread_cond_wait and play; balanced goroutines.
source "$GT_ROOT/test/integration/lib_profiles.sh"

prog=$(build_prog sync_pingpong)
trace_run run -- "$prog" 300
expect_status sync_pingpong 0
validate "$RUN_TRACE"
tr=$RUN_TRACE
read -r _ ping_waits ping_spur < <(grep '^ping ' "$RUN_OUT")
read -r _ pong_waits pong_spur < <(grep '^pong ' "$RUN_OUT")
assert_ge "$((ping_waits + pong_waits))" 598 "hand-offs that waited (program's count; only each side's first may not)"

gping=$(gids_started_at "$tr" ping)
gpong=$(gids_started_at "$tr" pong)
mping=$(gid_m "$tr" "$gping")
mpong=$(gid_m "$tr" "$gpong")
[ -n "$mping" ] && [ -n "$mpong" ] && [ "$mping" != "$mpong" ] || fail "no distinct Ms for ping/pong"

assert_eq "$(blocks "$tr" "$gping" 'sync: condvar')" "$ping_waits" "ping's condvar blocks"
assert_eq "$(blocks "$tr" "$gpong" 'sync: condvar')" "$pong_waits" "pong's condvar blocks"
assert_eq "$(woken_by "$tr" "$gping" "$mpong" 'sync: condvar')" "$((ping_waits - ping_spur))" \
    "ping's condvar wake-ups written by pong"
assert_eq "$(woken_by "$tr" "$gpong" "$mping" 'sync: condvar')" "$((pong_waits - pong_spur))" \
    "pong's condvar wake-ups written by ping"
for g in "$gping" "$gpong"; do
    seq=$(gid_sequence "$tr" "$g" | tr '\n' ' ')
    case " $seq " in
    *" Waiting->Runnable Running->"* | *" Waiting->Runnable Waiting->"*)
        fail "G$g: a wake-up not followed by its start: $seq" ;;
    esac
done
check_balanced "$tr"
stack_checks_follow
bad=$(gt_trans "$tr" | awk -F'\t' '$3 == "Waiting" && index($4, "condvar") &&
          $6 !~ /^pthread_cond_wait\|play\|(ping|pong)$/ { n++ } END { print n + 0 }')
assert_eq "$bad" 0 "condvar blocks whose stack is not pthread_cond_wait|play|ping/pong"

# Both clocks (preload/util/clock.h): the one chosen here (the TSC where the kernel keeps time with
# it, looked at once a thread has written a page of events or the flusher thread starts: the
# debug log says which), then CLOCK_MONOTONIC forced with GOTRACE_TSC=0 (the clock source is
# never looked at). 3000 hand-offs each: valid, balanced, and every wake-up followed by its start
# (what the parser orders by time across threads).
want=""
if [ "$(uname -m)" = x86_64 ] && grep -qw tsc /proc/cpuinfo; then
    want="clock: CLOCK_MONOTONIC (the kernel's clock source is not the TSC)"
    [ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" = tsc ] &&
        want="clock: the TSC (the kernel's clock source)"
fi
for tsc in 1 0; do
    trace_run "clock$tsc" GOTRACE_TSC=$tsc GOTRACE_DEBUG=1 -- "$prog" 3000
    expect_status "sync_pingpong 3000, GOTRACE_TSC=$tsc" 0
    if [ -n "$want" ]; then
        assert_contains "$RUN_ERR" "gotrace: $want" "GOTRACE_TSC=$tsc: the clock in the debug log"
    else
        assert_contains "$RUN_ERR" ", clock CLOCK_MONOTONIC)" "GOTRACE_TSC=$tsc: the clock in the debug log"
        [ "$(grep -c "gotrace: clock: " "$RUN_ERR" || true)" = 0 ] ||
            fail "GOTRACE_TSC=$tsc: the kernel's clock source was looked at"
    fi
    validate "$RUN_TRACE"
    check_balanced "$RUN_TRACE"
    want=""
done
