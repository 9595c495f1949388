# examples/: small programs to run under the tracer (scripts/demo.sh uses pipeline).
# Built with symbols and frame pointers so their stacks symbolize well; part of `make all`.
EXAMPLE_SRCS := $(wildcard examples/*.c)
EXAMPLE_BINS := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/examples/%)
EXAMPLE_CFLAGS := $(CFLAGS_COMMON) -fno-omit-frame-pointer -pthread

.PHONY: examples
examples: $(EXAMPLE_BINS)
all: examples

$(BUILD)/examples/%: examples/%.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(EXAMPLE_CFLAGS) $< -o $@

# annotations uses include/gotrace.h (-Iinclude above) and links no gotrace library: its calls
# are no-ops untraced and reach libgotrace.so under LD_PRELOAD (docs/annotations.md).
$(BUILD)/examples/annotations: include/gotrace.h
