#!/usr/bin/env bash
# Hostile input to `tlob` (issue 17): every case gets the exit code that says
# what happened (2 usage, 1 file or runtime) and a message naming the argument
# or file and the cause; nothing hangs (each command runs under a time limit,
# tests/layer/cli_helpers.sh) and a failed write leaves the old file as it was.
# Runs without a GPU: everything here is decided before the device is touched.
set -u
. tests/layer/cli_helpers.sh

# --- Options: the message names the word that is wrong ---------------------
expect short-in-cluster 2 err "unknown option '-x'" -- "$tlob" init --dim 4 -xy --out "$tmp/p"
expect short-alone 2 err "unknown option '-q'" -- "$tlob" layer -q --dim 4
expect long-with-value 2 err "unknown option '--frob'" -- "$tlob" init --dim 4 --frob=3 --out "$tmp/p"
expect ambiguous 2 err "ambiguous option '--d' \(--dim, --dy\)" -- "$tlob" layer --d 4 --out "$tmp/p"
expect help-with-value 2 err "option '--help' takes no value" -- "$tlob" init --help=3
expect empty-out 2 err "option '--out' needs a value \(it is empty\)" -- "$tlob" init --dim 4 --out ''
expect empty-x 2 err "option '--x' needs a value \(it is empty\)" -- "$tlob" layer --dim 4 --x= --params p --out "$tmp/p"
expect needs-value 2 err "option '--dim' needs a value" -- "$tlob" init --out "$tmp/p" --dim
# `tlob bench` parses its own options the same way (before any device work).
expect bench-cluster 2 err "tlob bench: unknown option '-x'" -- "$tlob" bench -xy
expect bench-flag-value 2 err "tlob bench: option '--json' takes no value" -- "$tlob" bench --json=3
expect bench-needs-value 2 err "tlob bench: option '--iters' needs a value" -- "$tlob" bench --iters
[ ! -s "$tmp/out" ] && pass || fail "usage errors write nothing on stdout"

# --- Sizes: bounded up front, naming the argument and the limit -------------
expect dim-limit 2 err "bad --dim '65536': more than the limit of 4096" -- "$tlob" init --dim 65536 --out "$tmp/p"
[ ! -e "$tmp/p" ] && pass || fail "dim-limit: created $tmp/p"
expect out-dim-limit 2 err "bad --out-dim '4097': more than the limit of 4096" -- "$tlob" init --dim 4 --out-dim 4097 --out "$tmp/p"
expect width-product 2 err "layer width E = --dim \* --heads = 4 \* 20000 = 80000 is more than the limit of 4096" -- "$tlob" init --heads 20000 --dim 4 --out "$tmp/p"
grep -q 'out of range' "$tmp/err" && fail "width-product: still calls a value out of range" || pass
expect width-product-big 2 err "E = --dim \* --heads = 4096 \* 4096 = 16777216" -- "$tlob" init --heads 4096 --dim 4096 --out "$tmp/p"
expect heads-huge 2 err "E = --dim \* --heads = 4 \* 99999999999 = 399999999996 is more than the limit of 4096" -- "$tlob" init --heads 99999999999 --dim 4 --out "$tmp/p"
expect dim-zero 2 err "bad --dim '0': must be at least 1" -- "$tlob" init --dim 0 --out "$tmp/p"
expect dim-negative 2 err "bad --dim '-3': must be at least 1" -- "$tlob" init --dim -3 --out "$tmp/p"
expect dim-suffix 2 err "bad --dim '4x': not a whole number" -- "$tlob" init --dim 4x --out "$tmp/p"
expect heads-empty 2 err "bad --heads '': not a whole number" -- "$tlob" init --dim 4 --heads= --out "$tmp/p"
expect heads-overflow 2 err "bad --heads '99999999999999999999': more than the limit of 4096" -- "$tlob" init --heads 99999999999999999999 --dim 4 --out "$tmp/p"
expect dim-space 2 err "bad --dim ' 4': not a whole number" -- "$tlob" init --dim ' 4' --out "$tmp/p"

# --- Seeds: 0 to 2^64-1, nothing else ----------------------------------------
expect seed-negative 2 err "bad --seed '-1': not a whole number from 0 to 18446744073709551615" -- "$tlob" init --dim 4 --seed -1 --out "$tmp/p"
expect seed-over 2 err "bad --seed '18446744073709551616': not a whole number from 0" -- "$tlob" init --dim 4 --seed 18446744073709551616 --out "$tmp/p"
expect seed-text 2 err "bad --seed 'abc'" -- "$tlob" init --dim 4 --seed abc --out "$tmp/p"
expect seed-plus 2 err "bad --seed '\+5'" -- "$tlob" init --dim 4 --seed +5 --out "$tmp/p"
expect seed-max 0 err '' -- "$tlob" init --dim 2 --seed 18446744073709551615 --out "$tmp/seedmax"

# --- Inputs that are not regular files: refused at once, saying what they are --
"$tlob" init --dim 4 --out "$tmp/p4" >/dev/null 2>&1 || fail "init of the test parameters"
npy "$tmp/x.npy" '<f4' '(2, 3, 4)' 96
mkdir "$tmp/xdir"
mkfifo "$tmp/fifo"
layer4=("$tlob" layer --dim 4 --out "$tmp/o")
expect x-directory 1 err "$tmp/xdir: is a directory, not a regular file" -- "${layer4[@]}" --params "$tmp/p4" --x "$tmp/xdir"
expect x-fifo 1 err "$tmp/fifo: is a FIFO, not a regular file" -- "${layer4[@]}" --params "$tmp/p4" --x "$tmp/fifo"
expect x-chardev 1 err "/dev/zero: is a character device, not a regular file" -- "${layer4[@]}" --params "$tmp/p4" --x /dev/zero
expect dy-fifo 1 err "$tmp/fifo: is a FIFO, not a regular file" -- "${layer4[@]}" --params "$tmp/p4" --x "$tmp/x.npy" --dy "$tmp/fifo"
expect params-fifo 1 err "$tmp/fifo: is a FIFO, not a regular file" -- "${layer4[@]}" --params "$tmp/fifo" --x "$tmp/x.npy"
expect params-chardev 1 err "/dev/null: is a character device, not a regular file" -- "${layer4[@]}" --params /dev/null --x "$tmp/x.npy"
rm "$tmp/p4/mlp.fc.weight.npy" && mkfifo "$tmp/p4/mlp.fc.weight.npy"
expect param-file-fifo 1 err "$tmp/p4/mlp.fc.weight.npy: is a FIFO, not a regular file" -- "${layer4[@]}" --params "$tmp/p4" --x "$tmp/x.npy"
rm "$tmp/p4/mlp.fc.weight.npy"
[ ! -e "$tmp/o" ] && pass || fail "bad inputs created the output directory $tmp/o"

# --- .npy headers: each refused naming the file -------------------------------
npy_raw() { # FILE HEADER NBYTES
  local len=$(( ${#2} + 1 ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))";
    printf '%s\n' "$2"; head -c "$3" /dev/zero; } >"$1"
}
"$tlob" init --dim 4 --out "$tmp/p4" >/dev/null 2>&1
npy_raw "$tmp/huge.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (10000000000, 1000, 4), }" 96
expect x-shape-vs-size 1 err "$tmp/huge.npy: the header's shape needs 40000000000000 floats, the file holds 24" -- "${layer4[@]}" --params "$tmp/p4" --x "$tmp/huge.npy"
npy_raw "$tmp/e40.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (10000000000000000000000000000000000000000,), }" 96
expect x-shape-10e40 1 err "$tmp/e40.npy: .npy header 'shape' has a huge dimension" -- "${layer4[@]}" --params "$tmp/p4" --x "$tmp/e40.npy"
npy_raw "$tmp/fortran.npy" "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3, 4), }" 96
expect x-fortran 1 err "$tmp/fortran.npy: array is in Fortran order" -- "${layer4[@]}" --params "$tmp/p4" --x "$tmp/fortran.npy"
npy_raw "$tmp/falsehood.npy" "{'descr': '<f4', 'fortran_order': Falsehood, 'shape': (2, 3, 4), }" 96
expect x-falsehood 1 err "$tmp/falsehood.npy: .npy header 'fortran_order' is neither True nor False" -- "${layer4[@]}" --params "$tmp/p4" --x "$tmp/falsehood.npy"
npy_raw "$tmp/extra.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), 'extra': 1, }" 96
expect x-extra-key 1 err "$tmp/extra.npy: .npy header has the unknown key 'extra'" -- "${layer4[@]}" --params "$tmp/p4" --x "$tmp/extra.npy"
# A parameter file of the wrong shape is refused from its header: a sparse
# 2 GiB body is never allocated (under a 1.5 GiB address-space limit; tlob
# itself maps about 0.6 GiB of libraries). AddressSanitizer reserves far more
# address space than that: under it the bound is its own allocation limit.
if [ -n "${ASAN_OPTIONS:-}" ]; then
  limited=(env "ASAN_OPTIONS=$ASAN_OPTIONS:max_allocation_size_mb=1024:allocator_may_return_null=1")
else
  limited=(bash -c 'ulimit -v 1572864 && exec "$@"' _)
fi
npy_raw "$tmp/p4/mlp.fc.weight.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (536870912,), }" 0
truncate -s $(( $(stat -c %s "$tmp/p4/mlp.fc.weight.npy") + (1 << 31) )) "$tmp/p4/mlp.fc.weight.npy"
expect param-shape-before-alloc 1 err "$tmp/p4/mlp.fc.weight.npy: shape \(536870912,\), expected \(16, 4\)" -- \
  "${limited[@]}" "$tlob" layer --dim 4 --out "$tmp/o" --params "$tmp/p4" --x "$tmp/x.npy"
# Outputs are bounded before they are allocated: x of T = 40000 is 640 KB
# but its attention map [B, NH, T, T] would be 6.4 GB.
npy "$tmp/longT.npy" '<f4' '(1, 40000, 4)' 640000
"$tlob" init --dim 4 --out "$tmp/p4b" >/dev/null 2>&1
expect output-bound 1 err "$tmp/longT.npy: shape \(1, 40000, 4\) with --heads 1 makes att \[B, NH, T, T\] of 1600000000 floats, more than the limit of 1073741824" -- \
  "$tlob" layer --dim 4 --out "$tmp/o" --params "$tmp/p4b" --x "$tmp/longT.npy"

# --- The output directory is checked before the GPU work ----------------------
expect out-missing-parent 1 err "/nonexistent-tlob-dir/o: cannot create the output directory: No such file or directory" -- \
  "$tlob" layer --dim 4 --params "$tmp/p4b" --x "$tmp/x.npy" --out /nonexistent-tlob-dir/o
grep -q 'TLOB_ERR_NO_DEVICE\|CUDA' "$tmp/err" && fail "out-missing-parent: reached the device" || pass
: >"$tmp/plainfile"
expect out-is-file 1 err "$tmp/plainfile: the output directory is a regular file" -- \
  "$tlob" layer --dim 4 --params "$tmp/p4b" --x "$tmp/x.npy" --out "$tmp/plainfile"
mkdir -p "$tmp/o2" && : >"$tmp/o2/grad"
npy "$tmp/dy.npy" '<f4' '(2, 3, 4)' 96
expect out-grad-is-file 1 err "$tmp/o2/grad: the output directory is a regular file" -- \
  "$tlob" layer --dim 4 --params "$tmp/p4b" --x "$tmp/x.npy" --dy "$tmp/dy.npy" --out "$tmp/o2"
expect init-out-is-file 1 err "$tmp/plainfile: the output directory is a regular file" -- "$tlob" init --dim 4 --out "$tmp/plainfile"
mkdir "$tmp/o3" && mkdir "$tmp/o3/y.npy"
expect out-target-is-dir 1 err "$tmp/o3/y.npy: is a directory; not replaced" -- \
  "$tlob" layer --dim 4 --params "$tmp/p4b" --x "$tmp/x.npy" --out "$tmp/o3"
mkdir -p "$tmp/o4/grad/w0.bias.npy"
expect out-grad-target-is-dir 1 err "$tmp/o4/grad/w0.bias.npy: is a directory; not replaced" -- \
  "$tlob" layer --dim 4 --params "$tmp/p4b" --x "$tmp/x.npy" --dy "$tmp/dy.npy" --out "$tmp/o4"
for f in "$tmp"/o*/.tlob-probe-*; do [ -e "$f" ] && fail "probe file left: $f"; done

# --- Writes that fail leave the old files byte for byte ----------------------
# A file-size limit (SIGXFSZ ignored, so write() fails with EFBIG) stands in
# for a full disk; it works for root too, unlike a read-only directory.
"$tlob" init --dim 8 --seed 1 --out "$tmp/keep" >/dev/null 2>&1
cp -a "$tmp/keep" "$tmp/keep.orig"
expect init-full-disk 1 err "$tmp/keep/[a-z_.0-9]+\.npy: write failed: File too large" -- \
  bash -c 'trap "" XFSZ; ulimit -f 1 && exec "$@"' _ "$tlob" init --dim 8 --seed 2 --out "$tmp/keep"
diff -r "$tmp/keep" "$tmp/keep.orig" >/dev/null && pass || fail "init-full-disk: the old parameter files changed"
ls -A "$tmp/keep" | grep -q '^\.' && fail "init-full-disk: temporary files left: $(ls -A "$tmp/keep" | grep '^\.')" || pass
if "$tlob" init --dim 8 --seed 1 --out "$tmp/keep.safetensors" >/dev/null 2>"$tmp/err"; then
  cp "$tmp/keep.safetensors" "$tmp/keep.safetensors.orig"
  expect init-st-full-disk 1 err "$tmp/keep.safetensors: write failed: File too large" -- \
    bash -c 'trap "" XFSZ; ulimit -f 1 && exec "$@"' _ "$tlob" init --dim 8 --seed 2 --out "$tmp/keep.safetensors"
  cmp -s "$tmp/keep.safetensors" "$tmp/keep.safetensors.orig" && pass || fail "init-st-full-disk: the old file changed"
  [ "$(ls -A "$tmp" | grep -c '^\.keep')" -eq 0 ] && pass || fail "init-st-full-disk: temporary file left"
  mkfifo "$tmp/w.safetensors"
  expect init-st-fifo 1 err "$tmp/w.safetensors: is a FIFO; not replaced" -- "$tlob" init --dim 4 --out "$tmp/w.safetensors"
elif grep -q 'without jansson' "$tmp/err"; then
  skip "safetensors writes: this tlob was built without jansson"
else
  fail "init of a safetensors file"; cat "$tmp/err"
fi
expect init-ok-after 0 err '' -- "$tlob" init --dim 8 --seed 2 --out "$tmp/keep"
cmp -s "$tmp/keep/w0.weight.npy" "$tmp/keep.orig/w0.weight.npy" && fail "init-ok-after: seed 2 wrote seed 1's values" || pass
# A read-only directory of writable files: root writes anyway, so as root the
# case runs as nobody (setpriv) where nobody can reach tlob.
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod o+x "$tmp"
  "${as_user[@]}" test -x "$tlob" 2>/dev/null || as_user=(none)
fi
if [ "${as_user[0]:-}" != none ]; then
  cp -a "$tmp/keep.orig" "$tmp/ro"
  [ "$(id -u)" -eq 0 ] && chown -R 65534 "$tmp/ro"
  chmod a-w "$tmp/ro"
  expect init-read-only 1 err "$tmp/ro: cannot create files in the output directory: Permission denied" -- \
    "${as_user[@]}" "$tlob" init --dim 8 --seed 3 --out "$tmp/ro"
  diff -r "$tmp/ro" "$tmp/keep.orig" >/dev/null && pass || fail "init-read-only: the old files changed"
  chmod u+w "$tmp/ro"
else
  skip "init into a read-only directory: root here, and user nobody cannot run $tlob"
fi

summary
