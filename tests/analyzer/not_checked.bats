#!/usr/bin/env bats
# Fail closed: a file gpulint could not check is a not-checked error (exit 1),
# or exit 3 when libclang made no translation unit of it; the same file with
# what it needs reports its real findings; the summary line says how many
# files were checked in full.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load gpulint_env

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  FIXTURE=$REPO_ROOT/tests/analyzer/fixtures/not-checked/headers-present.cu
  cp "$FIXTURE" k.cu
}

@test "CUDA headers missing (CUDA_PATH without a toolkit): not-checked errors naming each header and the fix, exit 1" {
  CUDA_PATH=$BATS_TEST_TMPDIR/no-toolkit run --separate-stderr "$GL" --config "$EMPTY_CONFIG" k.cu
  assert_equal "$status" 1
  assert_line --index 0 --regexp "^k\.cu:4:10: error: 'cuda_runtime\.h' not found: this file was not checked; .*include-dirs.*-p DIR.*CUDA_PATH.* \[not-checked\]$"
  [[ $output == *"k.cu:5:10: error: 'cublas_v2.h' not found: this file was not checked"* ]]
  # The follow-on errors of the missing headers are not parse-errors of their own.
  [[ $output != *"[parse-error]"* ]]
  assert_equal "$stderr" "gpulint: 2 errors, 0 warnings in 1 file analysed, 0 fully checked"
}

@test "the same file with the CUDA headers present: its real findings, checked in full" {
  [ -r "${CUDA_PATH:-/usr/local/cuda}/include/cuda_runtime.h" ] || skip "no CUDA toolkit here"
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" k.cu
  assert_equal "$status" 1
  assert_equal "$(printf '%s\n' "$output" | grep '^k\.cu:' | sed 's/: error: .*\[/ [/')" \
'k.cu:16:22 [mapped-pinned-only]
k.cu:20:5 [unchecked-status]'
  assert_equal "$stderr" "gpulint: 2 errors, 0 warnings in 1 file analysed, 1 fully checked"
}

@test "a CUDA file that includes nothing, without a toolkit: not-checked names CUDA_PATH's directory" {
  printf '__global__ void only_kernel(float *x) { x[0] = 1.0f; }\n' >alone.cu
  CUDA_PATH=$BATS_TEST_TMPDIR/no-toolkit run --separate-stderr "$GL" --config "$EMPTY_CONFIG" alone.cu
  assert_equal "$status" 1
  assert_line --index 0 "alone.cu:1:1: error: no CUDA toolkit at $BATS_TEST_TMPDIR/no-toolkit (no include/cuda_runtime.h there): this file was not checked; set CUDA_PATH to the toolkit's root (default /usr/local/cuda) [not-checked]"
}

@test "the config switch downgrades not-checked to a warning: exit 0, and the summary still says what was not checked" {
  printf '#include "tlob_generated_tables.h"\nint f(void) { return 0; }\n' >gen.c
  printf 'rules:\n  not-checked:\n    severity: warning\n' >lenient.yaml
  run --separate-stderr "$GL" --config lenient.yaml gen.c
  assert_equal "$status" 0
  assert_line --index 0 --regexp "^gen\.c:1:10: warning: 'tlob_generated_tables\.h' not found: .*\[not-checked\]$"
  assert_equal "$stderr" "gpulint: 0 errors, 1 warning in 1 file analysed, 0 fully checked"
}

@test "include-dirs fixes it: the header found, the file checked in full" {
  mkdir -p gen
  printf '#include "tlob_generated_tables.h"\nvoid upload_f32_via_pinned(float *d);\n' >use.c
  printf '#define TLOB_TABLE_SIZE 4\n' >gen/tlob_generated_tables.h
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" use.c
  assert_equal "$status" 1
  [[ $output == *"[not-checked]"* ]]
  printf 'include-dirs: [gen]\n' >with-gen.yaml
  run --separate-stderr "$GL" --config with-gen.yaml use.c
  assert_equal "$status" 1
  assert_line --index 0 --partial "use.c:2:6: error:"
  assert_line --index 0 --partial "[no-via-pinned]"
  [[ $output != *"[not-checked]"* ]]
  assert_equal "$stderr" "gpulint: 1 error, 0 warnings in 1 file analysed, 1 fully checked"
}

@test "a file libclang can make no translation unit of (bad flags from -p): not-checked, exit 3, the other files still reported" {
  printf 'int main(void) { return 0; }\n' >a.c
  printf '#include <stddef.h>\nvoid upload_f32_via_pinned(float *d, const float *h, size_t n);\n' >b.c
  # b.c listed with flags of its own: one the database does not list would
  # borrow a.c's (docs/gpulint.md).
  printf '[{"directory": "%s", "file": "a.c", "arguments": ["cc", "-std=c99x", "-c", "a.c"]},\n {"directory": "%s", "file": "b.c", "arguments": ["cc", "-c", "b.c"]}]\n' \
    "$PWD" "$PWD" >compile_commands.json
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" -p . a.c b.c
  assert_equal "$status" 3
  assert_line --index 0 --regexp '^a\.c:1:1: error: libclang could not build a translation unit \(.*\): this file was not checked; give gpulint the build.s flags: -p DIR.*\[not-checked\]$'
  [[ $output == *"b.c:2:6: error:"*"[no-via-pinned]"* ]]
  assert_equal "$stderr" "gpulint: 2 errors, 0 warnings in 2 files analysed, 1 fully checked"
  # Accepted in the config, it no longer fails the run.
  printf 'rules:\n  not-checked:\n    severity: warning\n' >lenient.yaml
  run --separate-stderr "$GL" --config lenient.yaml -p . a.c
  assert_equal "$status" 0
}

@test "a clean run prints nothing; a run with a file not checked says so even when nothing is reported" {
  printf 'int f(void) { return 0; }\n' >clean.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" clean.c
  assert_equal "$status" 0
  assert_equal "$output" ""
  assert_equal "$stderr" ""
  printf '// gpulint: allow-file(not-checked) -- generated elsewhere\n#include "tlob_generated_tables.h"\n' >gen.c
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" clean.c gen.c
  assert_equal "$status" 0
  assert_equal "$output" ""
  assert_equal "$stderr" "gpulint: 0 errors, 0 warnings in 2 files analysed, 1 fully checked"
}

@test "a header missing behind what the command line includes (-include pre.h) is reported at the file's first line, not at a line it does not have" {
  printf '#include "missing_config.h"\n' >pre.h
  printf 'int one(void) { return 1; }\nint two(void) { return 2; }\n' >a.c
  printf '[{"directory": "%s", "file": "a.c", "arguments": ["cc", "-include", "pre.h", "-c", "a.c"]}]\n' \
    "$PWD" >compile_commands.json
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" -p . a.c
  assert_equal "$status" 1
  # Outside git, pre.h is named from the current directory, as a.c is.
  assert_line --index 0 --regexp "^a\.c:1:1: error: 'missing_config\.h' not found \(in pre\.h:1\): this file was not checked"
}

@test "a header its only includer takes in a branch the build leaves out is parsed with that includer's database flags: its includes found, the header checked" {
  mkdir -p inc/lib src
  printf 'typedef unsigned long ring_bytes_t;\n' >inc/lib/defs.h
  # ring.h finds lib/defs.h only through the build's -Iinc.
  printf '#include <cuda_runtime.h>\n#include "lib/defs.h"\nstatic cudaError_t ring_upload(float *d, const float *h, ring_bytes_t n)\n{\n    return cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);\n}\n' >src/ring.h
  printf '#ifdef RING_USE_NCCL\n#include "ring.h"\nint ring_nccl(float *d, const float *h) { return ring_upload(d, h, 4) == cudaSuccess; }\n#endif\nint ring_none(void) { return 0; }\n' >src/a.cu
  printf '[{"directory": "%s", "file": "src/a.cu", "arguments": ["nvcc", "-Iinc", "-c", "src/a.cu"]}]\n' \
    "$PWD" >compile_commands.json
  run --separate-stderr "$GL" --config "$EMPTY_CONFIG" -p . src
  assert_equal "$status" 1
  # Without the includer's flags: "'lib/defs.h' not found", the header not checked.
  [[ $output != *"[not-checked]"* ]]
  assert_line --index 0 --regexp "^src/ring\.h:5:12: error: cudaMemcpy with kind cudaMemcpyHostToDevice: .*\[mapped-pinned-only\]$"
  assert_equal "$stderr" "gpulint: 1 error, 0 warnings in 2 files analysed, 2 fully checked"
}
