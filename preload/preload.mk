# preload/: builds build/libgotrace.so. One folder per layer, lowest first (README, "How it
# works"):
#   util/ -> stack/ -> buffers/ -> writer/ -> flush/ -> api/ -> hooks/
# A file sees the headers of its own layer and of the layers below it, never above: each
# folder is compiled with -I for itself and the folders to its left only, so a wrong-way
# include does not build (scripts/check_layers.py, run by `make test`, also names the offending
# line, and checks that no modules include each other in a circle, that no header shadows a
# system header, that hooks use no struct gt_thread field and that README's map names every
# file). hooks/ holds the interposed functions and entry.c the library's
# constructor/destructor; every other file is part of the core archive that the unit tests link
# against (so linking it never starts a tracer).
# EXTRA_CFLAGS/EXTRA_LDFLAGS (make test-sanitize: a sanitizer) apply to every object except the
# sources listed in EXTRA_CFLAGS_SKIP. DEBUG=1 compiles the invariant checks in (GT_ASSERT,
# util/invariant.h); the sanitizer builds always do.
PRELOAD_LAYERS := util stack buffers writer flush api hooks
# common/demangle.c is shared with the decoder (one demangler); it is built into the core here.
PRELOAD_SRCS   := $(foreach l,$(PRELOAD_LAYERS),$(wildcard preload/$(l)/*.c)) common/demangle.c
PRELOAD_HDRS   := $(foreach l,$(PRELOAD_LAYERS),$(wildcard preload/$(l)/*.h))
PRELOAD_HOOKS  := $(wildcard preload/hooks/*.c)
PRELOAD_CORE   := $(filter-out $(PRELOAD_HOOKS),$(PRELOAD_SRCS))
# The folders layer L may include from: itself and every layer below it.
PRELOAD_SEES_util    := util
PRELOAD_SEES_stack   := $(PRELOAD_SEES_util) stack
PRELOAD_SEES_buffers := $(PRELOAD_SEES_stack) buffers
PRELOAD_SEES_writer  := $(PRELOAD_SEES_buffers) writer
PRELOAD_SEES_flush   := $(PRELOAD_SEES_writer) flush
PRELOAD_SEES_api     := $(PRELOAD_SEES_flush) api
PRELOAD_SEES_hooks   := $(PRELOAD_SEES_api) hooks
preload_incs = $(foreach l,$(PRELOAD_SEES_$(1)),-Ipreload/$(l))
PRELOAD_CFLAGS := $(CFLAGS_COMMON) -Icommon -fPIC -fvisibility=hidden -ftls-model=initial-exec \
                  $(UNWIND_CFLAGS) $(DW_CFLAGS) $(if $(DEBUG),-DGT_DEBUG_ASSERT=1)
# libiberty (libiberty-dev): the demanglers, linked statically and kept hidden (common/demangle.c).
# libdw and libelf are not linked: stack/dwlazy.c dlopens libdw at the first pc the symbol cache
# does not know; nor is libunwind: stack/stack.c dlopens it for the first stack the fast walker
# cannot walk (only their headers are needed to build).
PRELOAD_LIBS  := -l:libiberty.a -Wl,--exclude-libs,libiberty.a -ldl -lpthread

$(BUILD)/preload/%.o: preload/%.c $(PRELOAD_HDRS) $(wildcard common/*.h) | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(PRELOAD_CFLAGS) $(call preload_incs,$(patsubst %/,%,$(dir $*))) $(if $(filter $<,$(EXTRA_CFLAGS_SKIP)),,$(EXTRA_CFLAGS)) -c $< -o $@

$(BUILD)/preload/common/%.o: common/%.c $(wildcard common/*.h) | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(PRELOAD_CFLAGS) $(EXTRA_CFLAGS) -c $< -o $@

preload_obj = $(patsubst common/%.c,$(BUILD)/preload/common/%.o,$(1:preload/%.c=$(BUILD)/preload/%.o))
$(BUILD)/libgotrace_core.a: $(call preload_obj,$(PRELOAD_CORE))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libgotrace.so: $(call preload_obj,$(PRELOAD_SRCS))
	$(CC) -shared -o $@ $^ $(PRELOAD_LIBS) $(EXTRA_LDFLAGS) -Wl,-z,defs
