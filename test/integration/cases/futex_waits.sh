# futex_waits: futex calls made through syscall() are sync waits (reason "sync: futex"), woken
# by the thread whose wake released them, with the waiting line in the stack (issue 19).
# futex_raw (C, raw FUTEX_WAIT/WAKE): the 300 ms wait, a 30 ms timed wait and a 100 ms wait
# moved to another word by FUTEX_CMP_REQUEUE in Go's sync profile within 10 %, the waiting line
# named, the wakes written by main (the requeued waiter's too: it ended its wait itself before,
# unnamed); the calls that do not block keep their exact result and errno (EAGAIN, ETIMEDOUT,
# 0 woken). futex_cxx (C++20
# counting_semaphore, latch, barrier, atomic wait) and futex_rust (Rust std Mutex, Condvar,
# mpsc, RwLock), each 4 waits of 200 ms: 800 ms within 10 %, the waiting lines named; each only
# where its compiler is installed (scripts/setup.sh installs them). futex_rust's words in
# `gotrace locks --holders` (with stacks): the Mutex, Condvar, RwLock named as such and the mpsc
# channel's as a futex, each by its waiting line, held by, signalled by or woken by main (which
# held the Mutex and the RwLock's read lock, notified, sent).
source "$GT_ROOT/test/integration/lib_profiles.sh"

check_prog() { # check_prog NAME PROG WANT_MS SRCFILE: same output as untraced, valid, profile
    local name=$1 prog=$2 want=$3 src=$4
    plain_run "plain-$name" -- "$prog"
    local untraced
    untraced=$(cat "$RUN_OUT")
    assert_eq "$untraced" ok "$name untraced output"
    trace_run "$name" -- "$prog"
    expect_status "$name" 0
    assert_eq "$(cat "$RUN_OUT")" "$untraced" "$name traced output"
    validate "$RUN_TRACE"
    assert_within "$name: sync profile total (ms)" "$(pprof_total_ms "$RUN_TRACE" sync)" "$want" 10
    local line
    line=$(grep -n 'known wait 1\|the known wait' "$GT_PROGS/$src" | head -1 | cut -d: -f1)
    assert_true "$name: sync profile names $src:$line" pprof_names "$RUN_TRACE" sync "$src:$line"
}

check_prog futex_raw "$(build_prog futex_raw)" 430 futex_raw.c
tr=$CASE_DIR/futex_raw.trace
gw=$(gids_started_at "$tr" futex_waiter)
assert_eq "$(blocks "$tr" "$gw" 'sync: futex')" 1 "futex_waiter's futex blocks"
assert_eq "$(woken_by "$tr" "$gw" "$(gid_m "$tr" 1)" 'sync: futex')" 1 "its wake written by main"
gq=$(gids_started_at "$tr" requeued_waiter)
assert_eq "$(blocks "$tr" "$gq" 'sync: futex')" 1 "requeued_waiter's futex blocks"
assert_eq "$(woken_by "$tr" "$gq" "$(gid_m "$tr" 1)" 'sync: futex')" 1 \
    "its wake (on the word it was moved to) written by main"

if [ -n "$GT_SANITIZER" ]; then
    skip_part "futex_cxx, futex_rust: libstdc++'s and Rust's std futex code is not instrumented (the $GT_SANITIZER runtime reports their own synchronization, untraced too)"
elif "${CXX:-c++}" -std=c++20 -O1 -g -pthread -o "$GT_BIN/futex_cxx" "$GT_PROGS/futex_cxx.cc" \
    2>"$CASE_DIR/build-cxx.log"; then
    check_prog futex_cxx "$GT_BIN/futex_cxx" 800 futex_cxx.cc
else
    skip_part "futex_cxx: no C++20 compiler ($(head -c 200 "$CASE_DIR/build-cxx.log"))"
fi

if [ -n "$GT_SANITIZER" ]; then
    :
elif command -v rustc >/dev/null; then
    rustc -g -O -o "$GT_BIN/futex_rust" "$GT_PROGS/futex_rust.rs" 2>"$CASE_DIR/build-rust.log" ||
        fail "rustc failed: $(head -c 300 "$CASE_DIR/build-rust.log")"
    check_prog futex_rust "$GT_BIN/futex_rust" 800 futex_rust.rs
    if stacks_on; then # each futex word named by its kind and line, with main as its holder or waker
        source "$GT_ROOT/test/integration/lib_locks.sh"
        tr=$CASE_DIR/futex_rust.trace
        for want in "1 mutex held" "2 condvar signalled" "3 futex woken" "4 rwlock held"; do
            set -- $want
            l=$(grep -n "known wait $1\$" "$GT_PROGS/futex_rust.rs" | cut -d: -f1)
            o=$(locks_of "$tr" | sed -n 's/^#[0-9]*  \(.*\)  waits=.*/\1/p' |
                grep -E "^$2 0x[0-9a-f]+ first waited in futex_rust::main::\{\{closure\}\} \(futex_rust.rs:$l\)\$" || true)
            [ -n "$o" ] || fail "futex_rust: no $2 named by line $l: $(grep '^#' "$tr.locks")"
            assert_eq "$(enders "$tr" "$o")" "$3 by main (G1)" "futex_rust: who ended the waits on $o"
        done
    fi
else
    skip_part "futex_rust: rustc not installed"
fi
