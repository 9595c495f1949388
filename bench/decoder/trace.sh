# trace.sh: sourced by bench.sh and report.sh. bench_trace MB prints the path of a trace of at
# least MB MiB (bench_short_trace MS: of MS ms) from test/decoder/goprog (goroutine pairs ping-ponging on channels), made once
# and cached in build/bench/decoder/. Invariant: the cached file is complete (renamed in place
# after the run); the run is repeated, longer, while the file is too small.
# bench_goprog WORK: builds WORK/goprog.
bench_goprog() {
  local top
  top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  mkdir -p "$1"
  (cd "$top/test/decoder/goprog" && GOCACHE="$top/build/gocache" GOFLAGS=-mod=mod \
    /usr/lib/go-1.23/bin/go build -o "$1/goprog" .) >&2
}

# bench_short_trace MS: prints the path of a trace of MS ms of the same ping-pong (cached).
bench_short_trace() {
  local work
  work="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/bench/decoder"
  if [ ! -s "$work/pingpong-${1}ms.trace" ]; then
    bench_goprog "$work"
    "$work/goprog" pingpong "$work/pingpong-${1}ms.trace.tmp" "$1" >&2
    mv "$work/pingpong-${1}ms.trace.tmp" "$work/pingpong-${1}ms.trace"
  fi
  echo "$work/pingpong-${1}ms.trace"
}

bench_trace() {
  local want_mb=$1 top work trace ms got
  top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  work="$top/build/bench/decoder"
  trace="$work/pingpong-${want_mb}mb.trace"
  mkdir -p "$work"
  if [ ! -s "$trace" ]; then
    bench_goprog "$work"
    # The trace rate depends on the machine: run, then rerun longer if the file is too small.
    ms=$((want_mb * 25))
    for _ in 1 2 3; do
      echo "bench: generating $trace (${ms} ms of channel ping-pong)" >&2
      "$work/goprog" pingpong "$trace.tmp" "$ms" >&2
      got=$(($(stat -c %s "$trace.tmp") / 1048576))
      [ "$got" -ge "$want_mb" ] && break
      ms=$((ms * want_mb * 11 / 10 / (got > 0 ? got : 1)))
    done
    mv "$trace.tmp" "$trace"
  fi
  echo "$trace"
}
