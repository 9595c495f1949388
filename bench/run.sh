#!/usr/bin/env bash
# run.sh (make bench-tracer): runs every workload under every configuration, RUNS times in
# alternation (run k of each configuration back to back, so machine noise hits them alike),
# and rewrites the section of bench/RESULTS.md between the "results" markers (the rest of
# the file, the notes on the optimizations, is kept). Figures: median wall time of the whole
# process and its ratio to untraced (and to the do-nothing interposer); for gotrace, events
# counted from the trace (`gotrace check`), added ns per event against untraced, trace bytes
# per event, and extra peak RSS; then the micro-benchmarks, the floor under a condvar wait
# (alone, and inside the ping-pongs and the pipe: a minimal interposer paired with gotrace)
# and the cache lines a wait touches (footprint.py, under valgrind). Optional tools (strace,
# ltrace, LTTng) are installed with apt-get when missing and possible; a configuration that
# cannot run is skipped and the table says why.
# Invariants: builds nothing (bench.mk does); writes only under build/bench/ and the results
# section of bench/RESULTS.md; a daemon it starts (lttng-sessiond) it stops, by pid.
# Knobs: BENCH_RUNS (default 5), BENCH_SLOW_RUNS (default 5), BENCH_ONLY (space-separated
# workload names), BENCH_TOOLS (default "strace lttng ltrace"; empty: none), BENCH_NO_INSTALL=1
# (do not apt-get), BENCH_SCALE (divides every N, for a quick try), BENCH_LIB (another build
# of libgotrace.so, for before/after comparisons), BENCH_RESULTS (where the section goes),
# BENCH_INSITU_ROUNDS (default 15: the paired rounds of the in-situ floor).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/bench/section.sh"
B="$top/build/bench"
G="$top/build/gotrace"
LIB=${BENCH_LIB:-$top/build/libgotrace.so}
NOOP="$B/libnoop.so"
RUNS=${BENCH_RUNS:-5}
SCALE=${BENCH_SCALE:-1}
# scaled N: N divided by SCALE, at least 1.
scaled() { echo $(($1 / SCALE > 0 ? $1 / SCALE : 1)); }
RESULTS=${BENCH_RESULTS:-$top/bench/RESULTS.md}
mkdir -p "$B/out"
log() { echo "bench-tracer: $*" >&2; }

# ---- optional tools ----
declare -A why_not=()
APT_LOG=$B/out/apt.log
LTTNG_WRAPPER=/usr/lib/x86_64-linux-gnu/liblttng-ust-pthread-wrapper.so.1
want_pkg strace strace || why_not[strace]="strace not installed and not installable"
want_pkg ltrace ltrace || why_not[ltrace]="ltrace not installed and not installable"
if ! want_pkg lttng lttng-tools || ! want_pkg "$LTTNG_WRAPPER" liblttng-ust1; then
  why_not[lttng]="lttng-tools/liblttng-ust1 not installed and not installable"
fi

started_sessiond=
cleanup() {
  if [ -n "$started_sessiond" ]; then kill "$started_sessiond" 2>/dev/null || true; fi
}
trap cleanup EXIT
if [ -z "${why_not[lttng]:-}" ] && ! lttng list >/dev/null 2>&1; then
  lttng-sessiond --daemonize --no-kernel >"$B/out/sessiond.log" 2>&1 || true
  sleep 1
  started_sessiond=$(pgrep -n -x lttng-sessiond || true)
  lttng list >/dev/null 2>&1 || why_not[lttng]="lttng-sessiond does not start here"
fi

# ---- machine ----
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
cpu_flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -1)
tsc_flags=$(for f in constant_tsc nonstop_tsc tsc_known_freq hypervisor; do
  case " $cpu_flags " in *" $f "*) printf '%s ' "$f" ;; esac
done | sed 's/ $//')
machine="$(nproc) CPUs, $cpu_model; flags: ${tsc_flags:-none}; $(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo); Linux $(uname -r); $(. /etc/os-release && echo "$PRETTY_NAME"); $(ldd --version | head -1 | sed 's/^ldd //'); $(${CC:-gcc} --version | head -1)"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- workloads: name|N|N for strace and LTTng|N for ltrace|description ----
# The other tools are 10-1000x slower on some workloads: they run at a smaller N, each against
# untraced runs at that same N (SLOW_RUNS pairs), so that `make bench` stays within minutes.
WORKLOADS=(
  "mutex|40000000|4000000|20000|uncontended lock/unlock pairs, 1 thread"
  "mutex_mt|40000000|4000000|20000|the same with a second (idle) thread in the process"
  "contended|40000000|4000000|20000|4 threads on one mutex (N lock/unlock pairs in all)"
  "condvar|50000|5000|2000|two-thread condvar ping-pong (N round trips)"
  "condvar_1cpu|200000|20000|2000|the same ping-pong with the process pinned to one CPU (no cross-CPU wake-ups: the steadier per-event figure)"
  "pipe|300000|30000|5000|1-byte messages through a pipe, writer thread to reader thread"
  "churn|10000|2000|300|thread create+join, one at a time"
  "xz|50|50|2|xz -T2 -1 compressing a generated N MiB text file"
  "forks|200|200|20|a threaded program (a two-thread condvar ping-pong running) forks N children one after another, each exits at once (issue 44)"
  "forks_serial|200|200|20|the same, one child at a time: forked, a traced read of its parent's word, exit (its own trace written), reaped"
)
CONFIGS=(untraced noop gotrace nostacks)
read -r -a TOOLS <<<"${BENCH_TOOLS-strace lttng ltrace}"
SLOW_RUNS=${BENCH_SLOW_RUNS:-5}
declare -A cfg_title=(
  [untraced]="untraced" [noop]="do-nothing interposer" [gotrace]="gotrace, stacks"
  [nostacks]="gotrace, no stacks" [strace]="strace -f" [lttng]="LTTng-UST pthread wrapper"
  [ltrace]="ltrace -f")

# cmd_of NAME N: the workload's command line.
cmd_of() {
  if [ "$1" = xz ]; then
    local in="$B/xz-input-$2"
    [ -s "$in" ] || "$B/gendata" "$2" >"$in"
    echo "xz -T2 -1 -c $in"
  elif [ "$1" = forks_serial ]; then
    echo "$B/forks $2 serial"
  else
    echo "$B/${1%_1cpu} $2"
  fi
}

# run_one CONFIG NAME N TAG: runs once; prints "wall_seconds peak_rss_kb cpu_seconds".
run_one() {
  local cfg=$1 name=$2 n=$3 tag=$4 cmd t0 t1 rc=0
  read -r -a cmd <<<"$(cmd_of "$name" "$n")"
  local tr="$B/out/$name-$cfg.trace" tm="$B/out/time.out"
  local -a pre=(env) pin=()
  [[ $name == *_1cpu ]] && pin=(taskset -c 0) # the whole run, tool and tracer included
  case $cfg in
  noop) pre=(env LD_PRELOAD="$NOOP") ;;
  gotrace) pre=(env LD_PRELOAD="$LIB" GOTRACE_OUT="$tr") ;;
  nostacks) pre=(env LD_PRELOAD="$LIB" GOTRACE_OUT="$tr" GOTRACE_STACKS=0) ;;
  strace) pre=(strace -f -qq -o "$B/out/strace.out") ;;
  ltrace) pre=(timeout 300 ltrace -f -o "$B/out/ltrace.out") ;;
  lttng)
    lttng create "bench-$tag" --output="$B/out/lttng" >/dev/null
    lttng enable-event -u 'lttng_ust_pthread:*' >/dev/null
    lttng start >/dev/null
    pre=(env LD_PRELOAD="$LTTNG_WRAPPER")
    ;;
  esac
  t0=$EPOCHREALTIME
  "${pin[@]}" /usr/bin/time -f "%M %U %S" -o "$tm" "${pre[@]}" "${cmd[@]}" >/dev/null 2>"$B/out/err.out" || rc=$?
  t1=$EPOCHREALTIME
  rm -f -- "$tr".[0-9]* # a forking workload's children's traces (PATH.<pid>)
  if [ "$cfg" = lttng ]; then
    lttng destroy "bench-$tag" >/dev/null 2>&1 || true
    rm -rf "$B/out/lttng"
  fi
  if [ $rc -ne 0 ]; then
    log "$name under $cfg failed (status $rc): $(tail -c 300 "$B/out/err.out")"
    echo "fail 0 0"
    return
  fi
  awk -v a="$t0" -v b="$t1" '{ printf "%.6f %d %.2f\n", b - a, $1, $2 + $3 }' <(tail -1 "$tm")
}

# paired "A..." "B...": the median of A[i] - B[i], runs of the same round (steadier than the
# difference of the medians when the machine's speed drifts); empty unless both lists are whole.
paired() {
  awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); if (n == 0 || n != split(b, y, " ")) exit
    for (i = 1; i <= n; i++) d[i] = x[i] - y[i]
    for (i = 2; i <= n; i++) for (j = i; j > 1 && d[j - 1] > d[j]; j--) { t = d[j]; d[j] = d[j - 1]; d[j - 1] = t }
    print (n % 2) ? d[(n + 1) / 2] : (d[n / 2] + d[n / 2 + 1]) / 2 }'
}
# median V...: the median of the values given ("fail" for none).
median() { printf '%s\n' "$@" | sort -g | awk 'NF { v[++n] = $1 } END { if (!n) print "fail"; else if (n % 2) print v[(n + 1) / 2]; else print (v[n / 2] + v[n / 2 + 1]) / 2 }'; }

# ---- runs ----
declare -A T=() RSS=() CPU=() EV=() BYTES=() DT=() DC=()
for w in "${WORKLOADS[@]}"; do
  IFS='|' read -r name n sn ln desc <<<"$w"
  if [ -n "${BENCH_ONLY:-}" ] && [[ " $BENCH_ONLY " != *" $name "* ]]; then continue; fi
  n=$(scaled "$n")
  declare -A times=() rsss=() cpus=()
  log "$name (N=$n): ${RUNS} alternating runs of ${CONFIGS[*]}"
  for ((k = 1; k <= RUNS; k++)); do
    for cfg in "${CONFIGS[@]}"; do
      [ -n "${why_not[$cfg]:-}" ] && continue
      read -r s kb cs < <(run_one "$cfg" "$name" "$n" "$name-$k")
      if [ "$s" = fail ]; then why_not[$cfg]="failed (see the log)"; continue; fi
      times[$cfg]+="$s "
      rsss[$cfg]+="$kb "
      cpus[$cfg]+="$cs "
    done
  done
  for cfg in "${CONFIGS[@]}"; do
    [ -n "${times[$cfg]:-}" ] || continue
    T[$name,$cfg]=$(median ${times[$cfg]})
    RSS[$name,$cfg]=$(median ${rsss[$cfg]})
    CPU[$name,$cfg]=$(median ${cpus[$cfg]})
    DT[$name,$cfg]=$(paired "${times[$cfg]}" "${times[untraced]:-}")
    DC[$name,$cfg]=$(paired "${cpus[$cfg]}" "${cpus[untraced]:-}")
  done
  for cfg in gotrace nostacks; do
    tr="$B/out/$name-$cfg.trace"
    [ -s "$tr" ] || continue
    EV[$name,$cfg]=$("$G" check "$tr" | sed -n 's/.* \([0-9]*\) events$/\1/p')
    BYTES[$name,$cfg]=$(stat -c %s "$tr")
  done
  for cfg in "${TOOLS[@]}"; do # at a smaller N, against untraced at the same N
    [ -n "${why_not[$cfg]:-}" ] && continue
    m=$([ "$cfg" = ltrace ] && echo "$ln" || echo "$sn")
    m=$(scaled "$m")
    log "$name: $SLOW_RUNS runs of ${cfg_title[$cfg]} (N=$m), each after an untraced and a gotrace run"
    tt=() tu=() tg=() ct=() cu=() cg=()
    for ((k = 1; k <= SLOW_RUNS; k++)); do
      read -r s _ c < <(run_one untraced "$name" "$m" "$name-u$k")
      tu+=("$s") cu+=("$c")
      read -r s _ c < <(run_one gotrace "$name" "$m" "$name-g$k")
      tg+=("$s") cg+=("$c")
      read -r s _ c < <(run_one "$cfg" "$name" "$m" "$name-$cfg$k")
      [ "$s" = fail ] && break
      tt+=("$s") ct+=("$c")
    done
    if [ ${#tt[@]} -eq "$SLOW_RUNS" ]; then
      T[$name,$cfg]=$(median "${tt[@]}")
      T[$name,${cfg}_base]=$(median "${tu[@]}")
      T[$name,${cfg}_gt]=$(median "${tg[@]}")
      CPU[$name,$cfg]=$(median "${ct[@]}")
      CPU[$name,${cfg}_base]=$(median "${cu[@]}")
      CPU[$name,${cfg}_gt]=$(median "${cg[@]}")
      T[$name,${cfg}_n]=$m
    else
      T[$name,${cfg}_fail]=1
    fi
  done
  unset times rsss cpus
done

# ---- stack capture micro-benchmark ----
stack_line=$("$B/bench_stack" 2>&1 | tr '\n' ';' | sed 's/  */ /g; s/;$//' || true)

# ---- the blocking path alone: spin hand-offs (bench/events), and instructions per wait ----
events_line=$("$B/bench_events" 2>&1 | tail -1 || true)
# What the machine charges for what a wait cannot avoid (bench/floor): clock reads, locked CASes,
# cache lines moved between the CPUs.
floor_line=$("$B/bench_floor" 2>&1 | tail -1 | sed 's/^machine floor: //' || true)
# rounds WORKLOAD[:ARG] N VARIANT... -- [PIN...]: procbench's table of WORKLOAD N [ARG] run
# untraced, as each VARIANT (name=preload) and by gotrace, in ${BENCH_INSITU_ROUNDS:-15} paired
# rounds under PIN; the traces are removed.
rounds() {
  local w=${1%%:*} n=$2 vs=() arg=()
  [[ $1 == *:* ]] && arg=("${1#*:}")
  shift 2
  while [ "$1" != -- ]; do
    vs+=("$1")
    shift
  done
  shift
  GOTRACE_OUT="$B/out/rounds.%p.trace" "$@" "$B/procbench" "${BENCH_INSITU_ROUNDS:-15}" untraced= \
    "${vs[@]}" "gotrace=$LIB" -- "$B/$w" "$n" "${arg[@]}" 2>/dev/null
  rm -f "$B"/out/rounds.*
}
# The same floor inside the ping-pongs and the pipe: a minimal interposer (bench/floor/
# floor_preload.c: a condvar wait's or a read's and write's clock reads, state words and events,
# nothing else) against gotrace, in procbench's paired rounds (alternating, rotated order).
# insitu WORKLOAD N PER [PIN...]: "floor / gotrace" ns of CPU added per unit to WORKLOAD run with
# N (PER units each: events, system calls), medians of the paired differences to untraced; then
# what resolves them: the same minimal interposer run a second time in the same rounds, its
# figure less the first ("noise"); for the pipe, "CPU F× / G× untraced": 1 + the differences over
# the untraced CPU time (its target is a ratio).
insitu() {
  local w=$1 n per=$3
  n=$(scaled "$2")
  shift 3
  rounds "$w" "$n" "floor=$B/libfloor.so" "again=$B/libfloor.so" -- "$@" |
    awk -v u=$((per * n)) -v w="$w" '$1 == "untraced" { cpu = $6 }
      $1 == "floor" || $1 == "again" || $1 == "gotrace" { d[$1] = $7 }
      END { if (!("gotrace" in d) || !cpu) { print "not run"; exit }
            printf "%.0f / %.0f (noise %+.0f", d["floor"] * 1e6 / u, d["gotrace"] * 1e6 / u,
              (d["again"] - d["floor"]) * 1e6 / u
            if (w == "pipe")
              printf "; CPU %.2f× / %.2f× untraced", 1 + d["floor"] / cpu, 1 + d["gotrace"] / cpu
            printf ")" }'
}
insitu_line="pinned to one CPU (condvar_1cpu) $(insitu condvar 200000 8 taskset -c 0),"
insitu_line+=" across two (condvar) $(insitu condvar 50000 8); ns of CPU added a system call of"
insitu_line+=" the pipe (a read or a write: 3 events each), pinned to one CPU"
insitu_line+=" $(insitu pipe 300000 2 taskset -c 0), across two $(insitu pipe 300000 2)"
# ratios WORKLOAD N: the do-nothing interposer's then gotrace's wall and CPU time × untraced, from
# the medians of procbench's paired differences: the contended mutex's target is a ratio, and its
# 5-run medians move by 0.3× on this machine (4 threads on 2 CPUs: its time follows the scheduler).
ratios() {
  rounds "$1" "$(scaled "$2")" "noop=$NOOP" -- |
    awk '$1 == "untraced" { wall = $2; cpu = $6 }
      $1 == "noop" || $1 == "gotrace" { dw[$1] = $5; dc[$1] = $7 }
      END { if (!("gotrace" in dw) || !wall || !cpu) { print "not run"; exit }
            printf "interposer wall %.2f× / CPU %.2f×, gotrace wall %.2f× / CPU %.2f×",
              1 + dw["noop"] / wall, 1 + dc["noop"] / cpu, 1 + dw["gotrace"] / wall,
              1 + dc["gotrace"] / cpu }'
}
ratios_line="$(ratios contended 40000000)"
# forks WORKLOAD[:ARG]: what bench/workloads/forks.c (N=200) adds a child in procbench's paired
# rounds, wall time (fork, the child's tracer, its exit and its reaping), and gotrace's wall and
# CPU time × untraced (issue 44's targets: within 1.5×, a child's exit within 1 ms).
forks() {
  local n
  n=$(scaled 200)
  rounds "$1" "$n" -- |
    awk -v n="$n" '$1 == "untraced" { wall = $2; cpu = $6 } $1 == "gotrace" { dw = $5; dc = $7 }
      END { if (!wall || !cpu || dw == "") { print "not run"; exit }
            printf "%.0f µs added a child, wall %.2f× / CPU %.2f× untraced", dw * 1000 / n,
              1 + dw / wall, 1 + dc / cpu }'
}
forks_line="children that exit at once: $(forks forks); one child at a time, with a traced read"
forks_line+=" and its own trace: $(forks forks:serial)"
# What one wait touches, the cold lines after a context switch (bench/floor/footprint.py:
# valgrind's lackey, exact): instructions, lines of code and lines of data, per interposer.
footprint() {
  python3 "$top/bench/floor/footprint.py" "$1" "$B/condvar" 300 2>/dev/null |
    awk '{ printf "%s instructions, %s lines of code, %s of data", $1, $2, $3 }' || true
}
footprint_line="valgrind or python3 not installed"
if command -v valgrind >/dev/null && command -v python3 >/dev/null; then
  footprint_line="gotrace $(footprint "$LIB"); the minimal interposer $(footprint "$B/libfloor.so")"
fi
# Instructions the tracer executes per condvar wait and per contended lock (the hooks' cost less
# the real calls'): callgrind counts them exactly, whatever the load, so these compare across runs.
# insns WORKLOAD N ROUNDS FUNCS: the inclusive instructions of the hooks named FUNCS (sync.c) less
# those of the real functions of the same names, per round (WORKLOAD N makes ROUNDS of them).
insns() {
  local cg="$B/out/callgrind.$1.out"
  rm -f "$cg"
  GOTRACE_OUT="$B/out/callgrind.trace" LD_PRELOAD="$LIB" valgrind --tool=callgrind \
    --callgrind-out-file="$cg" "$B/$1" "$2" >/dev/null 2>&1 || true
  callgrind_annotate --inclusive=yes "$cg" 2>/dev/null | awk -v fn="$4" -v n="$3" '
    $0 ~ "hooks/sync.c:(" fn ") \\[" { gsub(",", "", $1); hooks += $1 }
    $0 ~ "(" fn ")@@GLIBC_[0-9.]+ \\[" { gsub(",", "", $1); real += $1 }
    END { if (hooks) printf "%.0f", (hooks - real) / n; else print "not measured" }'
}
insn_line="valgrind not installed"
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
  # condvar 5000: 10,000 waits; handoff 5000: 5,000 contended locks (bench/workloads/handoff.c)
  insn_line="$(insns condvar 5000 10000 'pthread_cond_wait|pthread_cond_signal') per wait (4 events,"
  insn_line+=" 2 stack captures); $(insns handoff 5000 5000 'pthread_mutex_lock|pthread_mutex_unlock')"
  insn_line+=" per contended lock (handoff: a wait and its release record; under callgrind the"
  insn_line+=" waiter resumes before its releaser's wake)"
fi

# ---- the report ----
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b <= 0) print "-"; else printf "%.2f", a / b }'; }
fmt_s() { awk -v a="$1" 'BEGIN { if (a == "") print "-"; else printf "%.3f", a }'; }
# added_per_event PAIRED T U E: ns added per event, from the paired difference (else T - U);
# "-" when the workload emits almost nothing.
added_per_event() {
  awk -v d="$1" -v t="$2" -v u="$3" -v e="$4" 'BEGIN { if (d == "" && t != "") d = t - u
    if (e < 1000 || d == "") printf "-"; else printf "%.0f", d * 1e9 / e }'
}
# cpu_cell NAME TOOL: "; CPU r× (gotrace r×)" against untraced at the tool's N, when the untraced
# runs took 50 ms of CPU or more (the clock's resolution is 10 ms).
cpu_cell() {
  local b=${CPU[$1,${2}_base]:-0}
  awk -v b="$b" 'BEGIN { exit !(b >= 0.05) }' || return 0
  echo "; CPU $(ratio "${CPU[$1,$2]}" "$b")× (gotrace $(ratio "${CPU[$1,${2}_gt]}" "$b")×)"
}
report() {
  echo "Machine: $machine. Load average before the runs: $load_before (the 2 cores are shared;"
  echo "medians of $RUNS alternating runs). Generated by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d)."
  echo
  echo "### Time: median wall seconds (ratio to untraced)"
  echo
  local hdr="| workload | N |" sep="|---|---|"
  for cfg in "${CONFIGS[@]}" "${TOOLS[@]}"; do hdr+=" ${cfg_title[$cfg]} |"; sep+="---|"; done
  echo "$hdr"
  echo "$sep"
  for w in "${WORKLOADS[@]}"; do
    IFS='|' read -r name n _ _ desc <<<"$w"
    [ -n "${T[$name,untraced]:-}" ] || continue
    local row="| $name: $desc | $((n / SCALE)) |" u=${T[$name,untraced]}
    for cfg in "${CONFIGS[@]}"; do
      local t=${T[$name,$cfg]:-}
      if [ -z "$t" ]; then row+=" skipped |"; else row+=" $(fmt_s "$t") ($(ratio "$t" "$u")×) |"; fi
    done
    for cfg in "${TOOLS[@]}"; do
      if [ -n "${T[$name,$cfg]:-}" ]; then
        row+=" N=${T[$name,${cfg}_n]}: $(fmt_s "${T[$name,$cfg]}") ($(ratio "${T[$name,$cfg]}" "${T[$name,${cfg}_base]}")×; gotrace $(ratio "${T[$name,${cfg}_gt]}" "${T[$name,${cfg}_base]}")×)$(cpu_cell "$name" "$cfg") |"
      elif [ -n "${T[$name,${cfg}_fail]:-}" ]; then row+=" failed |"
      else row+=" skipped |"; fi
    done
    echo "$row"
  done
  echo
  for cfg in strace ltrace lttng; do
    [ -n "${why_not[$cfg]:-}" ] && echo "- ${cfg_title[$cfg]}: skipped: ${why_not[$cfg]}."
  done
  echo "- strace, LTTng and ltrace run at the smaller N shown, $SLOW_RUNS times each, alternating with"
  echo "  an untraced run and a gotrace run (stacks on) at that same N: their ratios, and gotrace's in"
  echo "  brackets, are to those untraced runs, in wall time and, where the untraced runs took 50 ms"
  echo "  of CPU or more, in CPU time (user + sys of the whole command: strace's and ltrace's own"
  echo "  process included; not LTTng's session and consumer daemons). The LTTng session records"
  echo "  the wrapper's events (lttng_ust_pthread:*, mutex lock/trylock/unlock) to disk; it records"
  echo "  no condvar wait and no system call."
  echo
  echo "### gotrace against the do-nothing interposer, per event, size and memory"
  echo
  echo "| workload | stacks: × interposer | no stacks: × interposer | CPU time × untraced, stacks / no stacks | events (stacks) | wall ns added per event, stacks / no stacks | CPU ns added per event, stacks / no stacks | trace bytes per event, stacks / no stacks | extra peak RSS MiB, stacks / no stacks |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for w in "${WORKLOADS[@]}"; do
    IFS='|' read -r name _ _ _ _ <<<"$w"
    [ -n "${T[$name,untraced]:-}" ] || continue
    local u=${T[$name,untraced]} nz=${T[$name,noop]:-} row="| $name |"
    row+=" $(ratio "${T[$name,gotrace]:-}" "$nz") | $(ratio "${T[$name,nostacks]:-}" "$nz") |"
    row+=" $(ratio "${CPU[$name,gotrace]:-}" "${CPU[$name,untraced]}") / $(ratio "${CPU[$name,nostacks]:-}" "${CPU[$name,untraced]}") | ${EV[$name,gotrace]:--} |"
    local per="" cpu="" byt="" mem=""
    for cfg in gotrace nostacks; do
      local e=${EV[$name,$cfg]:-0} t=${T[$name,$cfg]:-}
      per+=$(added_per_event "${DT[$name,$cfg]:-}" "$t" "$u" "$e")" / "
      cpu+=$(added_per_event "${DC[$name,$cfg]:-}" "${CPU[$name,$cfg]:-}" "${CPU[$name,untraced]}" "$e")" / "
      byt+=$(awk -v b="${BYTES[$name,$cfg]:-0}" -v e="$e" 'BEGIN { if (e == 0) printf "-"; else printf "%.2f", b / e }')" / "
      mem+=$(awk -v a="${RSS[$name,$cfg]:-}" -v b="${RSS[$name,untraced]}" 'BEGIN { if (a == "") printf "-"; else printf "%.1f", (a - b) / 1024 }')" / "
    done
    echo "$row ${per% / } | ${cpu% / } | ${byt% / } | ${mem% / } |"
  done
  echo
  echo "- ns added per event = the median over the rounds of (traced − untraced of the same round)"
  echo "  / events in the trace, from wall"
  echo "  time and from CPU time (user + sys of all threads, 10 ms resolution; on the latency-bound"
  echo "  ping-pong and pipe the CPU figure is the steadier one); \"-\" when the workload emits"
  echo "  almost nothing (a lock taken without waiting emits no event)."
  echo "- Stack capture micro-benchmark (bench/stack, depth ~10): ${stack_line:-not run}."
  echo "- The blocking path alone (bench/events: the condvar hooks' tracer calls around spin"
  echo "  hand-offs between two threads, no futex): ${events_line:-not run}."
  echo "- Tracer instructions per condvar wait and per contended lock (callgrind, exact): ${insn_line}."
  echo "- The machine's floor under those figures (bench/floor: what a wait cannot avoid): ${floor_line:-not run}."
  echo "- The same floor inside the ping-pongs and the pipe (bench/floor/floor_preload.c: a minimal"
  echo "  interposer that does only that, no stacks, no output), ns of CPU added an event,"
  echo "  minimal interposer / gotrace, medians of ${BENCH_INSITU_ROUNDS:-15} paired rounds (noise:"
  echo "  the minimal interposer run twice in the same rounds, the second less the first):"
  echo "  ${insitu_line}."
  echo "- The contended mutex in procbench's paired rounds (medians of ${BENCH_INSITU_ROUNDS:-15}"
  echo "  differences to untraced, the order rotated each round): ${ratios_line}."
  echo "- A threaded program forking N=$(scaled 200) children (bench/workloads/forks.c) in the same"
  echo "  paired rounds: ${forks_line}."
  echo "- What a condvar wait touches in the interposer (bench/floor/footprint.py, exact: the"
  echo "  wait, the other thread's return from its own and its signal): ${footprint_line}."
  echo "- Decoder throughput (\`gotrace dump\`/\`summary\` vs \`go tool trace -d=1\`): see"
  echo "  [decoder/RESULTS.md](decoder/RESULTS.md), written by bench-decoder in the same \`make bench\`."
}
section=$(report)
printf '%s\n' "$section" | results_section "$RESULTS" results run.sh "# Tracer benchmark"
printf '%s\n' "$section"
