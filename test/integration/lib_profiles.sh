# lib_profiles.sh: helpers for the blocking cases (sync_*, syscall_*, profile_*): who woke whom,
# and Go's profiles of a trace. Sourced by those cases after lib.sh (source "$GT_ROOT/...").
#
#   gid_m FILE GID                  the M (thread id) GID runs on (its first start)
#   woken_by FILE GID M [TEXT]      GID's wake-ups (Waiting->Runnable) written on M, counting only
#                                   those ending a block whose reason contains TEXT
#   blocks FILE GID TEXT            = count_reason (Running->Waiting of GID, reason has TEXT)
#   leaves FILE TO [GID]            innermost frame of every Running->TO transition's stack (of
#                                   GID if given), in trace order, one per line
#   self_woken FILE GID             GID's wake-ups written on its own M
#   pprof_top FILE KIND             `go tool pprof -top -lines -unit=ms` of `go tool trace
#                                   -pprof=KIND FILE`, once per trace (FILE.KIND.top)
#   pprof_total_ms FILE KIND        the profile's total, in whole ms
#   pprof_names FILE KIND TEXT      whether the profile's top list contains TEXT (a function,
#                                   or FILE.c:LINE)
#   assert_within WHAT GOT WANT PCT GOT within PCT % of WANT
#
# Invariants: every go tool run is bounded by timeout and fails the case (through `fail`) when
# it fails; nothing here runs a traced program.

gid_m() {
    gt_trans "$1" | awk -F'\t' -v g="$2" '$1 == g && $2 == "Runnable" && $3 == "Running" && !m { m = $7 }
                                           END { print m }'
}

# The wake-up of a block is the first Waiting->Runnable of the same G after it.
woken_by() {
    local f=$1 g=$2 m=$3 text=${4:-}
    gt_trans "$f" | awk -F'\t' -v g="$g" -v m="$m" -v text="$text" '
        $1 != g { next }
        $2 == "Running" && $3 == "Waiting" { want = index($4, text) > 0; next }
        $2 == "Waiting" && $3 == "Runnable" { if (want && $7 == m) n++; want = 0 }
        END { print n + 0 }'
}

blocks() { count_reason "$@"; }

leaves() {
    gt_trans "$1" | awk -F'\t' -v to="$2" -v g="${3:-}" '
        $2 == "Running" && $3 == to && (g == "" || $1 == g) { split($6, fr, "|"); print fr[1] }'
}

self_woken() { woken_by "$1" "$2" "$(gid_m "$1" "$2")"; }

pprof_top() {
    local f=$1 kind=$2
    if [ -s "$f.$kind.top" ] && [ "$f.$kind.top" -nt "$f" ]; then
        cat "$f.$kind.top"
        return 0
    fi
    timeout 120 "$GT_GO" tool trace -pprof="$kind" "$f" >"$f.$kind.pb" 2>"$f.$kind.err" ||
        fail "go tool trace -pprof=$kind $(basename "$f") failed: $(head -c 300 "$f.$kind.err")"
    timeout 120 "$GT_GO" tool pprof -top -lines -unit=ms "$f.$kind.pb" >"$f.$kind.top.tmp" 2>"$f.$kind.err" ||
        fail "go tool pprof on the $kind profile failed: $(head -c 300 "$f.$kind.err")"
    mv "$f.$kind.top.tmp" "$f.$kind.top"
    cat "$f.$kind.top"
}

# "Showing nodes accounting for A, P% of T total" (T in us, ms or s; absent for an empty profile).
pprof_total_ms() {
    pprof_top "$1" "$2" >/dev/null
    awk 'match($0, / of [0-9.]+(us|ms|s) total/) {
             v = substr($0, RSTART + 4, RLENGTH - 10); u = v; sub(/^[0-9.]+/, "", u)
             t = (v + 0) * (u == "s" ? 1000 : u == "us" ? 0.001 : 1) }
         END { printf "%d\n", t + 0.5 }' "$1.$2.top"
}

pprof_names() {
    pprof_top "$1" "$2" >/dev/null
    grep -qF -- "$3" "$1.$2.top"
}

assert_within() {
    local what=$1 got=$2 want=$3 pct=$4
    local lo=$((want - want * pct / 100)) hi=$((want + want * pct / 100))
    [ "$got" -ge "$lo" ] && [ "$got" -le "$hi" ] || fail "$what: got $got, expected $want ± $pct %"
}
