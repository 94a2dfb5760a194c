#!/usr/bin/env bats
# Every way of making a commit runs the check on what that commit records:
# -a, --amend, `git commit PATH` (git's temporary index), from a subdirectory.

load test_helper

setup() {
  common_setup
  good_c src/a.c a
  good_c src/b.c b
  git add src
  commit_unchecked -m base
}

@test "git commit -a: a violation in a tracked, unstaged file is blocked" {
  bad_c src/a.c
  expect_blocked commit -a -m "all"
  assert_finding src/a.c no-via-pinned
  # The index still has the committed blob: -a staged nothing for good.
  run git diff --cached --name-only
  assert_output ""
}

@test "git commit -a: clean tracked changes go through, untracked violations stay out" {
  good_c src/a.c a2
  bad_c src/untracked.c
  expect_allowed commit -a -m "all"
  run git show --name-only --format= HEAD
  assert_output src/a.c
}

@test "git commit --amend with a violation is blocked and HEAD is kept" {
  head=$(git rev-parse HEAD)
  bad_c src/b.c
  git add src/b.c
  expect_blocked commit --amend -m "amended"
  assert_finding src/b.c no-via-pinned
  assert_equal "$(git rev-parse HEAD)" "$head"
}

@test "git commit --amend of a clean change goes through" {
  good_c src/b.c b2
  git add src/b.c
  expect_allowed commit --amend --no-edit
  run git log --oneline
  assert_line --index 0 --partial base
  assert_equal "${#lines[@]}" 1
}

@test "git commit PATH checks the temporary index: the path's working-tree version" {
  # Staged: clean. Working tree: a violation. `git commit src/a.c` records
  # the working-tree version, so it must be blocked.
  good_c src/a.c a2
  git add src/a.c
  bad_c src/a.c
  expect_blocked commit -m "only a" src/a.c
  assert_finding src/a.c no-via-pinned
}

@test "git commit PATH ignores what is staged for other paths" {
  # A violation staged in b.c is not part of `git commit src/a.c`.
  bad_c src/b.c
  git add src/b.c
  good_c src/a.c a2
  expect_allowed commit -m "only a" src/a.c
  run git show --name-only --format= HEAD
  assert_output src/a.c
  # b.c's staged violation is still staged, untouched.
  run git diff --cached --name-only
  assert_output src/b.c
}

@test "git commit PATH from a subdirectory" {
  bad_c src/a.c
  cd src
  expect_blocked commit -m "from src" a.c
  assert_finding src/a.c no-via-pinned
  good_c a.c a3
  expect_allowed commit -m "from src" a.c
}

@test "git commit -a from a subdirectory" {
  bad_c src/b.c
  cd src
  expect_blocked commit -a -m "from src"
  assert_finding src/b.c no-via-pinned
}

@test "a commit in a linked worktree checks that worktree's index" {
  git worktree add -q "$BATS_TEST_TMPDIR/wt" -b other
  cd "$BATS_TEST_TMPDIR/wt"
  bad_c src/a.c
  git add src/a.c
  expect_blocked commit -m "in the worktree"
  assert_finding src/a.c no-via-pinned
  good_c src/a.c a4
  git add src/a.c
  expect_allowed commit -m "in the worktree"
}

@test "git commit --include PATH checks the index plus that path" {
  good_c src/a.c a2
  git add src/a.c
  bad_c src/b.c
  expect_blocked commit -m "a and b" --include src/b.c
  assert_finding src/b.c no-via-pinned
  run git diff --cached --name-only
  assert_output src/a.c
}
