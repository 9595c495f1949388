#!/usr/bin/env bash
# Installs what gotrace needs to build and test on Debian 12, and builds the Go validator.
# Invariants: idempotent; quick (no apt call) when everything is present; never names a
# package registry host: bookworm-backports is added to the mirror the apt sources already use.
set -euo pipefail

need_pkgs=(build-essential pkg-config libunwind-dev libdw-dev libcriterion-dev libiberty-dev clang libclang-rt-14-dev python3
           xz-utils zstd pigz # these three: test/integration/cases/real_programs.sh
           strace valgrind    # exact counts of a process: per_process.sh, make bench-process
           libc6-dbg          # libc's own function names (start_thread, __clone3): names_adopted.sh
           chromium)          # renders `gotrace report` pages: test/integration/cases/report_browser.sh
# --real: also the servers of `make test-real` (test/real/cases).
[ "${1:-}" = --real ] && need_pkgs+=(postgresql postgresql-contrib nginx-light apache2-utils curl)
go_pkg=golang-1.23-go
GOROOT_123=/usr/lib/go-1.23

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${need_pkgs[@]}" "$go_pkg"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
# Compilers of the integration tests' C++/Rust/OpenMP programs (test/integration/cases/
# names_*.sh): installed only when no such command is found (a rustup toolchain will do).
command -v rustc >/dev/null || missing+=(rustc)
command -v clang >/dev/null || missing+=(clang)

add_backports() {
  # Already configured?
  if grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then return; fi
  local uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1=="deb" && $0 ~ /bookworm/ {print $2; exit}' /etc/apt/sources.list)
  fi
  [ -n "$uri" ] || { echo "setup: cannot find the Debian mirror in the apt sources" >&2; exit 1; }
  echo "deb $uri bookworm-backports main" | as_root tee /etc/apt/sources.list.d/gotrace-backports.list >/dev/null
}

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  case " ${missing[*]} " in *" $go_pkg "*) add_backports ;; esac
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The Go 1.23 trace validator, built from the Go source tree shipped by the package.
top=$(cd "$(dirname "$0")/.." && pwd)
tools="$top/build/tools"
mkdir -p "$tools"
if [ ! -x "$tools/gotracevalidate" ]; then
  echo "setup: building gotracevalidate"
  (cd "$GOROOT_123/src" && GOFLAGS=-mod=mod GOCACHE="$top/build/gocache" \
    "$GOROOT_123/bin/go" build -o "$tools/gotracevalidate" ./internal/trace/testdata/cmd/gotracevalidate)
fi
if [ ! -x "$tools/gotraceraw" ]; then
  (cd "$GOROOT_123/src" && GOCACHE="$top/build/gocache" \
    "$GOROOT_123/bin/go" build -o "$tools/gotraceraw" ./internal/trace/testdata/cmd/gotraceraw)
fi
