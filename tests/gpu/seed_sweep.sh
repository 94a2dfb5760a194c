#!/usr/bin/env bash
# Run the GPU suite over many seeds and report, per shape, the worst TF32
# error as a fraction of its tolerance (and which tensor): how close the layer
# comes to its bounds across fresh inputs, not on one draw. Device only.
# Usage: tests/gpu/seed_sweep.sh FIRST_SEED COUNT [EXTRA_SEED...]
set -u
first=${1:?first seed} count=${2:?count}; shift 2
out=${OUT:-build/device-logs}
mkdir -p "$out"
: >"$out/tf32_worst.txt"
failing=0
for seed in "$@" $(seq "$first" $((first + count - 1))); do
  if ! TLOB_TEST_SEED=$seed build/tests/gpu/test_layer_gpu >"$out/seed.log" 2>&1; then
    failing=$((failing + 1))
    echo "seed $seed:"; grep -E '^FAIL' "$out/seed.log" | head -3
  fi
  # "ok   B=.. T=.. D=.. nh=.. Dout=.. tf32: ... worst grad E (tensor), tolerance TOL"
  sed -nE 's/^(ok  |FAIL) (B=.*) tf32: .*worst grad ([0-9.e+-]+) \(([^)]*)\), tolerance ([0-9.e+-]+).*/\3 \4 \5 \2/p' \
    "$out/seed.log" >>"$out/tf32_worst.txt"
done
echo "runs: $(( $# + count )), failing: $failing"
awk '{ r = $1 / $3; shape = $4; for (i = 5; i <= NF; i++) shape = shape " " $i
       if (r > worst[shape]) { worst[shape] = r; tensor[shape] = $2 } }
     END { for (s in worst) printf "worst/tolerance %.3f %-18s %s\n", worst[s], tensor[s], s }' \
  "$out/tf32_worst.txt" | sort -k2 -n
[ "$failing" -eq 0 ]
