# The TLOB GPU layer, gpulint and the hooks. `make help` lists the targets.
# Outputs go to build/: build/gpulint, build/libtlob.a, build/tlob, and test
# binaries under build/tests/.

.DEFAULT_GOAL := all
SHELL := /bin/bash

CUDA_PATH ?= /usr/local/cuda
# A real SM target plus its PTX, so newer GPUs JIT-compile the same code.
CUDA_ARCH ?= sm_90
CUDA_VIRTUAL := $(patsubst sm_%,compute_%,$(CUDA_ARCH))
NVCC ?= $(CUDA_PATH)/bin/nvcc
LLVM_DIR ?= /usr/lib/llvm-19
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL ?= install
VERSION := 0.1.0

BUILD := build
WARN_C := -std=c11 -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
DEPFLAGS = -MMD -MP
NVCCFLAGS ?= -O2 -g -lineinfo
NVCC_ALL = -std=c++17 -gencode arch=$(CUDA_VIRTUAL),code=[$(CUDA_ARCH),$(CUDA_VIRTUAL)] \
           -Xcompiler -Wall,-Wextra,-Werror $(NVCCFLAGS)
CUDA_LIBS := -L$(CUDA_PATH)/lib64 -Wl,-rpath,$(CUDA_PATH)/lib64 -lcublasLt -lcublas -lcudart

# Each fragment appends to these: test executables to build, and the suites
# the harness runs (one executable each).
TEST_BINS :=
LAYER_SUITES :=
GPU_SUITES :=
ANALYZER_SUITES := tests/analyzer/run-fixtures tests/analyzer/run-cli tests/integrations/run
HOOKS_SUITES := tests/hooks/run
HARNESS_SUITES := tests/run-harness-test
INSTALL_SUITES := tests/install/run

include layer/layer.mk
include analyzer/analyzer.mk
include tests/fuzz/fuzz.mk

.PHONY: FORCE all layer analyzer tests check test-layer test-gpu test-analyzer \
        test-hooks analyze bench bench-hooks install uninstall install-hooks clean deps help

all: deps
	@$(MAKE) --no-print-directory layer analyzer

help:
	@echo "make            build everything (installs missing Debian packages first)"
	@echo "make check      build and run every test; ends with 'N passed, N failed'"
	@echo "make analyze    run gpulint over this repository"
	@echo "make layer      build build/libtlob.a, build/libtlob.so and build/tlob (needs only CUDA)"
	@echo "make analyzer   build build/gpulint"
	@echo "make test-layer | test-gpu | test-analyzer | test-hooks"
	@echo "make bench      hook latency, then the layer benchmarks (need a GPU)"
	@echo "make bench-hooks   hook latency only (scripts/bench-hooks.sh)"
	@echo "make fuzz [FUZZ_SECONDS=60]   every libFuzzer harness of tests/fuzz/ for that long"
	@echo "make check-sanitize   ASan+UBSan build of gpulint and the CPU tests, and their suites"
	@echo "make bench-analyzer   gpulint beside clang on this repo, generated files, llm.c, cuda-samples"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=]   |  make uninstall"
	@echo "make install-hooks   point this clone's core.hooksPath at .githooks/"
	@echo "  (any repository, after make install: git config core.hooksPath PREFIX/share/gpulint/hooks)"
	@echo "make deps       install missing Debian packages (root)"
	@echo "variables: CUDA_PATH=$(CUDA_PATH) CUDA_ARCH=$(CUDA_ARCH) LLVM_DIR=$(LLVM_DIR)"

deps:
	@scripts/deps.sh
	@scripts/sarif-validator.sh

tests: $(TEST_BINS)

# Suites at once (tests/harness HARNESS_JOBS), the longest first so that it
# runs beside all the others: one at a time, bats, git and the hooks' shell
# processes left one of CI's two cores idle (docs/ci.md, "This repository's CI").
CHECK_JOBS ?= 2
check: deps
	@$(MAKE) --no-print-directory layer analyzer tests fuzzers
	@HARNESS_JOBS=$(CHECK_JOBS) tests/harness $(HOOKS_SUITES) $(ANALYZER_SUITES) $(FUZZ_SUITES) \
	    $(LAYER_SUITES) $(GPU_SUITES) $(INSTALL_SUITES) $(HARNESS_SUITES)

test-layer: $(filter $(BUILD)/tests/layer/%,$(TEST_BINS))
	@tests/harness $(LAYER_SUITES)

test-gpu: $(filter $(BUILD)/tests/gpu/%,$(TEST_BINS))
	@tests/harness $(GPU_SUITES)

test-analyzer: deps
	@$(MAKE) --no-print-directory analyzer $(filter $(BUILD)/tests/analyzer/%,$(TEST_BINS))
	@tests/harness $(ANALYZER_SUITES)

test-hooks: deps
	@$(MAKE) --no-print-directory analyzer
	@tests/harness $(HOOKS_SUITES)

analyze: deps
	@$(MAKE) --no-print-directory analyzer
	$(BUILD)/gpulint
	@echo "analyze: no error findings (gpulint exit 0; warnings, if any, are listed above)"

# The hook latency figures of docs/hooks.md; layer/layer.mk adds the layer's.
# A bench never installs packages (the GPU machine reaches no archive): where
# gpulint cannot be built, the hook half says SKIP and the layer half runs.
bench: bench-hooks
bench-hooks:
	@if [ -r $(LLVM_DIR)/include/clang-c/Index.h ]; then \
	  $(MAKE) --no-print-directory analyzer && scripts/bench-hooks.sh $(BUILD)/gpulint; \
	else echo "SKIP hook latency: no libclang-19 at $(LLVM_DIR) to build gpulint (make deps)"; fi

# ASan+UBSan: gpulint, the layer library and every CPU test built with
# clang-19 under $(BUILD)/sanitize, then the analyzer, hooks and layer CPU
# suites run against those binaries; any sanitizer report (a leak included)
# fails its suite. The GPU suites are left out: the CUDA runtime and ASan's
# shadow memory do not mix, and CI has no GPU. Warnings are gcc's to fail
# (make check); clang's extra ones do not stop this build.
SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# use_sigaltstack=0: libclang (LLVM's signal handling) installs its own
# alternate signal stack, malloc'd, on the thread that parses; ASan unmaps
# the one it believes is there when that thread ends, munmap fails (EINVAL)
# and ASan aborts a run that did nothing wrong (tests/analyzer/not_checked.bats
# without a CUDA toolkit). A stack overflow is then a plain SIGSEGV, which
# the contained worker reports as such (analyzer/extract/contain.c).
# Suites at once under ASan (tests/harness HARNESS_JOBS): its processes spend
# much of their time in the kernel (fork, mmap), so two keep both CI cores busy.
SAN_JOBS ?= 2
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:protect_shadow_gap=0:use_sigaltstack=0 \
           UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# The CUDA kernels are nvcc's (host code by gcc, never instrumented): the
# objects make check built are the same ones, so they are shared instead of
# compiled again. Only the binaries the suites run are built (no GPU tests).
SAN_SHARED_OBJS := $(LAYER_LIB_CU:%.cu=obj/%.o)

check-sanitize: deps
	@$(MAKE) --no-print-directory $(addprefix $(BUILD)/,$(SAN_SHARED_OBJS))
	@for o in $(SAN_SHARED_OBJS); do mkdir -p $(BUILD)/sanitize/$$(dirname $$o); \
	  cp -p $(BUILD)/$$o $(BUILD)/sanitize/$$o; done
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/sanitize CC=clang-19 CFLAGS='$(SAN_CFLAGS)' \
	    WARN_C='-std=c11 -Wall -Wextra' sanitize-bins
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/sanitize sanitize-suites

.PHONY: check-sanitize sanitize-bins sanitize-suites
sanitize-bins: $(BUILD)/tlob analyzer $(filter-out $(BUILD)/tests/gpu/%,$(TEST_BINS))

# The suites of make check that run these binaries, less those that test
# nothing sanitized: tests/analyzer/run-layering reads build/obj's symbols,
# and ci-recipe.bats builds its own gpulint in a clone. Without make's
# variables: MAKEFLAGS would carry BUILD=build/sanitize into every make a
# suite starts (ci-recipe's clone then built its gpulint under
# build/sanitize/, and the recipe found no build/gpulint). TEST_TIMEOUT_SCALE:
# the 5 MB file of tests/analyzer/cli.bats takes 8 s of CPU, 154 s under
# ASan (mostly the allocator's page faults), past its 300 s hang guard on a
# loaded machine.
sanitize-suites:
	@env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(SAN_ENV) INTEGRATIONS_SKIP=ci-recipe TEST_TIMEOUT_SCALE=4 \
	    HARNESS_JOBS=$(SAN_JOBS) \
	    GPULINT=$(abspath $(BUILD))/gpulint HOOK_TEST_GPULINT=$(abspath $(BUILD))/gpulint \
	    tests/harness $(HOOKS_SUITES) $(filter-out tests/analyzer/run-layering,$(ANALYZER_SUITES)) \
	    $(filter-out tests/layer/test_python.sh,$(LAYER_SUITES))

install-hooks:
	git config core.hooksPath .githooks
	@echo "hooks: core.hooksPath = .githooks (pre-commit, pre-merge-commit, pre-push)"
	@test -x $(BUILD)/gpulint || command -v gpulint >/dev/null || \
	  echo "hooks: no gpulint yet: run 'make analyzer' (or set GPULINT), or every commit is blocked"

# pkg-config metadata for the layer library; regenerated when PREFIX changes.
# Libs links libtlob.so; `pkg-config --static` adds what libtlob.a needs.
$(BUILD)/tlob.pc: FORCE
	@mkdir -p $(BUILD)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: tlob' 'Description: TLOB transformer layer in CUDA C on cuBLAS, forward and backward' \
	  'Version: $(VERSION)' 'Cflags: -I$${includedir} -I$(CUDA_PATH)/include' \
	  'Libs: -L$${libdir} -ltlob' \
	  'Libs.private: -L$(CUDA_PATH)/lib64 -lcublasLt -lcublas -lcudart $(JANSSON_LIBS) -lstdc++ -lm' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

# CMake package config (cmake/*.cmake.in): find_package(tlob) -> tlob::tlob.
TLOB_MAJOR := $(word 1,$(subst ., ,$(VERSION)))
TLOB_MINOR := $(word 2,$(subst ., ,$(VERSION)))
$(BUILD)/cmake/%.cmake: cmake/%.cmake.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@SONAME@|$(LAYER_SONAME)|g' \
	  -e 's|@MAJOR@|$(TLOB_MAJOR)|g' -e 's|@MINOR@|$(TLOB_MINOR)|g' \
	  -e 's|@STATIC_EXTRA@|$(if $(JANSSON_LIBS),jansson;)stdc++;|g' $< > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
TLOB_CMAKE := $(BUILD)/cmake/tlobConfig.cmake $(BUILD)/cmake/tlobConfigVersion.cmake

FORCE:

# The hooks land in share/gpulint/hooks, named as git names hooks, so that
# `git config core.hooksPath <prefix>/share/gpulint/hooks` sets them up in any
# repository (docs/hooks.md); they run the gpulint of <prefix>/bin unless
# $$GPULINT or PATH names another. pre-merge-commit is pre-commit under the
# name that makes it check a merge.
HOOKS_DIR = $(PREFIX)/share/gpulint/hooks

install: all $(BUILD)/tlob.pc $(TLOB_CMAKE)
	$(INSTALL) -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/lib/cmake/tlob $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(HOOKS_DIR)
	$(INSTALL) -m 755 $(BUILD)/gpulint $(BUILD)/tlob $(DESTDIR)$(PREFIX)/bin/
	$(INSTALL) -m 644 $(BUILD)/libtlob.a $(DESTDIR)$(PREFIX)/lib/
	$(INSTALL) -m 755 $(BUILD)/libtlob.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libtlob.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(LAYER_SONAME)
	ln -sf $(LAYER_SONAME) $(DESTDIR)$(PREFIX)/lib/libtlob.so
	$(INSTALL) -m 644 $(BUILD)/tlob.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	$(INSTALL) -m 644 $(TLOB_CMAKE) $(DESTDIR)$(PREFIX)/lib/cmake/tlob/
	$(INSTALL) -m 644 layer/tlob.h $(DESTDIR)$(PREFIX)/include/
	$(INSTALL) -m 644 docs/gpulint.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	$(INSTALL) -m 755 hooks/pre-commit hooks/pre-push $(DESTDIR)$(HOOKS_DIR)/
	$(INSTALL) -m 755 hooks/pre-commit $(DESTDIR)$(HOOKS_DIR)/pre-merge-commit
	$(INSTALL) -m 644 hooks/lib.sh $(DESTDIR)$(HOOKS_DIR)/
	@echo "install: set up the hooks in a repository with:" \
	      "git config core.hooksPath $(HOOKS_DIR)"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gpulint $(DESTDIR)$(PREFIX)/bin/tlob \
	      $(DESTDIR)$(PREFIX)/lib/libtlob.a $(DESTDIR)$(PREFIX)/lib/pkgconfig/tlob.pc \
	      $(DESTDIR)$(PREFIX)/lib/libtlob.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(LAYER_SONAME) \
	      $(DESTDIR)$(PREFIX)/lib/libtlob.so $(DESTDIR)$(PREFIX)/lib/cmake/tlob/tlobConfig.cmake \
	      $(DESTDIR)$(PREFIX)/lib/cmake/tlob/tlobConfigVersion.cmake \
	      $(DESTDIR)$(PREFIX)/include/tlob.h $(DESTDIR)$(PREFIX)/share/man/man1/gpulint.1 \
	      $(addprefix $(DESTDIR)$(HOOKS_DIR)/,pre-commit pre-merge-commit pre-push lib.sh)
	-rmdir $(DESTDIR)$(HOOKS_DIR) $(DESTDIR)$(PREFIX)/share/gpulint 2>/dev/null

clean:
	rm -rf $(BUILD)
