# locks_langs: the locks of Rust's std and of OpenMP named, with their holders (issue 46 item 7).
# rust_locks (progs/rust_locks.rs, when rustc is installed): ledger_writer holds a std Mutex
# while ledger_reader waits for it in wait_ledger, 3 times, each at least 30 ms (the writer
# holds it 30 ms after the reader is asleep); then the reader waits on a Condvar in wait_signal
# until the writer notifies it. `gotrace locks --holders` names the mutex by the reader's line
# ("mutex 0x... first waited in rust_locks::wait_ledger (rust_locks.rs:L)", not Rust std's
# futex_wait), with 3 waits, at least 90 ms, every one held by ledger_writer (nobody else
# named); the condvar by wait_signal's line, signalled by ledger_writer; `gotrace contention`
# shows the same name and holder. omp_critical (progs/omp_critical.c, built with gcc and with
# clang -fopenmp; clang's libomp with KMP_LOCK_KIND=futex, whose waiters sleep in the kernel
# as the program needs): an unnamed critical section, 6 waits of at least 30 ms, held by
# crit_holder for at least 95 % of their total and in all 6 (the waiter that gets it first
# holds it a few microseconds while the other waits). Each run's output as untraced; every
# trace valid. cxx_locks (progs/cxx_locks.cc): a std::mutex in a heap object, held by bank_holder
# while the waiter waits in wait_bank: named "mutex 0x... first waited in wait_bank(Bank*)
# (cxx_locks.cc:L)" (not libstdc++'s __gthread_mutex_lock), held by bank_holder.
source "$GT_ROOT/test/integration/lib_profiles.sh"
source "$GT_ROOT/test/integration/lib_locks.sh"

src_line() { grep -n -- "$2" "$GT_PROGS/$1" | head -n1 | cut -d: -f1; }

# obj_named FILE PATTERN: the name of the object of FILE's `locks --holders` matching PATTERN
# (an extended regex of the whole name).
obj_named() {
    locks_of "$1" | sed -n 's/^#[0-9]*  \(.*\)  waits=.*/\1/p' | grep -E "^($2)\$" | head -n1 || true
}

# run_both TAG BIN: BIN untraced, then traced; same output, status 0, a valid trace.
run_both() {
    plain_run "plain-$1" -- "$2"
    local want
    want=$(cat "$RUN_OUT")
    assert_eq "$want" ok "$1 untraced output"
    trace_run "$1" -- "$2"
    expect_status "$1" 0
    assert_eq "$(cat "$RUN_OUT")" "$want" "$1 traced output"
    validate "$RUN_TRACE"
}

if [ -n "$GT_SANITIZER" ]; then
    skip_part "rust_locks: Rust's std futex code is not instrumented (the $GT_SANITIZER runtime reports its own synchronization)"
elif ! command -v rustc >/dev/null; then
    skip_part "rust_locks: rustc not installed"
else
    bin=$GT_BIN/rust_locks
    rustc -g -O -o "$bin" "$GT_PROGS/rust_locks.rs" 2>"$CASE_DIR/build-rust.log" ||
        fail "rustc failed: $(head -c 300 "$CASE_DIR/build-rust.log")"
    run_both rust "$bin"
    tr=$RUN_TRACE
    if stacks_on; then
        l=$(src_line rust_locks.rs "rust_locks: the known wait")
        m=$(obj_named "$tr" "mutex 0x[0-9a-f]+ first waited in rust_locks::wait_ledger \(rust_locks.rs:$l\)")
        [ -n "$m" ] || fail "no mutex named by wait_ledger's line $l: $(grep '^#' "$tr.locks")"
        waits_blamed "$tr" "$m" 3 90 ledger_writer "the ledger"
        who=$(enders "$tr" "$m")
        case "$who" in "held by ledger_writer (G"*) ;; *) fail "the ledger's holders: $who" ;; esac
        assert_eq "$(echo "$who" | wc -l)" 1 "holders of the ledger: $who"
        assert_eq "$(ender_waits "$tr" "$m" "$who")" 3 "the ledger's waits held by ledger_writer"
        l=$(src_line rust_locks.rs "rust_locks: the condvar wait")
        c=$(obj_named "$tr" "condvar 0x[0-9a-f]+ first waited in rust_locks::wait_signal \(rust_locks.rs:$l\)")
        [ -n "$c" ] || fail "no condvar named by wait_signal's line $l: $(grep '^#' "$tr.locks")"
        who=$(enders "$tr" "$c")
        case "$who" in "signalled by ledger_writer (G"*) ;; *) fail "the condvar's wakers: $who" ;; esac
        "$GT_DECODER" contention "$tr" >"$tr.con" || fail "gotrace contention failed"
        held=$(grep -A40 -F "  sync: $m  waits=" "$tr.con" | grep -m1 '^  held by:' || true)
        case "$held" in "  held by: ledger_writer (G"*) ;; *) fail "contention: the ledger $m held by: $held" ;; esac
    else
        skip_part "rust_locks: names and holders need stacks (GOTRACE_STACKS=0)"
    fi
fi

# A C++ std::mutex, named by the program's line, not by libstdc++'s inlined wrappers.
bin=$(build_prog cxx_locks)
run_both cxx "$bin"
tr=$RUN_TRACE
if stacks_on; then
    l=$(src_line cxx_locks.cc "cxx_locks: the known wait")
    m=$(obj_named "$tr" "mutex 0x[0-9a-f]+ first waited in wait_bank\(Bank\*\) \(cxx_locks.cc:$l\)")
    [ -n "$m" ] || fail "no mutex named by wait_bank's line $l: $(grep '^#' "$tr.locks")"
    assert_eq "$(enders "$tr" "$m" | sed 's/ (G.*//')" "held by bank_holder" "the bank's holders"
fi

ran=0
for cc in gcc clang; do
    bin=$CASE_DIR/omp_critical-$cc
    omp_build "$cc" "$GT_PROGS/omp_critical.c" "$bin" || continue
    ran=$((ran + 1))
    KMP_LOCK_KIND=futex run_both "omp-$cc" "$bin"
    tr=$RUN_TRACE
    o=$(obj_named "$tr" "omp critical( .gomp_critical_user_.var)?")
    [ -n "$o" ] || fail "$cc: no omp critical object: $(grep '^#' "$tr.locks")"
    waits_blamed "$tr" "$o" 6 180 crit_holder "$cc: the critical section"
    who=$(enders "$tr" "$o" | grep '^held by crit_holder (G' || true)
    [ -n "$who" ] || fail "$cc: the critical section's holders: $(enders "$tr" "$o")"
    assert_eq "$(ender_waits "$tr" "$o" "$who")" 6 "$cc: waits held by crit_holder"
    ! enders "$tr" "$o" | grep -q '(unknown)' || fail "$cc: an unknown holder: $(enders "$tr" "$o")"
done
assert_ge "$ran" 1 "builds of omp_critical"
