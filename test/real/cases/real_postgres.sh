# real_postgres: PostgreSQL 15 traced as a process tree (the postmaster and every process it
# forks: checkpointer, background writer, WAL writer, launchers, one backend per client), run as
# the postgres user on 127.0.0.1, under pgbench (4 clients, 2 threads, 400 transactions each).
# Checks: pgbench's transactions all done; one valid trace per process (at least the
# postmaster, its 5 helpers and the 4 backends); the backends' trace shows the waits of
# PostgreSQL's lightweight locks (semaphore waits in PGSemaphoreLock); no live file left.
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
env "LD_PRELOAD=$GT_PRELOAD" "GOTRACE_OUT=$traces/pg.trace" \
    setpriv --reuid=postgres --regid=postgres --init-groups -- \
    "$bin/postgres" -D "$data" -k "$sock" -p "$port" -c listen_addresses=127.0.0.1 \
    -c fsync=off >"$CASE_DIR/postgres.log" 2>&1 </dev/null &
pg=$!
GT_BG_PIDS+=("$pg")
poll_until 60 postgres "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"
pgb() { pgbench -h 127.0.0.1 -p "$port" -U postgres "$@"; }
pgb -i -s 2 postgres >"$CASE_DIR/init.log" 2>&1 || fail "pgbench -i failed"
pgb -c 4 -j 2 -t 400 postgres >"$CASE_DIR/pgbench.log" 2>&1 || fail "pgbench failed"
grep -q 'number of transactions actually processed: 1600/1600' "$CASE_DIR/pgbench.log" ||
    fail "pgbench: $(grep transactions "$CASE_DIR/pgbench.log")"
kill -INT "$pg" # fast shutdown
wait_gone "$pg" 60

n=$(validate_tree "$traces" 10)
echo "$n processes traced"
no_live_files "$traces"
waits=0
for f in "$traces"/*.trace*; do
    c=$("$GT_DECODER" contention "$f" 2>/dev/null | grep -c 'PGSemaphoreLock' || true)
    waits=$((waits + c))
done
assert_ge "$waits" 1 "wait sites in PGSemaphoreLock (lightweight locks)"
