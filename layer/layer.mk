# Layer build fragment (included by the top-level Makefile).
# Builds $(BUILD)/libtlob.a, $(BUILD)/libtlob.so and $(BUILD)/tlob with nvcc +
# cc only, the CPU test suites ($(BUILD)/tests/layer/) and the GPU suite
# ($(BUILD)/tests/gpu/).

LAYER_INC := -I$(CUDA_PATH)/include -Ilayer
# Every layer object is position-independent (the same objects make both
# libraries) and hides its symbols unless tlob.h marks them TLOB_API.
LAYER_PIC := -fPIC -fvisibility=hidden
# safetensors support needs jansson's headers; `make layer` must also build on
# a machine with only CUDA and a C compiler, where the library then says it
# has none (docs/dependencies.md). TLOB_JANSSON=yes|no overrides the probe.
TLOB_JANSSON ?= $(shell { pkg-config --exists jansson 2>/dev/null || test -f /usr/include/jansson.h; } && echo yes || echo no)
ifeq ($(TLOB_JANSSON),yes)
LAYER_SAFETENSORS := layer/safetensors.c
JANSSON_LIBS := -ljansson
else
LAYER_SAFETENSORS := layer/safetensors_unavailable.c
JANSSON_LIBS :=
endif
LAYER_LIB_C := layer/tlob.c layer/compute.c layer/linear.c layer/attention.c layer/layout.c \
               layer/npy.c layer/host_file.c layer/ref.c layer/params_io.c layer/parity.c \
               $(LAYER_SAFETENSORS)
LAYER_LIB_CU := layer/kernels.cu layer/attention_kernels.cu layer/forward_kernels.cu layer/mlp_kernels.cu
LAYER_CLI_C := layer/cli.c layer/bench.c

LAYER_LIB_OBJS := $(LAYER_LIB_C:%.c=$(BUILD)/obj/%.o) $(LAYER_LIB_CU:%.cu=$(BUILD)/obj/%.o)
LAYER_CLI_OBJS := $(LAYER_CLI_C:%.c=$(BUILD)/obj/%.o)
# kernels.o is C++ (nvcc): C links need the C++ runtime.
LAYER_DEPLIBS := $(CUDA_LIBS) $(JANSSON_LIBS) -lstdc++ -lm
LAYER_LINK := $(BUILD)/libtlob.a $(LAYER_DEPLIBS)
LAYER_SONAME := libtlob.so.$(firstword $(subst ., ,$(VERSION)))

LAYER_CPU_TESTS := $(BUILD)/tests/layer/test_ref $(BUILD)/tests/layer/test_npy $(BUILD)/tests/layer/test_safetensors \
                   $(BUILD)/tests/layer/test_layout_api
LAYER_GPU_TESTS := $(BUILD)/tests/gpu/test_layer_gpu $(BUILD)/tests/gpu/test_streams
LAYER_TEST_OBJS := $(LAYER_CPU_TESTS:$(BUILD)/tests/%=$(BUILD)/obj/tests/%.o) \
                   $(LAYER_GPU_TESTS:$(BUILD)/tests/%=$(BUILD)/obj/tests/%.o)

LAYER_CLI_SUITES := $(BUILD)/tests/layer/test_cli $(BUILD)/tests/layer/test_cli_hostile
# launch_floor is a benchmark, not a suite (tests/gpu/device_run.sh runs it);
# make check still builds it, so that a break shows without a GPU.
TEST_BINS += $(LAYER_CPU_TESTS) $(LAYER_CLI_SUITES) $(LAYER_GPU_TESTS) $(BUILD)/tests/gpu/launch_floor
LAYER_SUITES += $(LAYER_CPU_TESTS) $(LAYER_CLI_SUITES) tests/layer/test_python.sh
GPU_SUITES += $(LAYER_GPU_TESTS)

# The flags above (position-independent, hidden) are part of every object.
$(LAYER_LIB_OBJS) $(LAYER_CLI_OBJS): layer/layer.mk

# Test objects are intermediates of a chained rule: keep them, or make deletes
# them after each link and rebuilds them next time.
.SECONDARY: $(LAYER_TEST_OBJS)

.PHONY: layer
layer: $(BUILD)/libtlob.a $(BUILD)/libtlob.so $(BUILD)/tlob

$(BUILD)/obj/layer/%.o: layer/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN_C) $(CFLAGS) $(LAYER_PIC) $(DEPFLAGS) $(LAYER_INC) -c $< -o $@

# nvcc fails ("Failed to preprocess host compiler properties") when started
# with standard input closed, as CI and cron may start us: give it /dev/null.
$(BUILD)/obj/layer/%.o: layer/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_ALL) -Xcompiler -fPIC,-fvisibility=hidden $(DEPFLAGS) $(LAYER_INC) -c $< -o $@ </dev/null

$(BUILD)/libtlob.a: $(LAYER_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# The shared library: soname libtlob.so.MAJOR, the real file
# libtlob.so.VERSION, and the links the loader and the linker look for.
$(BUILD)/libtlob.so.$(VERSION): $(LAYER_LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(LAYER_SONAME) -Wl,--no-undefined -o $@ $^ $(LAYER_DEPLIBS)

$(BUILD)/libtlob.so: $(BUILD)/libtlob.so.$(VERSION)
	ln -sf $(<F) $(BUILD)/$(LAYER_SONAME)
	ln -sf $(LAYER_SONAME) $@

$(BUILD)/tlob: $(LAYER_CLI_OBJS) $(BUILD)/libtlob.a
	$(CC) $(CFLAGS) $(LAYER_CLI_OBJS) $(LAYER_LINK) -o $@

$(BUILD)/obj/tests/layer/%.o: tests/layer/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN_C) $(CFLAGS) $(DEPFLAGS) $(LAYER_INC) -c $< -o $@

$(BUILD)/obj/tests/gpu/%.o: tests/gpu/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN_C) $(CFLAGS) $(DEPFLAGS) $(LAYER_INC) -c $< -o $@

$(BUILD)/tests/layer/%: $(BUILD)/obj/tests/layer/%.o $(BUILD)/libtlob.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LAYER_LINK) -o $@

$(BUILD)/tests/gpu/%: $(BUILD)/obj/tests/gpu/%.o $(BUILD)/libtlob.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LAYER_LINK) -lpthread -o $@

# The launch-floor measurement (tests/gpu/launch_floor.cu): a benchmark, not
# a suite; tests/gpu/device_run.sh runs it.
$(BUILD)/obj/tests/gpu/launch_floor.o: tests/gpu/launch_floor.cu layer/tlob.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_ALL) $(LAYER_INC) -c $< -o $@ </dev/null

$(BUILD)/tests/gpu/launch_floor: $(BUILD)/obj/tests/gpu/launch_floor.o $(BUILD)/libtlob.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LAYER_LINK) -o $@

# The CLI suites are scripts; installing them under build/ ties them to the
# tool. They source tests/layer/cli_helpers.sh from the repository root.
$(LAYER_CLI_SUITES): $(BUILD)/tests/layer/%: tests/layer/%.sh tests/layer/cli_helpers.sh $(BUILD)/tlob
	@mkdir -p $(@D)
	cp $< $@
	chmod +x $@

# `tlob bench`, then the PyTorch layer (tests/layer/torch_parity.py: float64
# parity and its timings beside tlob's, read from the JSON) in the same run on
# the same device; without PyTorch with CUDA that part says SKIP.
bench: $(BUILD)/tlob
	@$(BUILD)/tlob bench --json-file $(BUILD)/bench.json
	@if [ -s $(BUILD)/bench.json ] && python3 -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then \
	  PYTHONUNBUFFERED=1 python3 tests/layer/torch_parity.py --tlob $(BUILD)/tlob \
	    --bench-json $(BUILD)/bench.json --out $(BUILD)/bench-torch.json; \
	else echo "SKIP PyTorch layer: no GPU, or no PyTorch with CUDA"; fi

-include $(LAYER_LIB_OBJS:.o=.d) $(LAYER_CLI_OBJS:.o=.d) $(LAYER_TEST_OBJS:.o=.d)
