# gpulint build fragment (included by the top-level Makefile).
# Every .c under analyzer/ and analyzer/rules/ is part of build/gpulint;
# objects go to $(BUILD)/obj/<source path>.o with their -MMD dependency files.

ANALYZER_SRCS := $(wildcard analyzer/*.c analyzer/*/*.c)
ANALYZER_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(ANALYZER_SRCS))
# Everything but main(): what the unit tests link against.
ANALYZER_LIB_OBJS := $(filter-out $(BUILD)/obj/analyzer/main.o,$(ANALYZER_OBJS))

# libclang is loaded when a run first parses (extract/libclang_api.c), from
# the file the linker would have used: its soname in LLVM_DIR/lib. In
# LIBCLANG_CFLAGS, not CFLAGS, which check-sanitize sets on the command line.
LIBCLANG_SONAME := $(shell readelf -d $(LLVM_DIR)/lib/libclang.so 2>/dev/null | \
                     sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
LIBCLANG_PATH := $(LLVM_DIR)/lib/$(or $(LIBCLANG_SONAME),libclang.so)
LIBCLANG_CFLAGS := -I$(LLVM_DIR)/include -DLIBCLANG_PATH='"$(LIBCLANG_PATH)"'
LIBCLANG_LIBS := -ldl
# -lcrypto: OpenSSL's SHA-256 for the content hash (docs/dependencies.md).
ANALYZER_LIBS := $(LIBCLANG_LIBS) -lpcre2-8 -ljansson -lyaml -lcrypto -lpthread

.PHONY: analyzer
analyzer: $(BUILD)/gpulint

# Linked beside and renamed into place: hook tests running while gpulint is
# rebuilt never see a half-written binary.
$(BUILD)/gpulint: $(ANALYZER_OBJS)
	$(CC) $(CFLAGS) -o $@.tmp $^ $(ANALYZER_LIBS)
	mv -f $@.tmp $@

$(BUILD)/obj/analyzer/%.o: analyzer/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN_C) $(CFLAGS) $(DEPFLAGS) -Ianalyzer $(LIBCLANG_CFLAGS) -c $< -o $@

# C unit tests (cmocka): tests/analyzer/unit/<name>.c -> $(BUILD)/tests/analyzer/unit_<name>
ANALYZER_UNIT_SRCS := $(wildcard tests/analyzer/unit/*.c)
ANALYZER_UNIT_BINS := $(patsubst tests/analyzer/unit/%.c,$(BUILD)/tests/analyzer/unit_%,$(ANALYZER_UNIT_SRCS))
TEST_BINS += $(ANALYZER_UNIT_BINS)
ANALYZER_SUITES += $(ANALYZER_UNIT_BINS)

$(BUILD)/tests/analyzer/unit_%: tests/analyzer/unit/%.c $(ANALYZER_LIB_OBJS)
	@mkdir -p $(@D) $(BUILD)/obj/tests
	$(CC) $(WARN_C) $(CFLAGS) $(DEPFLAGS) -MF $(BUILD)/obj/tests/unit_$*.d -Ianalyzer \
	    $(LIBCLANG_CFLAGS) -o $@ $< $(ANALYZER_LIB_OBJS) $(ANALYZER_LIBS) -lcmocka

-include $(ANALYZER_OBJS:.o=.d) $(patsubst tests/analyzer/unit/%.c,$(BUILD)/obj/tests/unit_%.d,$(ANALYZER_UNIT_SRCS))

# docs/rules.md's rule table and --explain blocks, from the registry
# (scripts/rules-doc.sh); tests/analyzer/rules_doc.bats fails when they differ.
# Speed on real corpora beside clang (tests/bench/analyzer.sh; docs/performance.md).
.PHONY: bench-analyzer
bench-analyzer: $(BUILD)/gpulint
	tests/bench/analyzer.sh

.PHONY: rules-doc
rules-doc: $(BUILD)/gpulint
	scripts/rules-doc.sh $(BUILD)/gpulint docs/rules.md > docs/rules.md.tmp || \
	    { rm -f docs/rules.md.tmp; exit 1; }
	mv -f docs/rules.md.tmp docs/rules.md

ANALYZER_SUITES += tests/analyzer/run-rules-doc
ANALYZER_SUITES += tests/analyzer/run-layering
ANALYZER_SUITES += tests/analyzer/run-hostile
ANALYZER_SUITES += tests/analyzer/run-shard
