# libFuzzer harnesses for every parser of outside input (tests/fuzz/*.c),
# built with clang-19 and -fsanitize=fuzzer,address,undefined under
# $(BUILD)/fuzz/ (included by the top-level Makefile).
#   make fuzz [FUZZ_SECONDS=600]   each harness for that long, corpus kept
#                                  in $(BUILD)/fuzz/corpus/<name>/
#   tests/fuzz/run-smoke           each over its seeds plus FUZZ_SMOKE_SECONDS
#                                  (make check runs it; any crash fails)
# docs/reliability.md records the runs and what they found.

FUZZ_CC ?= clang-19
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_NAMES := config suppress mask glob compile_db response_file baseline index_entry npy \
              safetensors
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)

FUZZ_ANALYZER_OBJS := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(filter-out analyzer/main.c,$(ANALYZER_SRCS)))
FUZZ_LAYER_OBJS := $(FUZZ_DIR)/obj/layer/npy.o $(FUZZ_DIR)/obj/layer/host_file.o \
                   $(FUZZ_DIR)/obj/layer/layout.o $(FUZZ_DIR)/obj/layer/safetensors.o

$(FUZZ_DIR)/obj/analyzer/%.o: analyzer/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -Ianalyzer $(LIBCLANG_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/obj/layer/%.o: layer/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP $(LAYER_INC) -c $< -o $@

FUZZ_LINK = $(FUZZ_CC) -std=c11 -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer -Ianalyzer -Itests/fuzz \
            $(LIBCLANG_CFLAGS) -MMD -MP -MF $(FUZZ_DIR)/obj/$(@F).d

$(FUZZ_DIR)/fuzz_npy: tests/fuzz/fuzz_npy.c $(FUZZ_LAYER_OBJS)
	$(FUZZ_LINK) $(LAYER_INC) -o $@ $< $(filter-out %/safetensors.o,$(FUZZ_LAYER_OBJS))

# The safetensors reader itself, not TLOB_JANSSON's probe: gpulint needs
# jansson anyway, so every machine that builds the fuzzers has it.
$(FUZZ_DIR)/fuzz_safetensors: tests/fuzz/fuzz_safetensors.c $(FUZZ_LAYER_OBJS)
	$(FUZZ_LINK) $(LAYER_INC) -o $@ $< $(filter-out %/npy.o,$(FUZZ_LAYER_OBJS)) -ljansson

# inputs.c is compiled into its harness (its reader is static there).
$(FUZZ_DIR)/fuzz_index_entry: tests/fuzz/fuzz_index_entry.c $(FUZZ_ANALYZER_OBJS)
	$(FUZZ_LINK) -o $@ $< $(filter-out %/input/inputs.o,$(FUZZ_ANALYZER_OBJS)) $(ANALYZER_LIBS)

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_ANALYZER_OBJS)
	$(FUZZ_LINK) -o $@ $< $(FUZZ_ANALYZER_OBJS) $(ANALYZER_LIBS)

-include $(FUZZ_ANALYZER_OBJS:.o=.d) $(FUZZ_LAYER_OBJS:.o=.d) $(FUZZ_NAMES:%=$(FUZZ_DIR)/obj/fuzz_%.d)

FUZZ_SUITES := tests/fuzz/run-smoke

.PHONY: fuzzers fuzz
fuzzers: $(FUZZ_BINS)

fuzz: deps
	@$(MAKE) --no-print-directory fuzzers
	@FUZZ_SMOKE_SECONDS=$(FUZZ_SECONDS) FUZZ_KEEP_CORPUS=1 tests/fuzz/run-smoke
