#!/usr/bin/env bash
# One device session: build the layer and its tests, run the GPU suite, the
# GPU suite under compute-sanitizer memcheck, the CPU suites, `tlob bench`
# (text and JSON) and the PyTorch parity/speed script. Logs go to $OUT (or
# build/device-logs). Run from the repository root on a machine with a GPU.
set -u
out=${OUT:-build/device-logs}
mkdir -p "$out"
jobs=$(nproc)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -2; } >"$out/env.txt" 2>&1
make -j"$jobs" layer build/tests/gpu/test_layer_gpu build/tests/layer/test_ref \
  build/tests/layer/test_npy build/tests/layer/test_layout_api build/tests/layer/test_cli \
  >/tmp/tlob-build.log 2>&1 || { tail -30 /tmp/tlob-build.log; exit 1; }
echo "== GPU suite"; build/tests/gpu/test_layer_gpu 2>&1 | tee "$out/test_gpu.log" | grep -v '     ' | tail -40
echo "== CPU suites on the device"
tests/harness build/tests/layer/test_ref build/tests/layer/test_npy build/tests/layer/test_layout_api build/tests/layer/test_cli >"$out/test_cpu.log" 2>&1; tail -1 "$out/test_cpu.log"
echo "== compute-sanitizer memcheck"
timeout 280 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 build/tests/gpu/test_layer_gpu >"$out/memcheck.log" 2>&1
echo "memcheck exit $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|passed, " "$out/memcheck.log" | tail -3
echo "== bench"
timeout 100 build/tlob bench 2>&1 | tee "$out/bench.txt"
timeout 100 build/tlob bench --json >"$out/bench.json" 2>/tmp/tlob-bench-json.err || cat /tmp/tlob-bench-json.err
echo "== torch parity"
PYTHONUNBUFFERED=1 timeout 150 python3 tests/layer/torch_parity.py --bench-json "$out/bench.json" --out "$out/torch.json" 2>&1 | tee "$out/torch.txt" | tail -40
