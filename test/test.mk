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

# Each component appends its suites to TEST_SUITES; `make test` runs them all in order.
TEST_SUITES += unit integration
test: setup
	@$(MAKE) --no-print-directory all
	@set -e; for s in $(TEST_SUITES); do $(MAKE) --no-print-directory $$s; done
