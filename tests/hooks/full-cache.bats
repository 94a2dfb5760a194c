#!/usr/bin/env bats
# A cache that cannot be written (a full disk, a read-only home) costs speed
# only: gpulint runs without it, the hook still checks, and a bad commit is
# still blocked. Here gpulint's cache directory cannot hold its CUDA shim
# headers (a file where the shim directory should be), and the hook's own
# cache directory cannot be created.

load test_helper

setup() {
  common_setup
  export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/broken-cache
  mkdir -p "$XDG_CACHE_HOME/gpulint"
  printf 'not a directory\n' >"$XDG_CACHE_HOME/gpulint/shim"
  printf 'not a directory\n' >"$BATS_TEST_TMPDIR/hook-cache-file"
  export GPULINT_HOOK_CACHE_DIR=$BATS_TEST_TMPDIR/hook-cache-file
}

@test "a clean commit goes through when no cache can be written" {
  good_c src/a.c a
  printf '__global__ void k(float *x) { x[0] = 1.0f; }\n' >src/k.cu
  git add src
  expect_allowed commit -m clean
  assert_output --partial "running without it"
  refute_output --partial "internal error"
  assert_equal "$(git log --format=%s)" clean
  # gpulint's run directory is gone; the broken cache is as it was.
  run find "$TMPDIR" -mindepth 1
  assert_output ""
  assert_equal "$(cat "$XDG_CACHE_HOME/gpulint/shim")" "not a directory"
}

@test "a bad commit is still blocked with its findings when no cache can be written" {
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m bad
  assert_finding src/upload.c no-via-pinned
  refute_output --partial "internal error"
}
