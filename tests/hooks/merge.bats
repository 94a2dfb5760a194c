#!/usr/bin/env bats
# Merges: the merged index is checked, by pre-merge-commit when `git merge`
# commits by itself and by pre-commit when the merge is concluded with
# `git commit`.

load test_helper

setup() {
  common_setup
  good_c src/a.c a
  git add src
  commit_unchecked -m base
  git switch -q -c feature
}

@test "git merge of a branch that brings a violation is blocked (pre-merge-commit)" {
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "feature: bad, without the hook"
  git switch -q main
  good_c src/b.c b
  git add src/b.c
  commit_unchecked -m "main moves on"
  head=$(git rev-parse HEAD)
  run git merge --no-ff -m "merge feature" feature
  assert_failure
  assert_output --partial "merge blocked"
  assert_finding src/upload.c no-via-pinned
  assert_equal "$(git rev-parse HEAD)" "$head"
  # git merge writes the merged tree and index before the hook runs; the
  # hook added nothing to that: the state is what `git merge --no-commit`
  # leaves (contents, index entries, status).
  merge_state >"$BATS_TEST_TMPDIR/after-hook"
  git merge --abort
  git merge -q --no-ff --no-commit feature
  merge_state >"$BATS_TEST_TMPDIR/no-commit"
  run diff -u "$BATS_TEST_TMPDIR/no-commit" "$BATS_TEST_TMPDIR/after-hook"
  assert_success
}

merge_state() {
  find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum --
  git ls-files --stage
  GIT_OPTIONAL_LOCKS=0 git status --porcelain=v2
  git rev-parse MERGE_HEAD
}

@test "a merge concluded with git commit is checked and left intact when blocked" {
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "feature: bad, without the hook"
  git switch -q main
  good_c src/b.c b
  git add src/b.c
  commit_unchecked -m "main moves on"
  git merge -q --no-ff --no-commit feature
  expect_blocked commit --no-edit
  assert_finding src/upload.c no-via-pinned
  # The merge is still in progress, ready to be fixed and committed.
  run git rev-parse -q --verify MERGE_HEAD
  assert_success
}

@test "a clean merge goes through and records both parents" {
  good_c src/c.c c
  git add src/c.c
  commit_unchecked -m "feature: clean"
  git switch -q main
  good_c src/b.c b
  git add src/b.c
  commit_unchecked -m "main moves on"
  run git merge --no-ff -m "merge feature" feature
  assert_success
  run git rev-list --parents -n 1 HEAD
  assert_output --regexp "^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+$"
}

@test "a conflict resolved with a violation is blocked" {
  printf 'int a(int x)\n{\n    return x + 2;\n}\n' >src/a.c
  git add src/a.c
  commit_unchecked -m "feature: a+2"
  git switch -q main
  printf 'int a(int x)\n{\n    return x + 3;\n}\n' >src/a.c
  git add src/a.c
  commit_unchecked -m "main: a+3"
  run git merge feature
  assert_failure
  bad_c src/a.c
  git add src/a.c
  expect_blocked commit --no-edit
  assert_finding src/a.c no-via-pinned
  good_c src/a.c a
  git add src/a.c
  expect_allowed commit --no-edit
  run git rev-list --parents -n 1 HEAD
  assert_output --regexp "^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+$"
}
