# bench/bench.mk: the tracer benchmark suite (bench-tracer): workloads (bench/workloads/*.c),
# the do-nothing interposer (bench/noop_preload.c, exporting exactly what libgotrace.so
# exports), the stack-capture micro-benchmark (bench/stack/) and the floor under a traced wait
# or system call (bench/floor/: its parts alone, and a minimal interposer doing only them), all
# built into build/bench/; bench/run.sh runs them (and bench/floor/footprint.py) and rewrites the
# results section of bench/RESULTS.md; bench/process.sh (bench-process) measures what a short
# process and a build pay.
# Invariant: building the suite never runs it; only `make bench`/`make bench-tracer` do.
BENCH_DIR       := $(BUILD)/bench
BENCH_WORKLOADS := $(patsubst bench/workloads/%.c,$(BENCH_DIR)/%,$(wildcard bench/workloads/*.c))
BENCH_CFLAGS    := $(CFLAGS_COMMON)

$(BENCH_DIR)/%: bench/workloads/%.c bench/workloads/common.h | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $< -o $@ -lpthread

# The interposer's symbol list follows the tracer's exports (minus the linker's section bounds).
$(BENCH_DIR)/noop_syms.h: $(BUILD)/libgotrace.so
	@mkdir -p $(@D)
	nm -D --defined-only $< | awk '$$2 == "T" && $$3 !~ /^__(start|stop)_/ { print "NOOP(" $$3 ")" }' > $@.tmp
	mv $@.tmp $@

$(BENCH_DIR)/libnoop.so: bench/noop_preload.c $(BENCH_DIR)/noop_syms.h
	$(CC) $(BENCH_CFLAGS) -fPIC -shared -I$(BENCH_DIR) $< -o $@ -ldl

$(BENCH_DIR)/bench_stack: bench/stack/bench_stack.c $(BUILD)/libgotrace_core.a
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Icommon $(call preload_incs,hooks) $(UNWIND_CFLAGS) $< -o $@ $(BUILD)/libgotrace_core.a \
	    $(PRELOAD_LIBS) $(UNWIND_LIBS)

# The blocking-path micro-benchmark (the tracer API as the condvar hooks call it, spin hand-offs).
$(BENCH_DIR)/bench_events: bench/events/bench_events.c $(BUILD)/libgotrace_core.a
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -Icommon $(call preload_incs,hooks) $(UNWIND_CFLAGS) $< -o $@ $(BUILD)/libgotrace_core.a \
	    $(PRELOAD_LIBS)

# What the machine charges for a clock read, a locked CAS and a cache line moved between CPUs.
$(BENCH_DIR)/bench_floor: bench/floor/bench_floor.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $< -o $@ -lpthread

# The least a tracer does around a condvar wait and around a read or write, as an interposer:
# the floor of the ping-pongs and of the pipe, measured inside them (bench/run.sh).
$(BENCH_DIR)/libfloor.so: bench/floor/floor_preload.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -fPIC -shared $< -o $@ -ldl

# The same interposer linked with exactly the shared libraries libgotrace.so loads (its
# DT_NEEDED entries): the floor of a preload that only loads them (bench/process.sh).
$(BENCH_DIR)/libnoop_libs.so: bench/noop_preload.c $(BENCH_DIR)/noop_syms.h $(BUILD)/libgotrace.so
	$(CC) $(BENCH_CFLAGS) -fPIC -shared -I$(BENCH_DIR) $< -o $@ -Wl,--no-as-needed \
	    $$(readelf -d $(BUILD)/libgotrace.so | sed -n 's/.*Shared library: \[\(.*\)\]/-l:\1/p') -ldl

# The per-process benchmark's runner (paired, alternating runs of a command under preloads).
$(BENCH_DIR)/procbench: bench/process/procbench.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) $< -o $@

bench-build: all $(BENCH_WORKLOADS) $(BENCH_DIR)/libnoop.so $(BENCH_DIR)/bench_stack \
    $(BENCH_DIR)/bench_events $(BENCH_DIR)/bench_floor $(BENCH_DIR)/libfloor.so \
    $(BENCH_DIR)/libnoop_libs.so $(BENCH_DIR)/procbench

bench-tracer: bench-build
	@bash bench/run.sh

# How much of a trace a killed or crashed program leaves (bench/kept.sh; about 1 minute).
bench-kept: all
	@bash bench/kept.sh

# What the live file costs (bench/live.sh, GOTRACE_LIVE=0 against 1; about 3 minutes).
bench-live: bench-build
	@bash bench/live.sh

# What a short process and a build pay (bench/process.sh; about 4 minutes).
bench-process: all $(BENCH_DIR)/libnoop.so $(BENCH_DIR)/libnoop_libs.so $(BENCH_DIR)/procbench
	@bash bench/process.sh

.PHONY: bench-build bench-tracer bench-kept bench-live bench-process
BENCH_SUITES += bench-tracer bench-kept bench-live bench-process
