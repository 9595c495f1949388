# section.sh: sourced by the bench scripts. results_section FILE NAME SCRIPT HEADING < TEXT
# puts TEXT between "<!-- NAME:begin (bench/SCRIPT rewrites this section) -->" and
# "<!-- NAME:end -->" in FILE (a results file), replacing what was there; a FILE without those
# markers gets HEADING, then the markers, at its end. want_pkg CMD-OR-FILE PACKAGE... installs
# an optional tool's packages when CMD-OR-FILE is missing (as root, with apt-get, unless
# BENCH_NO_INSTALL=1; apt's output to $APT_LOG) and says whether it is there now; the caller
# defines log.
# Invariant: everything outside the markers stays as it is; FILE is replaced whole.
want_pkg() {
    local probe=$1
    shift
    if [ -e "$probe" ] || command -v "$probe" >/dev/null 2>&1; then return 0; fi
    if [ "${BENCH_NO_INSTALL:-}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        log "installing $*"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@") \
            >"${APT_LOG:-/dev/null}" 2>&1 || true
    fi
    [ -e "$probe" ] || command -v "$probe" >/dev/null 2>&1
}

results_section() {
    local file=$1 name=$2 script=$3 heading=$4 text
    local begin="<!-- $name:begin (bench/$script rewrites this section) -->" end="<!-- $name:end -->"
    text=$(mktemp)
    cat >"$text"
    if [ ! -s "$file" ]; then
        printf '%s\n\n%s\n%s\n' "$heading" "$begin" "$end" >"$file"
    elif ! grep -qF "$begin" "$file"; then
        printf '\n%s\n\n%s\n%s\n' "$heading" "$begin" "$end" >>"$file"
    fi
    awk -v b="$begin" -v e="$end" -v f="$text" '
        $0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
        $0 == e { skip = 0 }
        !skip { print }' "$file" >"$file.tmp"
    mv "$file.tmp" "$file"
    rm -f "$text"
}
