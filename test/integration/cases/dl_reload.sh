# dl_reload: a library is unloaded and another one, whose function at the same address has a
# different frame, is loaded in its place (progs/dl_reload.c). The tracer forgets its cached
# unwind rules and stack memos at dlclose, so both sleeps have the stack
# nanosleep|dl_wait|call|main. Checks: same output as untraced, the two libraries really
# share the address, valid trace, both stacks exact. (Without the forgetting, the second walk
# reads 64 KiB past the small frame and the program crashes: checked by hand.)

big=$CASE_DIR/libbig.so small=$CASE_DIR/libsmall.so
cc -shared -fPIC -O1 -g -DFRAME=65536 -o "$big" "$GT_PROGS/dl_reload_lib.c" || fail "cannot build libbig"
cc -shared -fPIC -O1 -g -DFRAME=1024 -o "$small" "$GT_PROGS/dl_reload_lib.c" || fail "cannot build libsmall"
prog=$(build_prog dl_reload)
plain_run plain -- "$prog" "$big" "$small"
expected=$(cat "$RUN_OUT")
trace_run run -- "$prog" "$big" "$small"
expect_status dl_reload 0
assert_eq "$(cat "$RUN_OUT")" "$expected" "output as untraced"
assert_eq "$(head -n1 "$RUN_OUT")" same "where the second library's dl_wait lies"
validate "$RUN_TRACE"
gt_trans "$RUN_TRACE" |
    awk -F'\t' '$1 == 1 && $2 == "Running" && $3 == "Waiting" && $4 == "sleep" { print $6 }' \
        >"$CASE_DIR/sleeps"
assert_eq "$(grep -c . "$CASE_DIR/sleeps")" 2 "main's sleeps"
assert_eq "$(sort -u "$CASE_DIR/sleeps")" "nanosleep|dl_wait|call|main" "stacks of both sleeps"
