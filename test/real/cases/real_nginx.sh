# real_nginx: nginx recorded as a process tree (`gotrace record`: its master, run as root, and
# 2 worker processes it forks, which switch to user nobody), serving a static file on 127.0.0.1 to ab (4000
# requests, 8 at a time). Checks: every request answered; the merged trace and one per process
# (the master and both workers at least) valid; the workers' symbols survive the switch to nobody (their
# waits' stacks name nginx's event loop, ngx_process_events_and_timers, not `?`); the master,
# asleep in sigsuspend between signals, is mostly blocked, not running; no live file left.
# itest-timeout: 180
source "$GT_ROOT/test/real/lib_real.sh"
GT_DECODER=$GT_BUILD/gotrace

command -v nginx >/dev/null && command -v ab >/dev/null || fail "nginx or ab missing (make test-real installs them)"
port=18089 www=$CASE_DIR/www
mkdir -p "$www" "$CASE_DIR/tmp"
head -c 20000 /dev/urandom | base64 >"$www/index.html"
chmod -R a+rX "$www"
cat >"$CASE_DIR/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes 2;
user nobody nogroup;
pid $CASE_DIR/nginx.pid;
error_log $CASE_DIR/error.log;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $CASE_DIR/tmp;
    proxy_temp_path $CASE_DIR/tmp;
    fastcgi_temp_path $CASE_DIR/tmp;
    uwsgi_temp_path $CASE_DIR/tmp;
    scgi_temp_path $CASE_DIR/tmp;
    server {
        listen 127.0.0.1:$port;
        location / { root $www; }
    }
}
CONF

traces=$(tree_dir nginx)
tr=$traces/nginx.trace
record_bg "$tr" nginx -c "$CASE_DIR/nginx.conf" -p "$CASE_DIR"
rec=$RUN_PID
poll_until 30 nginx curl -sf -o /dev/null "http://127.0.0.1:$port/index.html"
ab -n 4000 -c 8 "http://127.0.0.1:$port/index.html" >"$CASE_DIR/ab.log" 2>&1 || fail "ab failed"
grep -q '^Complete requests: *4000' "$CASE_DIR/ab.log" || fail "ab: $(grep requests "$CASE_DIR/ab.log")"
grep -q '^Failed requests: *0' "$CASE_DIR/ab.log" || fail "ab: $(grep 'Failed requests' "$CASE_DIR/ab.log")"
master=$(cat "$CASE_DIR/nginx.pid")
kill -QUIT "$master" # graceful shutdown: the workers finish, then the master exits
wait_gone "$rec" 60

n=$(check_tree "$tr" 3)
echo "$n processes traced"
no_live_files "$traces"
workers=0
for f in "$tr".d/*.trace; do
    "$GT_DECODER" contention "$f" >"$f.con" 2>&1 || fail "gotrace contention $f failed"
    if grep -q 'ngx_process_events_and_timers (nginx)' "$f.con"; then workers=$((workers + 1)); fi
done
assert_ge "$workers" 2 "worker traces whose waits name ngx_process_events_and_timers"
"$GT_DECODER" summary "$tr.d/$master.trace" >"$CASE_DIR/master.sum" || fail "gotrace summary failed"
read -r life running <<<"$(awk '$1 == "main" && $2 ~ /^[0-9]+$/ { print $4, $5; exit }' "$CASE_DIR/master.sum")"
to_ns() { awk -v d="$1" 'BEGIN { n = d + 0; u = d; sub(/^[0-9.]+/, "", u)
    print int(u == "s" ? n * 1e9 : u == "ms" ? n * 1e6 : u == "us" ? n * 1e3 : n) }'; }
[ "$(to_ns "$running")" -lt $(($(to_ns "$life") / 2)) ] ||
    fail "nginx's master runs $running of its $life lifetime (asleep in sigsuspend, it should be blocked)"
