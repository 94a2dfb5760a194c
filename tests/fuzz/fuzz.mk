# libFuzzer harnesses for every parser of outside input (tests/fuzz/*.c),
# built with clang-19 and -fsanitize=fuzzer,address,undefined under
# $(BUILD)/fuzz/ (included by the top-level Makefile).
#   make fuzz [FUZZ_SECONDS=600]   each harness for that long, corpus kept
#                                  in $(BUILD)/fuzz/corpus/<name>/
#   tests/fuzz/run-smoke           each over its seeds plus FUZZ_SMOKE_SECONDS
#                                  (make check runs it; any crash fails)
#   tests/fuzz/run-long            long runs elsewhere (bundle, workers, stats);
#                                  tests/fuzz/run_long.bats tests it
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

# Each harness links only what its parser needs, so that the binaries run on
# a machine with nothing but glibc and libstdc++ (a long run elsewhere, or
# CI): the analyzer's objects are an archive, from which the linker takes
# only the members that resolve a symbol, so the libclang code (extract/,
# the rules) never comes in and no harness needs libclang/libLLVM (over
# 100 MB, and a slower start of every smoke run). The third-party libraries
# are linked statically from Debian's .a files for the same reason; a
# harness that pulls in a libclang user fails to link ("undefined reference
# to clang_..."), which is the check that this stays so.
FUZZ_ARCHIVE := $(FUZZ_DIR)/libgpulint-fuzz.a
FUZZ_STATIC_DIR ?= /usr/lib/x86_64-linux-gnu
FUZZ_STATIC_LIBS := $(FUZZ_STATIC_DIR)/libpcre2-8.a $(FUZZ_STATIC_DIR)/libjansson.a \
                    $(FUZZ_STATIC_DIR)/libyaml.a $(FUZZ_STATIC_DIR)/libcrypto.a
FUZZ_LINK = $(FUZZ_CC) -std=c11 -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer -Ianalyzer -Itests/fuzz \
            $(LIBCLANG_CFLAGS) -MMD -MP -MF $(FUZZ_DIR)/obj/$(@F).d
FUZZ_LINK_LIBS := -Wl,--as-needed -lpthread

$(FUZZ_ARCHIVE): $(FUZZ_ANALYZER_OBJS)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_npy: tests/fuzz/fuzz_npy.c $(FUZZ_LAYER_OBJS)
	$(FUZZ_LINK) $(LAYER_INC) -o $@ $< $(filter-out %/safetensors.o,$(FUZZ_LAYER_OBJS)) $(FUZZ_LINK_LIBS)

# The safetensors reader itself, not TLOB_JANSSON's probe: gpulint needs
# jansson anyway, so every machine that builds the fuzzers has it.
$(FUZZ_DIR)/fuzz_safetensors: tests/fuzz/fuzz_safetensors.c $(FUZZ_LAYER_OBJS)
	$(FUZZ_LINK) $(LAYER_INC) -o $@ $< $(filter-out %/npy.o,$(FUZZ_LAYER_OBJS)) \
	    $(FUZZ_STATIC_DIR)/libjansson.a $(FUZZ_LINK_LIBS)

# inputs.c is compiled into its harness (its reader is static there); the
# archive's inputs.o is then never taken, every symbol of it being defined.
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_ARCHIVE)
	$(FUZZ_LINK) -o $@ $< $(FUZZ_ARCHIVE) $(FUZZ_STATIC_LIBS) $(FUZZ_LINK_LIBS)

-include $(FUZZ_ANALYZER_OBJS:.o=.d) $(FUZZ_LAYER_OBJS:.o=.d) $(FUZZ_NAMES:%=$(FUZZ_DIR)/obj/fuzz_%.d)

FUZZ_SUITES := tests/fuzz/run-smoke tests/fuzz/run-long-test

.PHONY: fuzzers fuzz
fuzzers: $(FUZZ_BINS)

fuzz: deps
	@$(MAKE) --no-print-directory fuzzers
	@FUZZ_SMOKE_SECONDS=$(FUZZ_SECONDS) FUZZ_KEEP_CORPUS=1 tests/fuzz/run-smoke
