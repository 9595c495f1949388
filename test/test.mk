# test/: Criterion unit tests (test/unit/test_*.c, one binary each, linked with the core
# archive) and integration tests (test/integration/run.sh). `make test` runs all of them.
UNIT_SRCS := $(wildcard test/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=$(BUILD)/unit/%)
UNIT_CFLAGS := $(CFLAGS_COMMON) -Icommon $(call preload_incs,hooks) $(call decoder_incs,cmd)

$(BUILD)/unit/%: test/unit/%.c $(wildcard test/unit/*.h) $(BUILD)/libgotrace_core.a $(BUILD)/libgotrace_decoder.a
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $< -o $@ $(BUILD)/libgotrace_core.a $(BUILD)/libgotrace_decoder.a \
	    -lcriterion $(PRELOAD_LIBS) $(UNIT_LIBS) -lm
# test_walk checks the walker against libunwind, which the tracer itself only dlopens.
$(BUILD)/unit/test_walk: UNIT_LIBS := $(UNWIND_LIBS)

# The decoder's unit tests need only the decoder archive (the shorter stem wins over the rule
# above), so they build while the tracer's sources are being changed.
$(BUILD)/unit/test_decoder_%: test/unit/test_decoder_%.c $(wildcard test/unit/*.h) $(BUILD)/libgotrace_decoder.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -Icommon $(call decoder_incs,cmd) $< -o $@ $(BUILD)/libgotrace_decoder.a -lcriterion $(DECODER_LIBS)

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t --jobs 2; done

integration: all
	@bash test/integration/run.sh

# The long soak (60 s of steady events at bounded memory); not part of `make test`.
.PHONY: soak
soak: all
	@SOAK_SECONDS=60 bash test/integration/run.sh robust_scale

# The integration suite against the tracer built with ASan+UBSan (test-asan), then with TSan
# (test-tsan): make test-sanitize runs both and must be clean; not part of `make test`. See
# docs/robustness.md, "Sanitizers". The tracer comes first in LD_PRELOAD and the runtime
# second, as in production the tracer is the outermost interposer (it sees the program's own
# start routines and frames; the runtime's interceptors sit between it and libc); untraced runs
# preload the runtime alone. GOTRACE_SANITIZER tells the cases which runtime it is (a few skip
# what it cannot run), and a sanitizer report on any run's stderr fails its case. TSan leaves
# the interposition layer (hooks, entry, real, plainlock) uninstrumented: its runtime calls
# pthread_key_create, which the tracer interposes, before its shadow memory exists; stacks are
# captured (the tracer's own walker: libunwind, whose trace-cache destructor crashes in TSan
# after TSan has finalised the exiting thread, is only the fallback); test/tsan.supp names the reports that are not the tracer's;
# thread leaks are not reported (the only ones are the programs' own, untraced too).
SAN_RT = $(shell $(CC) -print-file-name=lib$(1).so)
SAN_SIGNALS = handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
SAN_ASAN_OPTIONS = verify_asan_link_order=0:detect_leaks=0:$(SAN_SIGNALS)
SAN_TSAN_OPTIONS = suppressions=$(CURDIR)/test/tsan.supp:report_thread_leaks=0:die_after_fork=0:$(SAN_SIGNALS)
# The interposers TSan leaves uninstrumented (hooks/annotations.c exports the annotation API,
# no libc function: instrumented, as TSan's deferred SIGPROF delivery needs for CPU samples).
TSAN_SKIP = $(filter-out preload/hooks/annotations.c,$(PRELOAD_HOOKS)) preload/util/real.c \
            preload/util/plainlock.c
.PHONY: test-sanitize test-asan test-tsan
test-sanitize: all
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-tsan
test-asan: all
	@$(MAKE) --no-print-directory BUILD=build/asan EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" \
	    EXTRA_LDFLAGS="-fsanitize=address,undefined" build/asan/libgotrace.so
	@echo "== integration, ASan+UBSan"
	@GOTRACE_SANITIZER=asan GOTRACE_LIB=$(CURDIR)/build/asan/libgotrace.so \
	    GOTRACE_PRELOAD=$(CURDIR)/build/asan/libgotrace.so:$(call SAN_RT,asan) \
	    GOTRACE_PLAIN_PRELOAD=$(call SAN_RT,asan) ASAN_OPTIONS=$(SAN_ASAN_OPTIONS) \
	    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 bash test/integration/run.sh
test-tsan: all
	@$(MAKE) --no-print-directory BUILD=build/tsan EXTRA_CFLAGS="-fsanitize=thread" EXTRA_LDFLAGS="-fsanitize=thread" \
	    EXTRA_CFLAGS_SKIP="$(TSAN_SKIP)" build/tsan/libgotrace.so
	@echo "== integration, TSan"
	@GOTRACE_SANITIZER=tsan GOTRACE_LIB=$(CURDIR)/build/tsan/libgotrace.so \
	    GOTRACE_PRELOAD=$(CURDIR)/build/tsan/libgotrace.so:$(call SAN_RT,tsan) \
	    GOTRACE_PLAIN_PRELOAD=$(call SAN_RT,tsan) \
	    TSAN_OPTIONS=$(SAN_TSAN_OPTIONS) bash test/integration/run.sh

# The structure rules of preload/ (README, "How it works"): layers, no module circles, no header
# shadowing a system header, hooks without struct gt_thread's fields, the map names every file.
.PHONY: check-layers integration-debug
check-layers:
	@python3 scripts/check_layers.py

# The integration suite once more with the tracer's invariant checks compiled in (GT_ASSERT,
# preload/util/invariant.h): a broken invariant aborts the case that meets it.
integration-debug: all
	@$(MAKE) --no-print-directory BUILD=build/debug DEBUG=1 build/debug/libgotrace.so
	@echo "== integration, DEBUG=1 (invariant checks)"
	@GOTRACE_LIB=$(CURDIR)/build/debug/libgotrace.so bash test/integration/run.sh

# Each component appends its suites to TEST_SUITES; `make test` runs them all in order.
TEST_SUITES += check-layers unit integration integration-debug
test: setup
	@$(MAKE) --no-print-directory all
	@set -e; for s in $(TEST_SUITES); do $(MAKE) --no-print-directory $$s; done

# Real servers traced as process trees (test/real/cases: PostgreSQL under pgbench, nginx under
# ab, over loopback); not part of `make test`. Installs the servers first (setup.sh --real).
.PHONY: test-real
test-real: all
	@bash scripts/setup.sh --real
	@ITEST_CASES=test/real/cases bash test/integration/run.sh
