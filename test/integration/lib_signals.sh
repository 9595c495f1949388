# lib_signals.sh: what the signal cases (signals_strict, signals_kinds) share, sourced by them
# after lib.sh. Not executable on its own.
# same_output WANT GOT WHAT: GOT is WANT. Under TSan, whose sigaction keeps a table of its own
# (the flags and mask as given, not as the kernel keeps them), flags and masks are left out.
same_output() {
    local strip='s/ (old|dfl)\.(flags|masked)=[0-9a-fx]+//g; s/\[[0-9a-fx]+ [01]\]//g'
    [ "$GT_SANITIZER" = tsan ] || strip=
    cmp -s <(sed -E "$strip" "$1") <(sed -E "$strip" "$2") ||
        fail "$3: output differs from untraced: $(diff "$1" "$2" | head -c 400)"
}
[ "$GT_SANITIZER" != tsan ] ||
    skip_part "flags and masks not compared: TSan's sigaction reports them as given, not as the kernel keeps them"
