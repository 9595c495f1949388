# lib_tree.sh: what the cases that record a process tree share (xproc.sh, xpipes.sh): each mode
# run untraced, then under `gotrace record`, and the merged trace's threads and wakers.
# Invariants: run from the case's folder; G is the decoder; every merged trace is validated.

# record_modes PROG MODE...: PROG MODE PIDFILE, untraced (plain.MODE.pids) then under `gotrace
# record -o MODE.trace` (MODE.pids): both print "ok", record exits 0, MODE.trace validates.
record_modes() {
    local prog=$1 name rc mode
    name=$(basename "$prog")
    shift
    for mode in "$@"; do
        rm -f "plain.$mode.pids" "$mode.pids"
        plain_run "plain-$mode" -- "$prog" "$mode" "$CASE_DIR/plain.$mode.pids"
        expect_status "$name $mode untraced" 0
        assert_eq "$(cat "$RUN_OUT")" ok "untraced $mode output"
        rc=0
        "$G" record -o "$mode.trace" -- "$prog" "$mode" "$CASE_DIR/$mode.pids" >"$mode.out" \
            2>"$mode.err" || rc=$?
        assert_eq "$rc" 0 "record's status for $name $mode"
        assert_eq "$(cat "$mode.out")" ok "traced $mode output"
        validate "$mode.trace"
    done
}

# gid TRACE NAME: the goroutine id of the thread NAME ("xproc[123] main") in TRACE's summary.
gid() { "$G" summary "$1" | awk -v n="$2" '$1 " " $2 == n { print $3; exit }'; }

# site_wakers TRACE REASON: contention's "woken by" line of the wait site with that reason.
site_wakers() {
    "$G" contention "$1" | awk -v r="$2" '/^#/ { on = index($0, "  " r "  ") > 0 }
                                          on && /woken by:/ { print; exit }'
}
