#!/usr/bin/env bats
# Files that never end: an #include of /dev/zero or of a FIFO (directly or
# through a header), a tracked file replaced by a FIFO, a file over
# limits.file-bytes. Each makes its file not checked (a not-checked error
# naming the cause, exit 1) within seconds, and the other files are analysed. Before, each of
# the first four hung gpulint (analyzer/extract/includes.c,
# analyzer/input/inputs.c).

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load hostile_env

setup_file() { gpulint_env_setup_file; }
setup() { gpulint_env_setup; bad_c bad.c; }

assert_not_checked_rest_analysed() {
  assert_equal "$status" 1
  assert_output --partial "bad.c:2:"
  assert_output --partial "[no-via-pinned]"
  assert_output --partial "$1"
  assert_output --partial "this file was not checked"
}

@test '#include "/dev/zero": not checked, named, the rest analysed' {
  printf '#include "/dev/zero"\nint x;\n' >zero.c
  gl_within 30 --config "$EMPTY_CONFIG" zero.c bad.c
  assert_not_checked_rest_analysed 'zero.c:1:1: error: #include "/dev/zero" names a character device, not a regular file'
}

@test '#include of a FIFO: not checked, not waited on' {
  mkfifo pipe.h
  printf '#include "pipe.h"\nint x;\n' >fifo.c
  gl_within 30 --config "$EMPTY_CONFIG" fifo.c bad.c
  assert_not_checked_rest_analysed 'fifo.c:1:1: error: #include "pipe.h" names a FIFO, not a regular file'
}

@test '/dev/zero through a header on disk that is not analysed itself' {
  mkdir inc
  printf '/* #include "/dev/null" in a comment is no include */\n#include </dev/zero>\n' >inc/zero.h
  printf '#include "zero.h"\nint x;\n' >via.c
  printf 'include-dirs: ["inc"]\n' >cfg.yaml
  gl_within 30 --config cfg.yaml via.c bad.c
  assert_not_checked_rest_analysed "via.c:1:1: error: #include </dev/zero> (in $PWD/inc/zero.h:2) names a character device, not a regular file"
}

@test "a tracked file replaced by a FIFO in the working tree: not checked, not waited on" {
  git init -q -b main repo && cd repo
  bad_c bad.c
  printf 'int x;\n' >a.c
  git add a.c bad.c && git commit -qm init
  rm a.c && mkfifo a.c
  gl_within 30 --config "$EMPTY_CONFIG"
  assert_not_checked_rest_analysed "a.c:1:1: error: it is not a regular file: this file was not checked"
}

@test "a file over limits.file-bytes: not checked, not read, its size named" {
  python3 -c 'print("int a;\n" * 300000, end="")' >big.c
  printf 'limits:\n  file-bytes: 1000000\n' >cfg.yaml
  gl_within 30 --config cfg.yaml big.c bad.c
  assert_not_checked_rest_analysed "big.c:1:1: error: it is 2100000 bytes, more than limits.file-bytes (1000000) in .gpulint.yaml allows"
}

@test "the default bound is 8 MiB" {
  python3 -c 'print("int a;\n" * 1300000, end="")' >big.c
  gl_within 60 --config "$EMPTY_CONFIG" big.c bad.c
  assert_not_checked_rest_analysed "big.c:1:1: error: it is 9100000 bytes, more than limits.file-bytes (8388608)"
}

@test "the CUDA toolkit's headers are not the project's: a C file is not held to limits.file-bytes inside them, as a .cu file is not" {
  mkdir -p toolkit/include
  printf '#include "huge.h"\n' >toolkit/include/cuda_runtime_api.h
  python3 -c 'print("/* " + "x" * 1200000 + " */\nint from_toolkit;")' >toolkit/include/huge.h
  printf '#include <cuda_runtime_api.h>\nint x;\n' >uses_cuda.c
  printf 'limits:\n  file-bytes: 1000000\n' >cfg.yaml
  CUDA_PATH=$PWD/toolkit gl_within 60 --config cfg.yaml uses_cuda.c
  assert_success
  refute_output --partial "not checked"
}
