# d1trans.awk: `go tool trace -d=1` output -> one TSV line per goroutine state transition:
#   gid  from  to  reason  tstack  stack  m
# tstack/stack are the function names of the TransitionStack=/Stack= frames, innermost first,
# joined with "|". Input shape (Go 1.23 cmd/trace debug mode): an event is a line starting
# with "M=", optionally followed by "TransitionStack=" and "Stack=" sections whose frames are
# "\tFUNC @ 0xPC" lines (each followed by a "\t\tFILE:LINE" line), then a blank line.
function flush() {
    if (cur) print gid "\t" from "\t" to "\t" reason "\t" ts "\t" st "\t" m
    cur = 0
}
/^M=/ {
    flush()
    sect = ""
    if ($0 !~ / StateTransition / || $0 !~ / Resource=Goroutine\(/) next
    cur = 1
    ts = ""; st = ""; reason = ""
    m = $1; sub(/^M=/, "", m)
    if (match($0, / GoID=-?[0-9]+/)) gid = substr($0, RSTART + 6, RLENGTH - 6)
    if (match($0, / Reason="([^"\\]|\\.)*"/)) reason = substr($0, RSTART + 9, RLENGTH - 10)
    n = split($NF, st2, "->")
    from = st2[1]; to = st2[2]
    next
}
/^TransitionStack=/ { sect = "t"; next }
/^Stack=/ { sect = "s"; next }
/^\t\t/ { next }
/^\t/ {
    if (!cur) next
    fn = substr($0, 2)
    sub(/ @ 0x[0-9a-fA-F]+$/, "", fn)
    if (sect == "t") ts = (ts == "" ? fn : ts "|" fn)
    else if (sect == "s") st = (st == "" ? fn : st "|" fn)
    next
}
END { flush() }
