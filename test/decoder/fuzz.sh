#!/usr/bin/env bash
# fuzz.sh BIN SECONDS [SEED]: runs the decoder's libFuzzer target. First replays the regression
# inputs (test/decoder/regress/, former findings: must not crash), then fuzzes for SECONDS
# starting from the committed seed corpus (test/decoder/corpus/) plus build/fuzz/corpus/.
# SEED (default 0: a random one) fixes the inputs tried: `make test`'s short run uses one, so
# that on a fresh clone a slower machine tries a prefix of what a faster one tried, and the gate
# does not fail at random; `make fuzz` explores with a random seed.
# Invariants: findings go to build/fuzz/artifacts/ and fail the run; nothing in the repo is
# modified.
set -euo pipefail
bin=$1 secs=$2 seed=${3:-0}
top=$(cd "$(dirname "$0")/../.." && pwd)
work="$top/build/fuzz"
mkdir -p "$work/corpus" "$work/artifacts"
shopt -s nullglob
regress=("$top"/test/decoder/regress/*)
if [ ${#regress[@]} -gt 0 ]; then
  "$bin" -runs=0 "${regress[@]}" >/dev/null 2>"$work/regress.log" || {
    cat "$work/regress.log" >&2; echo "fuzz: a regression input fails" >&2; exit 1; }
fi
echo "== fuzz: ${secs}s of libFuzzer on the decoder (artifacts: build/fuzz/artifacts/)"
"$bin" -seed="$seed" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
  "$work/corpus" "$top/test/decoder/corpus" >"$work/fuzz.log" 2>&1 || {
  tail -40 "$work/fuzz.log" >&2; echo "fuzz: found a failing input (see above)" >&2; exit 1; }
grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/fuzz.log" | tr '\n' ' '
echo
