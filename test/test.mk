# test/: Criterion unit tests (test/unit/test_*.c, one binary each, linked with the core
# archive) and integration tests (test/integration/run.sh). `make test` runs all of them.
UNIT_SRCS := $(wildcard test/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=$(BUILD)/unit/%)
UNIT_CFLAGS := $(CFLAGS_COMMON) -Icommon -Ipreload -Idecoder

$(BUILD)/unit/%: test/unit/%.c $(BUILD)/libgotrace_core.a $(BUILD)/libgotrace_decoder.a
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $< -o $@ $(BUILD)/libgotrace_core.a $(BUILD)/libgotrace_decoder.a \
	    -lcriterion $(PRELOAD_LIBS) -lm

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t --jobs 2; done

integration: all
	@bash test/integration/run.sh

# The long soak (60 s of steady events at bounded memory); not part of `make test`.
.PHONY: soak
soak: all
	@SOAK_SECONDS=60 bash test/integration/run.sh robust_scale

# The integration suite against the tracer built with ASan+UBSan, then with TSan (each in its
# own build dir, preloaded after its runtime); not part of `make test`. See docs/robustness.md.
SAN_RT = $(shell $(CC) -print-file-name=lib$(1).so)
.PHONY: test-sanitize
test-sanitize: all
	@$(MAKE) --no-print-directory BUILD=build/asan EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" \
	    EXTRA_LDFLAGS="-fsanitize=address,undefined" build/asan/libgotrace.so
	@GOTRACE_LIB=$(CURDIR)/build/asan/libgotrace.so GOTRACE_PRELOAD=$(call SAN_RT,asan):$(CURDIR)/build/asan/libgotrace.so \
	    ASAN_OPTIONS=detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	    bash test/integration/run.sh
	@$(MAKE) --no-print-directory BUILD=build/tsan EXTRA_CFLAGS="-fsanitize=thread" EXTRA_LDFLAGS="-fsanitize=thread" \
	    build/tsan/libgotrace.so
	@GOTRACE_LIB=$(CURDIR)/build/tsan/libgotrace.so GOTRACE_PRELOAD=$(call SAN_RT,tsan):$(CURDIR)/build/tsan/libgotrace.so \
	    TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0 bash test/integration/run.sh

# Each component appends its suites to TEST_SUITES; `make test` runs them all in order.
TEST_SUITES += unit integration
test: setup
	@$(MAKE) --no-print-directory all
	@set -e; for s in $(TEST_SUITES); do $(MAKE) --no-print-directory $$s; done
