# annot_names: names given with pthread_setname_np (by the thread itself and by main for
# another thread) and with prctl(PR_SET_NAME) appear as GoLabel events on the named threads'
# goroutines (docs/annotations.md), each at least once, and nowhere else.

prog=$(build_prog annot_names)
trace_run run -- "$prog"
expect_status annot_names 0
assert_eq "$(cat "$RUN_OUT")" "ok" "program output"
assert_eq "$(gotrace_lines "$RUN_ERR")" 0 "gotrace: lines"
validate "$RUN_TRACE"
t=$RUN_TRACE
for fn in self_named by_main by_prctl; do
    gid=$(gids_started_at "$t" "$fn")
    [ -n "$gid" ] || fail "no goroutine started at $fn"
    name=$(printf '%s' "$fn" | tr _ -)
    assert_ge "$(d1_count "$t" "^M=[0-9]+ P=[0-9]+ G=$gid Label .*Label=\"$name\" Resource=Goroutine\\($gid\\)")" 1 "label of $fn (G$gid)"
    assert_eq "$(d1_count "$t" " Label .*Label=\"$name\"")" "$(d1_count "$t" " G=$gid Label .*Label=\"$name\"")" "labels $name only on G$gid"
done
assert_eq "$(d1_count "$t" ' Label ')" 3 "labels (one generation: one each)"
