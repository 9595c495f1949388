# gotrace build. One fragment per component: preload/preload.mk (libgotrace.so),
# decoder/decoder.mk (gotrace CLI), test/test.mk (unit + integration tests).
# Invariants: `make` builds everything into build/; `make test` installs what is missing
# (scripts/setup.sh, quick when all is present), builds, and runs every test.

CC      ?= gcc
# DEBUG=1 builds into build/debug with the invariant checks compiled in (preload/preload.mk).
BUILD   := $(if $(DEBUG),build/debug,build)
CFLAGS_COMMON := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O2 -Iinclude
UNWIND_CFLAGS := $(shell pkg-config --cflags libunwind 2>/dev/null)
UNWIND_LIBS   := $(shell pkg-config --libs libunwind 2>/dev/null || echo -lunwind)
DW_CFLAGS     := $(shell pkg-config --cflags libdw 2>/dev/null)
GOROOT_123    := /usr/lib/go-1.23
GO            := $(GOROOT_123)/bin/go
TOOLS         := $(BUILD)/tools

.PHONY: all setup test unit integration clean bench
all: $(BUILD)/libgotrace.so $(BUILD)/gotrace

setup:
	@bash scripts/setup.sh

$(BUILD):
	@mkdir -p $(BUILD)

include preload/preload.mk
include decoder/decoder.mk
include test/test.mk
-include examples/examples.mk
-include bench/bench.mk

# Each component appends its benchmarks to BENCH_SUITES; `make bench` runs them all.
bench: all
	@set -e; for s in $(BENCH_SUITES); do $(MAKE) --no-print-directory $$s; done

clean:
	rm -rf $(BUILD)
