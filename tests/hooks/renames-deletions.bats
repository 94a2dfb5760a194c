#!/usr/bin/env bats
# Renames and deletions: the snapshot after the move or removal is checked.

load test_helper

setup() {
  common_setup
  good_c src/ok.c
  bad_c src/legacy.c
  git add src
  commit_unchecked -m "base, with a violation made before the hook"
}

@test "renaming a clean file goes through when the result is clean" {
  git rm -q src/legacy.c
  commit_unchecked -m "drop legacy"
  git mv src/ok.c src/renamed.c
  expect_allowed commit -m rename
  run git show --name-status --format= -M HEAD
  assert_output --regexp "^R100"
}

@test "renaming a file that has a violation is blocked under the new name" {
  git mv src/legacy.c "src/moved legacy.c"
  expect_blocked commit -m rename
  assert_finding "src/moved legacy.c" no-via-pinned
  refute_output --partial "src/legacy.c:"
}

@test "renaming a clean file onto a violation (rename plus edit) is blocked" {
  git rm -q src/legacy.c
  commit_unchecked -m "drop legacy"
  git mv src/ok.c src/upload.c
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m "rename and edit"
  assert_finding src/upload.c no-via-pinned
}

@test "deleting the file with the violation goes through" {
  git rm -q src/legacy.c
  expect_allowed commit -m "remove legacy"
  run git ls-files
  assert_output src/ok.c
}

@test "a file deleted from the working tree but still staged is still checked" {
  rm src/legacy.c
  expect_blocked commit -m "forgot git rm"
  assert_finding src/legacy.c no-via-pinned
}

@test "a deletion staged while the working tree still has the file goes through" {
  git rm -q --cached src/legacy.c
  expect_allowed commit -m "untrack legacy"
  run git status --porcelain
  assert_output "?? src/legacy.c"
}
