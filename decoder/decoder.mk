# decoder/: builds build/gotrace (the CLI) and build/libgotrace_decoder.a (every decoder
# object but main.o, for the unit tests and the fuzzer); `make install`; the decoder's test
# suite (decoder-test), fuzzing (fuzz, fuzz-short) and benchmark (bench-decoder).
# One folder per layer, lowest first (docs/decoder.md, "Source map"):
#   trace/ -> analysis/ -> cmd/
# trace/ is the port of Go's parser (internal/trace: reading, ordering, validating), analysis/
# what the commands compute from its events, cmd/ the commands, their options and outputs. A
# folder is compiled with -I for itself and the folders to its left only (and common/), so a
# wrong-way include does not build; scripts/check_layers.py checks the rest.
# Invariants: one object per source; the fuzzer is built with clang into build/fuzz/ only
# when asked for; nothing here writes outside build/ except `make install` (to PREFIX).
DECODER_LAYERS := trace analysis cmd
DECODER_SRCS := $(foreach l,$(DECODER_LAYERS),$(wildcard decoder/$(l)/*.c))
DECODER_HDRS := $(foreach l,$(DECODER_LAYERS),$(wildcard decoder/$(l)/*.h))
DECODER_OBJS := $(DECODER_SRCS:decoder/%.c=$(BUILD)/decoder/%.o)
DECODER_LIB_OBJS := $(filter-out $(BUILD)/decoder/cmd/main.o,$(DECODER_OBJS))
# The folders layer L may include from: itself and every layer below it.
DECODER_SEES_trace    := trace
DECODER_SEES_analysis := $(DECODER_SEES_trace) analysis
DECODER_SEES_cmd      := $(DECODER_SEES_analysis) cmd
decoder_incs = $(foreach l,$(DECODER_SEES_$(1)),-Idecoder/$(l))
DECODER_CFLAGS := $(CFLAGS_COMMON) -Icommon $(DW_CFLAGS)
# recover symbolizes with libdw and demangles with the tracer's own demangler (common/, one
# source).
DECODER_LIBS   := $(shell pkg-config --libs libdw 2>/dev/null || echo -ldw) -l:libiberty.a -lm

$(BUILD)/decoder/%.o: decoder/%.c $(DECODER_HDRS) $(wildcard common/*.h) | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(DECODER_CFLAGS) $(call decoder_incs,$(patsubst %/,%,$(dir $*))) -c $< -o $@

# The report's page, style sheet and script are embedded (.incbin) into report_assets.o.
$(BUILD)/decoder/cmd/report_assets.o: $(wildcard decoder/report/*)

$(BUILD)/decoder/demangle.o: common/demangle.c common/demangle.h | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(DECODER_CFLAGS) -c $< -o $@

$(BUILD)/libgotrace_decoder.a: $(DECODER_LIB_OBJS) $(BUILD)/decoder/demangle.o
	rm -f $@ && ar rcs $@ $^

$(BUILD)/gotrace: $(BUILD)/decoder/cmd/main.o $(BUILD)/libgotrace_decoder.a
	$(CC) -o $@ $^ $(DECODER_LIBS)

# Installation: the tracer library, the decoder, and the public header if there is one.
PREFIX ?= /usr/local
.PHONY: install
install: $(BUILD)/libgotrace.so $(BUILD)/gotrace
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BUILD)/libgotrace.so $(DESTDIR)$(PREFIX)/lib/libgotrace.so
	install -m 0755 $(BUILD)/gotrace $(DESTDIR)$(PREFIX)/bin/gotrace
	if [ -f include/gotrace.h ]; then install -d $(DESTDIR)$(PREFIX)/include && \
	  install -m 0644 include/gotrace.h $(DESTDIR)$(PREFIX)/include/gotrace.h; fi

# Fuzzing (libFuzzer + ASan, clang): `make fuzz FUZZ_SECONDS=60`; findings land in
# build/fuzz/artifacts/ -- copy them to test/decoder/regress/ to make them regression tests.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BIN := $(BUILD)/fuzz/fuzz_decoder
$(FUZZ_BIN): test/decoder/fuzz_decoder.c $(DECODER_SRCS) $(DECODER_HDRS) $(wildcard common/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -Icommon $(call decoder_incs,cmd) $(DW_CFLAGS) \
	    test/decoder/fuzz_decoder.c $(filter-out decoder/cmd/main.c,$(DECODER_SRCS)) \
	    common/demangle.c -o $@ $(DECODER_LIBS)

.PHONY: fuzz fuzz-short decoder-test bench-decoder bench-report bench-analyses
fuzz: $(FUZZ_BIN)
	@bash test/decoder/fuzz.sh $(FUZZ_BIN) $(FUZZ_SECONDS)

fuzz-short: $(FUZZ_BIN)
	@bash test/decoder/fuzz.sh $(FUZZ_BIN) 15 1

decoder-test: $(BUILD)/gotrace $(FUZZ_BIN) $(BUILD)/libgotrace.so $(BUILD)/examples/annotations
	@bash test/decoder/run.sh
	@$(MAKE) --no-print-directory fuzz-short

bench-decoder: $(BUILD)/gotrace
	@bash bench/decoder/bench.sh

# `gotrace report` on >= 150 and >= 500 MiB traces, rendered by headless Chromium.
bench-report: $(BUILD)/gotrace
	@bash bench/decoder/report.sh

TEST_SUITES += decoder-test
# The analyses (summary, contention, locks, hangs, critical-path, export, report) on traced lock
# workloads, against check: linear, at most 10x check (bench/decoder/ANALYSES.md).
bench-analyses: $(BUILD)/gotrace $(BUILD)/libgotrace.so $(BUILD)/bench/handoff
	@bash bench/decoder/analyses.sh

BENCH_SUITES += bench-decoder bench-report bench-analyses
