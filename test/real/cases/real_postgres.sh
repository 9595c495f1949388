# real_postgres: PostgreSQL 15 recorded as a process tree (`gotrace record`: the postmaster
# and every process it forks: checkpointer, background writer, WAL writer, launchers, one
# backend per client), run as the postgres user on 127.0.0.1, under pgbench (4 clients, 2
# threads, 400 transactions each). Checks: pgbench's transactions all done; the merged trace
# and one per process (at least the postmaster, its 5 helpers and the 4 backends) valid; in the
# merged trace, backends (`postgres[PID]` threads) wait in PGSemaphoreLock (PostgreSQL's
# lightweight locks), and such semaphore waits are woken by another postgres process (the
# poster's gotrace.post log); no live file left.
# itest-timeout: 240
source "$GT_ROOT/test/real/lib_real.sh"
GT_DECODER=$GT_BUILD/gotrace

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -n1)
[ -x "$bin/postgres" ] && command -v pgbench >/dev/null || fail "postgres missing (make test-real installs it)"
id postgres >/dev/null || fail "no postgres user"
as_pg() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }
data=$CASE_DIR/data sock=$CASE_DIR/sock port=54329
mkdir -p "$data" "$sock"
chown postgres:postgres "$data" "$sock"
as_pg "$bin/initdb" -D "$data" -A trust -U postgres >"$CASE_DIR/initdb.log" 2>&1 ||
    fail "initdb failed: $(tail -n 3 "$CASE_DIR/initdb.log")"

traces=$(tree_dir pg)
tr=$traces/pg.trace
record_bg "$tr" setpriv --reuid=postgres --regid=postgres --init-groups -- \
    "$bin/postgres" -D "$data" -k "$sock" -p "$port" -c listen_addresses=127.0.0.1 -c fsync=off
rec=$RUN_PID
poll_until 60 postgres "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"
pgb() { pgbench -h 127.0.0.1 -p "$port" -U postgres "$@"; }
pgb -i -s 2 postgres >"$CASE_DIR/init.log" 2>&1 || fail "pgbench -i failed"
pgb -c 4 -j 2 -t 400 postgres >"$CASE_DIR/pgbench.log" 2>&1 || fail "pgbench failed"
grep -q 'number of transactions actually processed: 1600/1600' "$CASE_DIR/pgbench.log" ||
    fail "pgbench: $(grep transactions "$CASE_DIR/pgbench.log")"
kill -INT "$(head -n1 "$data/postmaster.pid")" # fast shutdown; record then merges
wait_gone "$rec" 120

n=$(check_tree "$tr" 10)
echo "$n processes traced"
no_live_files "$traces"
"$GT_DECODER" contention "$tr" >"$tr.con" || fail "gotrace contention failed"
assert_ge "$(grep -c 'PGSemaphoreLock' "$tr.con" || true)" 1 "wait sites in PGSemaphoreLock (lightweight locks)"
# a backend's semaphore wait (its own semaphore in shared memory) woken by the process that
# posted it: another postgres process, by its gotrace.post log (docs/processes.md)
woken=$(awk '/^#/ { sem = index($0, "sync: semaphore shared ") > 0 }
             sem && /woken by:/ && /postgres\[[0-9]+\] / { n++ } END { print n + 0 }' "$tr.con")
assert_ge "$woken" 1 "semaphore wait sites woken by another postgres process"
"$GT_DECODER" summary "$tr" >"$tr.sum" || fail "gotrace summary failed"
assert_ge "$(grep -c '^postgres\[[0-9]*\] ' "$tr.sum" || true)" 10 "postgres[PID] threads in the merged summary"
