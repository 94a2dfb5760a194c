#!/usr/bin/env bats
# The whole staged snapshot is analysed, not only the files in the commit: a
# kernel signature changed in one file and left stale in an untouched file is
# caught (kernel-signature, a cross-file rule).

load test_helper

setup() {
  common_setup
  mkdir -p kernels
  printf '%s\n' \
    '#ifndef SCALE_H' \
    '#define SCALE_H' \
    '__global__ void scale(float *x);' \
    '#endif' >kernels/scale.h
  printf '%s\n' \
    '#include "scale.h"' \
    '' \
    '__global__ void scale(float *x)' \
    '{' \
    '    x[threadIdx.x] *= 2.0f;' \
    '}' >kernels/scale.cu
  git add kernels
  commit_unchecked -m "scale kernel"
}

@test "a kernel signature changed in the .cu only: the untouched header is stale, blocked" {
  printf '%s\n' \
    '#include "scale.h"' \
    '' \
    '__global__ void scale(float *x, int n)' \
    '{' \
    '    if ((int)threadIdx.x < n)' \
    '        x[threadIdx.x] *= 2.0f;' \
    '}' >kernels/scale.cu
  git add kernels/scale.cu
  run git diff --cached --name-only
  assert_output kernels/scale.cu
  expect_blocked commit -m "scale: take the length"
  assert_output --regexp "kernels/scale\.(h|cu):[0-9]+:[0-9]+: kernel-signature: "
}

@test "the same change made in both files goes through" {
  printf '%s\n' \
    '#ifndef SCALE_H' \
    '#define SCALE_H' \
    '__global__ void scale(float *x, int n);' \
    '#endif' >kernels/scale.h
  printf '%s\n' \
    '#include "scale.h"' \
    '' \
    '__global__ void scale(float *x, int n)' \
    '{' \
    '    if ((int)threadIdx.x < n)' \
    '        x[threadIdx.x] *= 2.0f;' \
    '}' >kernels/scale.cu
  git add kernels
  expect_allowed commit -m "scale: take the length, everywhere"
}
