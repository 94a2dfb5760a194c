#!/usr/bin/env bash
# `tlob` command line: help, usage errors (exit 2, stderr), file errors
# (exit 1, the file named), `tlob init` output. Runs without a GPU; where a
# command needs the device and there is none, it must say so and exit 1.
set -u
. tests/layer/cli_helpers.sh

expect help 0 out '^usage: tlob layer' -- "$tlob" --help
expect help-layer 0 out '^usage: tlob layer' -- "$tlob" layer --help
expect bench-help 0 out '^usage: tlob bench' -- "$tlob" bench --help
expect no-command 2 err 'a command is required' -- "$tlob"
expect unknown-command 2 err "unknown command 'frob'" -- "$tlob" frob
expect unknown-option 2 err "unknown option '--frob'" -- "$tlob" layer --frob
expect missing-value 2 err 'needs a value' -- "$tlob" layer --dim
expect bad-dim 2 err "bad --dim 'x'" -- "$tlob" layer --dim x --out "$tmp/o"
expect bad-math 2 err "bad --math 'fp16'" -- "$tlob" layer --dim 4 --math fp16 --out "$tmp/o"
expect no-dim 2 err '--dim is required' -- "$tlob" init --out "$tmp/p"
expect no-params 2 err '--params is required' -- "$tlob" layer --dim 4 --x x.npy --out "$tmp/o"
expect no-x 2 err '--x is required' -- "$tlob" layer --dim 4 --params "$tmp/p" --out "$tmp/o"
expect bench-bad-iters 2 err "bad --iters" -- "$tlob" bench --iters 0

expect init 0 out '' -- "$tlob" init --dim 4 --heads 2 --out-dim 3 --seed 5 --out "$tmp/p"
n=$(ls "$tmp/p" | wc -l)
if [ "$n" -eq 20 ] && [ -f "$tmp/p/attention.in_proj_weight.npy" ]; then passed=$((passed + 1));
else failed=$((failed + 1)); echo "FAIL init wrote $n files"; fi
within "$tlob" init --dim 4 --heads 2 --out-dim 3 --seed 5 --out "$tmp/p2" && [ "$rc" -eq 0 ] && cmp -s "$tmp/p/w0.weight.npy" "$tmp/p2/w0.weight.npy"
if [ $? -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL init is not deterministic"; fi

npy "$tmp/x.npy" '<f4' '(2, 3, 4)' 96
npy "$tmp/x8.npy" '<f8' '(2, 3, 4)' 192
npy "$tmp/x2d.npy" '<f4' '(6, 4)' 96
npy "$tmp/xd5.npy" '<f4' '(2, 3, 5)' 120
npy "$tmp/dy_bad.npy" '<f4' '(2, 3, 4)' 96
printf 'not numpy' >"$tmp/junk.npy"
expect x-missing 1 err "$tmp/nope.npy: cannot open" -- "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/p" --x "$tmp/nope.npy" --out "$tmp/o"
expect x-dtype 1 err "$tmp/x8.npy: dtype '<f8' is not" -- "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/p" --x "$tmp/x8.npy" --out "$tmp/o"
expect x-junk 1 err "$tmp/junk.npy: not a .npy file" -- "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/p" --x "$tmp/junk.npy" --out "$tmp/o"
expect x-2d 1 err "$tmp/x2d.npy: shape \(6, 4\), expected \(B, T, 4\)" -- "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/p" --x "$tmp/x2d.npy" --out "$tmp/o"
expect x-width 1 err "$tmp/xd5.npy: shape \(2, 3, 5\)" -- "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/p" --x "$tmp/xd5.npy" --out "$tmp/o"
expect dy-shape 1 err "$tmp/dy_bad.npy: shape \(2, 3, 4\), expected \(2, 3, 3\)" -- "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/p" --x "$tmp/x.npy" --dy "$tmp/dy_bad.npy" --out "$tmp/o"
expect params-shape 1 err "$tmp/p/qkv.q.weight.npy: shape \(8, 4\), expected \(4, 4\)" -- "$tlob" layer --dim 4 --heads 1 --out-dim 3 --params "$tmp/p" --x "$tmp/x.npy" --out "$tmp/o"
rm "$tmp/p2/mlp.fc.bias.npy"
expect params-missing 1 err "$tmp/p2/mlp.fc.bias.npy: cannot open" -- "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/p2" --x "$tmp/x.npy" --out "$tmp/o"

# safetensors parameters: written by `tlob init`, read by `tlob layer --params FILE`
# (a build without jansson must say so instead: docs/dependencies.md)
within "$tlob" init --dim 4 --heads 2 --out-dim 3 --seed 5 --out "$tmp/p.safetensors"
if [ $rc -ne 0 ] && grep -q 'TLOB_ERR_UNSUPPORTED' "$tmp/err" && grep -q 'without jansson' "$tmp/err"; then
  safetensors=no; passed=$((passed + 1)); echo "note: this tlob has no safetensors support (built without jansson); its checks skipped"
else
  safetensors=yes
  if [ -s "$tmp/p.safetensors" ] && cmp -s <(tail -c 4 "$tmp/p.safetensors") <(tail -c 4 "$tmp/p/w0.bias.npy"); then passed=$((passed + 1));
  else failed=$((failed + 1)); echo "FAIL init .safetensors missing or holding other values than the .npy files"; cat "$tmp/err"; fi
  expect params-st-shape 1 err "$tmp/p.safetensors: tensor 'qkv.q.weight': shape \(8, 4\), expected \(4, 4\)" -- "$tlob" layer --dim 4 --heads 1 --out-dim 3 --params "$tmp/p.safetensors" --x "$tmp/x.npy" --out "$tmp/o"
  printf 'junk' >"$tmp/junk.safetensors"
  expect params-st-junk 1 err "$tmp/junk.safetensors: not a safetensors file" -- "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/junk.safetensors" --x "$tmp/x.npy" --out "$tmp/o"
fi
expect params-st-missing 1 err "$tmp/none.safetensors: cannot open" -- "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/none.safetensors" --x "$tmp/x.npy" --out "$tmp/o"

# Valid files: runs on a GPU; without one, says so and exits 1.
within "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/p" --x "$tmp/x.npy" --out "$tmp/o"
if [ $rc -eq 0 ] && [ -f "$tmp/o/y.npy" ] && [ -f "$tmp/o/att.npy" ]; then passed=$((passed + 1));
elif [ $rc -eq 1 ] && grep -q 'TLOB_ERR_NO_DEVICE' "$tmp/err"; then passed=$((passed + 1)); echo "note: no CUDA device; 'tlob layer' reported it";
else failed=$((failed + 1)); echo "FAIL valid layer run: exit $rc"; cat "$tmp/err"; fi

rc=skip
[ "$safetensors" = yes ] && within "$tlob" layer --dim 4 --heads 2 --out-dim 3 --params "$tmp/p.safetensors" --x "$tmp/x.npy" --out "$tmp/o2"
if [ "$rc" = skip ]; then :
elif [ $rc -eq 0 ] && cmp -s "$tmp/o/y.npy" "$tmp/o2/y.npy"; then passed=$((passed + 1));
elif [ $rc -eq 1 ] && grep -q 'TLOB_ERR_NO_DEVICE' "$tmp/err"; then passed=$((passed + 1));
else failed=$((failed + 1)); echo "FAIL layer run from safetensors: exit $rc (or y differs from the .npy run)"; cat "$tmp/err"; fi

summary
