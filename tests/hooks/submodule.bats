#!/usr/bin/env bats
# A submodule is a gitlink in the superproject's index, not file content: the
# superproject's commit records a commit id, and the submodule's files belong
# to its own repository (and its own hooks and CI).

load test_helper

setup() {
  common_setup
  git config --global protocol.file.allow always
  new_repo "$BATS_TEST_TMPDIR/lib"
  bad_c "$BATS_TEST_TMPDIR/lib/upload.c"
  good_c "$BATS_TEST_TMPDIR/lib/ok.c"
  git -C "$BATS_TEST_TMPDIR/lib" add .
  git -C "$BATS_TEST_TMPDIR/lib" commit -q --no-verify -m "lib, checked by its own CI"
  good_c src/main.c
  git add src/main.c
  commit_unchecked -m base
}

@test "adding a submodule goes through (its files are not part of this commit)" {
  git submodule add -q "$BATS_TEST_TMPDIR/lib" third_party/lib
  expect_allowed commit -m "add lib as a submodule"
  run git ls-files -s third_party/lib
  assert_output --regexp "^160000 "
}

@test "a violation staged next to a submodule is blocked" {
  git submodule add -q "$BATS_TEST_TMPDIR/lib" third_party/lib
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m "submodule and a violation"
  assert_finding src/upload.c no-via-pinned
  refute_output --partial "third_party/lib/upload.c"
}

@test "moving the submodule pointer goes through" {
  git submodule add -q "$BATS_TEST_TMPDIR/lib" third_party/lib
  commit_unchecked -m "add lib"
  good_c third_party/lib/more.c more
  git -C third_party/lib add more.c
  git -C third_party/lib commit -q --no-verify -m more
  git add third_party/lib
  expect_allowed commit -m "bump lib"
}
