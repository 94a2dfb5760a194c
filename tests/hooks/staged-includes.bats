#!/usr/bin/env bats
# Every file a staged translation unit includes from inside the repository
# is the staged one, also when gpulint does not analyse it itself (a header
# .gpulint.yaml excludes, a .def or .inc fragment): a bad staged header
# blocks whatever the working tree holds, and a bad unstaged copy does not
# block a good commit.

load test_helper

setup() {
  common_setup
  printf 'exclude: ["vendor/**"]\n' >.gpulint.yaml
  mkdir -p vendor src
  printf '%s\n' '#include "../vendor/push.h"' \
    'void push(float *d, const float *s, int n)' '{' '    PUSH(d, s, n);' '}' >src/use.c
  printf '%s\n' '#include "ops.def"' \
    'void op(float *d, const float *s, int n)' '{' '    OP(d, s, n);' '}' >src/op.c
}

# PUSH/OP expand to the retired helper (bad) or to a plain loop (good).
bad_macro() {
  printf '%s\n' 'void upload_f32_via_pinned(float *dst, const float *src, int n);' \
    "#define $2(d, s, n) upload_f32_via_pinned(d, s, n)" >"$1"
}
good_macro() {
  printf '%s\n' "#define $2(d, s, n) do { for (int i = 0; i < (n); i++) (d)[i] = (s)[i]; } while (0)" >"$1"
}

@test "a bad staged excluded header blocks, though the working tree's copy is good" {
  bad_macro vendor/push.h PUSH
  good_macro src/ops.def OP
  git add .gpulint.yaml vendor src
  good_macro vendor/push.h PUSH
  expect_blocked commit -m "bad header staged"
  assert_finding src/use.c no-via-pinned
}

@test "a bad unstaged copy of an excluded header does not block a good commit" {
  good_macro vendor/push.h PUSH
  good_macro src/ops.def OP
  git add .gpulint.yaml vendor src
  bad_macro vendor/push.h PUSH
  expect_allowed commit -m "good header staged"
  assert_equal "$(git log -1 --format=%s)" "good header staged"
}

@test "a .def fragment is read from the index too" {
  good_macro vendor/push.h PUSH
  bad_macro src/ops.def OP
  git add .gpulint.yaml vendor src
  good_macro src/ops.def OP
  expect_blocked commit -m "bad fragment staged"
  assert_finding src/op.c no-via-pinned
  # And the other way round.
  good_macro src/ops.def OP
  git add src/ops.def
  bad_macro src/ops.def OP
  expect_allowed commit -m "good fragment staged"
}

@test "pre-push judges each pushed commit's headers by that commit" {
  git init -q --bare "$BATS_TEST_TMPDIR/remote.git"
  bad_macro vendor/push.h PUSH
  good_macro src/ops.def OP
  git add .gpulint.yaml vendor src
  commit_unchecked -m "bad header"
  good_macro vendor/push.h PUSH
  git add vendor/push.h
  commit_unchecked -m "good header"
  expect_blocked push "$BATS_TEST_TMPDIR/remote.git" main
  assert_output --partial "bad header: 1 error"
  refute_output --partial "good header:"
}
