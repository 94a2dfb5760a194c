#!/usr/bin/env bats
# -p DIR / --compile-commands FILE: include paths and defines come from the
# build's compile_commands.json, nvcc entries included.

bats_require_minimum_version 1.5.0
load test_helper

setup_file() { gpulint_env_setup_file; }
setup() {
  gpulint_env_setup
  # The header is found only through the database's -I; its macro expands to
  # a banned call, so the finding exists only when the include resolves.
  mkdir -p proj/src proj/third_party/inc proj/build
  cat >proj/third_party/inc/upload_api.h <<'H'
void upload_f32_via_pinned(float *dst, const float *src, int n);
#define UPLOAD(d, h, n) upload_f32_via_pinned(d, h, n)
H
  cat >proj/src/step.cu <<'CU'
#include <cuda_runtime.h>
#include "upload_api.h"
#ifndef FROM_DATABASE
#error "FROM_DATABASE must come from the compilation database"
#endif
__global__ void scale(float *x, int n) { if (threadIdx.x < n) x[threadIdx.x] *= 2.0f; }
void step(float *d, const float *h, int n)
{
    UPLOAD(d, h, n);
    scale<<<1, 32>>>(d, n);
}
CU
  cat >proj/build/compile_commands.json <<JSON
[
  {
    "directory": "$BATS_TEST_TMPDIR/proj/build",
    "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -I../third_party/inc -DFROM_DATABASE=1 -gencode arch=compute_90,code=[sm_90,compute_90] --generate-code=arch=compute_80,code=sm_80 -arch=sm_90 -rdc=true -Xcompiler -Wall,-fPIC -x cu -c ../src/step.cu -o step.o",
    "file": "../src/step.cu"
  }
]
JSON
}

@test "-p DIR: the header found only through the database's -I is analysed (the macro's banned call is found)" {
  cd proj
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json -p build src/step.cu
  assert_output --regexp '"rule": *"no-via-pinned"'
  assert_output --regexp '"line": *9'
  refute_output --partial 'parse-error'
}

@test "--compile-commands FILE does the same" {
  cd proj
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json --compile-commands build/compile_commands.json src/step.cu
  assert_output --regexp '"rule": *"no-via-pinned"'
  refute_output --partial 'parse-error'
}

@test "without the database the include is not found: not checked (exit 1, the header and -p named), and no finding from the macro" {
  cd proj
  run -1 "$GL" --config "$EMPTY_CONFIG" --format json src/step.cu
  assert_output --regexp '"rule": *"not-checked"'
  assert_output --regexp "'upload_api.h' not found: this file was not checked; [^\"]*-p DIR"
  refute_output --regexp '"line": *9,[^}]*no-via-pinned'
}

@test "a missing compilation database is a usage error naming it" {
  cd proj
  run -2 "$GL" --config "$EMPTY_CONFIG" -p nowhere src/step.cu
  assert_output --partial 'nowhere'
}
