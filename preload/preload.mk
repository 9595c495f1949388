# preload/: builds build/libgotrace.so. hooks_*.c hold the interposed functions and entry.c
# the library's constructor/destructor; every other file is part of the core archive that
# the unit tests link against (so linking it never starts a tracer).
# EXTRA_CFLAGS/EXTRA_LDFLAGS (make test-sanitize: a sanitizer) apply to every object except the
# sources listed in EXTRA_CFLAGS_SKIP.
PRELOAD_SRCS  := $(wildcard preload/*.c)
PRELOAD_HOOKS := $(wildcard preload/hooks_*.c) preload/entry.c
PRELOAD_CORE  := $(filter-out $(PRELOAD_HOOKS),$(PRELOAD_SRCS))
PRELOAD_CFLAGS := $(CFLAGS_COMMON) -Icommon -Ipreload -fPIC -fvisibility=hidden \
                  -ftls-model=initial-exec $(UNWIND_CFLAGS) $(DW_CFLAGS)
PRELOAD_LIBS  := $(UNWIND_LIBS) $(DW_LIBS) -ldl -lpthread

$(BUILD)/preload/%.o: preload/%.c $(wildcard preload/*.h) common/go_wire.h | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(PRELOAD_CFLAGS) $(if $(filter $<,$(EXTRA_CFLAGS_SKIP)),,$(EXTRA_CFLAGS)) -c $< -o $@

$(BUILD)/libgotrace_core.a: $(PRELOAD_CORE:preload/%.c=$(BUILD)/preload/%.o)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libgotrace.so: $(PRELOAD_SRCS:preload/%.c=$(BUILD)/preload/%.o)
	$(CC) -shared -o $@ $^ $(PRELOAD_LIBS) $(EXTRA_LDFLAGS) -Wl,-z,defs
