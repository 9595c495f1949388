# annot_basic: tasks, regions and logs of the annotations API reach the trace with the right
# names, nesting and counts; a task begun on main ends on a worker; mismatched region ends are
# dropped with one "gotrace:" warning and the trace stays valid.

prog=$(build_prog annot_basic)
trace_run run -- "$prog"
expect_status annot_basic 0
assert_eq "$(cat "$RUN_OUT")" "ok" "program output"
assert_eq "$(gotrace_lines "$RUN_ERR")" 1 "gotrace: lines (one mismatch warning)"
assert_contains "$RUN_ERR" 'gotrace_region_end(0, "wrong")' "the warning"
validate "$RUN_TRACE"
t=$RUN_TRACE
assert_eq "$(d1_count "$t" ' TaskBegin ')" 3 "TaskBegin events"
assert_eq "$(d1_count "$t" ' TaskEnd ')" 3 "TaskEnd events"
assert_eq "$(d1_count "$t" ' TaskBegin .*Parent=18446744073709551615 Type="outer"')" 1 "task outer, no parent (0 reads as NoTask)"
outer=$(sed -n 's/.* TaskBegin .* ID=\([0-9]*\) Parent=18446744073709551615 Type="outer".*/\1/p' "$t.d1")
assert_eq "$(d1_count "$t" " TaskBegin .*Parent=$outer Type=\"(span|child)\"")" 2 "children of outer"
assert_eq "$(d1_count "$t" '^M=[0-9]+ P=[0-9]+ G=1 TaskBegin .*Type="span"')" 1 "span begun by main"
assert_eq "$(d1_count "$t" '^M=[0-9]+ P=[0-9]+ G=2 TaskEnd .*Type="span"')" 1 "span ended by the worker"
assert_eq "$(d1_count "$t" ' RegionBegin ')" 6 "RegionBegin events"
assert_eq "$(d1_count "$t" ' RegionEnd ')" 6 "RegionEnd events"
assert_eq "$(d1_count "$t" " G=1 RegionBegin .*Task=$outer Type=\"step\"")" 3 "step regions"
assert_eq "$(d1_count "$t" ' G=2 RegionBegin .*Type="work"')" 1 "work region on the worker"
assert_eq "$(d1_count "$t" ' RegionEnd .*Type="wrong"')" 0 "the mismatched end"
assert_eq "$(d1_count "$t" ' RegionEnd .*Task=0 Type="open"')" 1 "open ended once"
assert_eq "$(d1_count "$t" " Log .*Task=$outer Category=\"cat\" Message=\"step [0-2]\"")" 3 "logs"
# Nesting on main: phase encloses the steps (the -d=1 order is the trace order).
seq=$(grep -oE ' G=1 Region(Begin|End) .*Type="[a-z]+"' "$t.d1" | sed -E 's/.* (Region[A-Za-z]+) .*Type="([a-z]+)"/\1:\2/' | tr '\n' ' ')
assert_eq "$seq" "RegionBegin:phase RegionBegin:step RegionEnd:step RegionBegin:step RegionEnd:step RegionBegin:step RegionEnd:step RegionEnd:phase RegionBegin:open RegionEnd:open " "main's regions in order"
# The events' stacks start at the header's inline function, called from main (the library's
# own frames are skipped).
stack_checks_follow
frames=$(awk '/^M=/ { in_l = ($0 ~ / Log .*Category="cat"/) } in_l && /^\t[^\t]/ { printf "%s ", $1 }
              in_l && /^$/ { print ""; in_l = 0 }' "$t.d1" | sort | uniq -c | sed 's/^ *//')
assert_eq "$frames" "3 gotrace_log main " "log stacks"
