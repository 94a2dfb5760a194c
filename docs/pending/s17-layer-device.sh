#!/usr/bin/env bash
# The device call that validates docs/pending/s17-layer.mbox (docs/layer-results.md, "Nineteenth pass").
# Setup here first: the series applied in a worktree copied to .dev-layer (git-ignored through
# .git/info/exclude: .dev-*), and the tree after its third commit (fc2 + LayerNorm 2, the fold) in
# .dev-fold; then, on the device, from the repository root with carry [".dev-layer", ".dev-fold"]:
#   DEADLINE=0 bash docs/pending/s17-layer-device.sh   (DEADLINE=345: racecheck until 345 s in)
set -u
out=$OUT
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -2; git log --oneline -1; } >"$out/env.txt" 2>&1
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
dir() { case $1 in main) echo .;; fold) echo .dev-fold;; br) echo .dev-layer;; esac; }
(make -j4 TLOB_JANSSON=no build/tlob build/tests/gpu/launch_floor >"$out/build-main.log" 2>&1; echo "build main $?") &
for t in fold br; do
  (cd $(dir $t) && make -j6 TLOB_JANSSON=no layer build/tests/gpu/test_layer_gpu build/tests/gpu/test_streams build/tests/gpu/launch_floor build/tlob >"$out/build-$t.log" 2>&1; echo "build $t $?") &
done
wait
echo "built at $(el) s"
for t in br fold; do
  echo "== GPU suite $t"; (cd $(dir $t) && timeout 100 build/tests/gpu/test_layer_gpu >"$out/gpu-$t.log" 2>&1; echo "exit $?"); tail -1 "$out/gpu-$t.log"; grep -m10 FAIL "$out/gpu-$t.log" | cut -c1-300
done
grep -E "mlp paths|fold job" "$out/gpu-br.log" | cut -c1-250 | head -30
echo "== streams"; (cd .dev-layer && timeout 30 build/tests/gpu/test_streams 2>&1 | tail -1)
echo "suites done at $(el) s"
for t in main fold br main fold br; do
    i=1; [ -e "$out/floor-$t-1.txt" ] && i=2
    (cd $(dir $t) && timeout 40 build/tests/gpu/launch_floor "" 128 128 40 >"$out/floor-$t-$i.txt" 2>&1; echo "floor $t $i exit $?")
done
echo "floors done at $(el) s"
B=.dev-layer
(cd $B && timeout 90 build/tlob bench --json-file build/bench.json >"$out/bench-br.txt" 2>&1; echo "bench br $?"
 timeout 100 python3 tests/layer/torch_parity.py --tlob build/tlob --bench-json build/bench.json --out build/bench-torch.json >"$out/torch.txt" 2>&1; echo "torch $?"; cp build/bench.json build/bench-torch.json "$out/")
timeout 90 build/tlob bench >"$out/bench-main.txt" 2>&1; echo "bench main $?"
echo "benches done at $(el) s"
(cd $B && TLOB_TEST_QUICK=1 timeout 100 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 build/tests/gpu/test_layer_gpu >"$out/memcheck.log" 2>&1; echo "memcheck exit $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|passed, " "$out/memcheck.log" | tail -3)
left=$(( ${DEADLINE:-350} - $(el) ))
echo "racecheck with $left s at $(el) s"
[ $left -gt 20 ] && (cd $B && TLOB_TEST_QUICK=1 timeout $left compute-sanitizer --tool racecheck --error-exitcode 99 build/tests/gpu/test_layer_gpu >"$out/racecheck.log" 2>&1; echo "racecheck exit $?"; grep -E "RACECHECK SUMMARY|passed, " "$out/racecheck.log" | tail -2; grep -c "^ok" "$out/racecheck.log")
echo "all done at $(el) s"
