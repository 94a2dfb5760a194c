# Layer build fragment (included by the top-level Makefile).
# Builds $(BUILD)/libtlob.a and $(BUILD)/tlob with nvcc + cc only, the CPU
# test suites ($(BUILD)/tests/layer/) and the GPU suite ($(BUILD)/tests/gpu/).

LAYER_INC := -I$(CUDA_PATH)/include -Ilayer
LAYER_LIB_C := layer/tlob.c layer/compute.c layer/linear.c layer/attention.c layer/layout.c layer/npy.c layer/ref.c layer/params_io.c layer/parity.c
LAYER_LIB_CU := layer/kernels.cu
LAYER_CLI_C := layer/cli.c layer/bench.c

LAYER_LIB_OBJS := $(LAYER_LIB_C:%.c=$(BUILD)/obj/%.o) $(LAYER_LIB_CU:%.cu=$(BUILD)/obj/%.o)
LAYER_CLI_OBJS := $(LAYER_CLI_C:%.c=$(BUILD)/obj/%.o)
# kernels.o is C++ (nvcc): C links need the C++ runtime.
LAYER_LINK := $(BUILD)/libtlob.a $(CUDA_LIBS) -lstdc++ -lm

LAYER_CPU_TESTS := $(BUILD)/tests/layer/test_ref $(BUILD)/tests/layer/test_npy \
                   $(BUILD)/tests/layer/test_layout_api
LAYER_GPU_TESTS := $(BUILD)/tests/gpu/test_layer_gpu
LAYER_TEST_OBJS := $(LAYER_CPU_TESTS:$(BUILD)/tests/%=$(BUILD)/obj/tests/%.o) \
                   $(LAYER_GPU_TESTS:$(BUILD)/tests/%=$(BUILD)/obj/tests/%.o)

TEST_BINS += $(LAYER_CPU_TESTS) $(BUILD)/tests/layer/test_cli $(LAYER_GPU_TESTS)
LAYER_SUITES += $(LAYER_CPU_TESTS) $(BUILD)/tests/layer/test_cli
GPU_SUITES += $(LAYER_GPU_TESTS)

# Test objects are intermediates of a chained rule: keep them, or make deletes
# them after each link and rebuilds them next time.
.SECONDARY: $(LAYER_TEST_OBJS)

.PHONY: layer
layer: $(BUILD)/libtlob.a $(BUILD)/tlob

$(BUILD)/obj/layer/%.o: layer/%.c
	@mkdir -p $(@D)
	$(CC) $(WARN_C) $(CFLAGS) $(DEPFLAGS) $(LAYER_INC) -c $< -o $@

# nvcc fails ("Failed to preprocess host compiler properties") when started
# with standard input closed, as CI and cron may start us: give it /dev/null.
$(BUILD)/obj/layer/%.o: layer/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_ALL) $(DEPFLAGS) $(LAYER_INC) -c $< -o $@ </dev/null

$(BUILD)/libtlob.a: $(LAYER_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

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
	$(CC) $(CFLAGS) $< $(LAYER_LINK) -o $@

# The CLI suite is a script; installing it under build/ ties it to the tool.
$(BUILD)/tests/layer/test_cli: tests/layer/test_cli.sh $(BUILD)/tlob
	@mkdir -p $(@D)
	cp $< $@
	chmod +x $@

bench: $(BUILD)/tlob
	@$(BUILD)/tlob bench

-include $(LAYER_LIB_OBJS:.o=.d) $(LAYER_CLI_OBJS:.o=.d) $(LAYER_TEST_OBJS:.o=.d)
