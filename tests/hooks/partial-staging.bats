#!/usr/bin/env bats
# Partial staging: the hook checks what is staged, not the working tree, and
# leaves unstaged work exactly where it is (no stash dance).

load test_helper

setup() {
  common_setup
  good_c src/weights.c
  git add src/weights.c
  commit_unchecked -m base
}

@test "a violation staged but gone from the working tree is blocked" {
  bad_c src/weights.c
  git add src/weights.c
  good_c src/weights.c load_weights
  expect_blocked commit -m "staged violation"
  assert_finding src/weights.c no-via-pinned
  # The staged blob is still the bad one, the working tree the good one.
  run git diff --cached --name-only
  assert_output src/weights.c
  run grep -c upload_f32_via_pinned src/weights.c
  assert_output 0
}

@test "a violation only in the working tree is allowed and the unstaged edit is kept" {
  good_c src/weights.c load_weights
  git add src/weights.c
  bad_c src/weights.c
  expect_allowed commit -m "clean part staged"
  run git show HEAD:src/weights.c
  assert_output --partial load_weights
  refute_output --partial upload_f32_via_pinned
  # The unstaged edit is still unstaged, byte for byte.
  run git diff --name-only
  assert_output src/weights.c
  run git diff --cached --name-only
  assert_output ""
  bad_c "$BATS_TEST_TMPDIR/expected.c"
  run cmp src/weights.c "$BATS_TEST_TMPDIR/expected.c"
  assert_success
}

@test "an untracked file with a violation does not block and is left alone" {
  bad_c src/scratch.c
  good_c src/more.c
  git add src/more.c
  expect_allowed commit -m "untracked scratch file stays"
  run git status --porcelain
  assert_output "?? src/scratch.c"
}

@test "git add -p style staging: half a file staged, the other half kept" {
  # Stage a version with a clean addition while the working tree carries
  # both the clean addition and a violation; then the reverse.
  printf 'int add_one(int x)\n{\n    return x + 1;\n}\nint two(void) { return 2; }\n' >src/weights.c
  git add src/weights.c
  bad_c src/tail.c
  cat src/tail.c >>src/weights.c
  expect_allowed commit -m "clean half"
  run git diff --stat
  assert_output --partial "src/weights.c"

  git add src/weights.c
  printf 'int add_one(int x)\n{\n    return x + 1;\n}\n' >src/weights.c
  expect_blocked commit -m "violating half"
  assert_finding src/weights.c no-via-pinned
}
