# lib_locks.sh: reading `gotrace locks`, `hangs` and `critical-path` output in the lock cases
# (test/integration/cases/locks_*.sh); sourced by them after lib_profiles.sh.
#   dur_ms TEXT                 a duration as the decoder prints it (812ns, 3.5us, 40.31ms,
#                               1.351s) in whole ms, rounded
#   locks_of FILE               `gotrace locks --holders FILE` once, into FILE.locks
#   lock_field FILE NAME FIELD  FIELD (waits, total, avg, max) of object NAME ("" if absent)
#   holder_ms FILE NAME HOLDER  ms blamed on HOLDER (a thread name, e.g. "ledger_writer (G4)"
#                               or a prefix of it) for object NAME, 0 if none
#   share_pct FILE WHO          critical-path share by thread of WHO (a name prefix), rounded
#   ender_waits FILE NAME WHO   waits of object NAME in the --holders line of WHO, the line's
#                               words before the time: "held by X", "signalled by X", "posted
#                               by X", "X arrived last", "(ended itself: no waker recorded)";
#                               0 if none
#   enders FILE NAME            those words of every such line of object NAME, one per line

GT_DECODER=$GT_BUILD/gotrace

dur_ms() {
    awk -v d="$1" 'BEGIN { v = d + 0; u = d; sub(/^[0-9.]+/, "", u)
        m = u == "s" ? 1000 : u == "ms" ? 1 : u == "us" ? 0.001 : u == "ns" ? 0.000001 : -1
        if (m < 0) { print "bad"; exit 1 } printf "%d\n", v * m + 0.5 }'
}

locks_of() {
    local f=$1
    if [ ! -s "$f.locks" ] || [ "$f" -nt "$f.locks" ]; then
        "$GT_DECODER" locks --holders --top 1000 "$f" >"$f.locks" 2>"$f.locks.err" ||
            fail "gotrace locks $(basename "$f") failed: $(head -c 300 "$f.locks.err")"
    fi
    cat "$f.locks"
}

lock_field() {
    locks_of "$1" | awk -v name="$2" -v field="$3" '
        /^#[0-9]+  / { sub(/^#[0-9]+  /, ""); n = index($0, "  waits=")
            if (substr($0, 1, n - 1) != name) next
            split(substr($0, n + 2), kv, "  ")
            for (i in kv) { split(kv[i], p, "="); if (p[1] == field) print p[2] }; exit }'
}

holder_ms() {
    local v
    v=$(locks_of "$1" | awk -v name="$2" -v who="$3" '
        /^#[0-9]+  / { s = $0; sub(/^#[0-9]+  /, "", s); cur = substr(s, 1, index(s, "  waits=") - 1) }
        cur == name && index($0, "  held by " who) == 1 {
            s = $0; sub(/.*: blamed /, "", s); sub(/ in .*/, "", s); print s; exit }')
    if [ -z "$v" ]; then echo 0; else dur_ms "$v"; fi
}

share_pct() {
    awk -v who="$2" '/^by thread:/ { on = 1; next } /^$/ { on = 0 }
        on { s = $0; sub(/^ +/, "", s); split(s, f, " +"); name = substr(s, index(s, f[3]))
             if (index(name, who) == 1) { printf "%d\n", f[1] + 0.5; exit } }' "$1"
}

# The --holders lines of one object: "  WORDS: [blamed ]DURATION in N waits[, ... at:]".
enders_awk='/^#[0-9]+  / { s = $0; sub(/^#[0-9]+  /, "", s); cur = substr(s, 1, index(s, "  waits=") - 1); next }
    cur == name && /^  [^ ]/ && match($0, /: (blamed )?[0-9.]+[a-z]+ in [0-9]+ waits/) {
        who = substr($0, 3, RSTART - 3); n = substr($0, RSTART, RLENGTH); sub(/ waits$/, "", n); sub(/.* /, "", n)'

ender_waits() {
    locks_of "$1" | awk -v name="$2" -v want="$3" "$enders_awk"'
        if (who == want) { print n; found = 1; exit } } END { if (!found) print 0 }'
}

enders() {
    locks_of "$1" | awk -v name="$2" "$enders_awk"'
        print who }'
}

# waits_blamed FILE OBJ N MS HOLDER WHAT: OBJ (`locks --holders` of FILE) has N waits of at least
# MS ms in all, at least 95 % of that time blamed on HOLDER (WHAT names OBJ in the messages).
waits_blamed() {
    local total
    assert_eq "$(lock_field "$1" "$2" waits)" "$3" "$6's waits"
    total=$(dur_ms "$(lock_field "$1" "$2" total)")
    assert_ge "$total" "$4" "$6's total wait (ms)"
    assert_ge "$(holder_ms "$1" "$2" "$5")" $((total * 95 / 100)) "$6's wait blamed on $5 (ms)"
}
