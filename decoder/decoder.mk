# decoder/: builds build/gotrace (placeholder until the decoder lands).
DECODER_SRCS := $(wildcard decoder/*.c)
$(BUILD)/libgotrace_decoder.a: | $(BUILD)
	rm -f $@ && ar rcs $@
$(BUILD)/gotrace: $(DECODER_SRCS) | $(BUILD)
	$(CC) $(CFLAGS_COMMON) -Icommon $^ -o $@
