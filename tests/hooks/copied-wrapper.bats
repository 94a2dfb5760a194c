#!/usr/bin/env bats
# A wrapper copied out of .githooks/ (into .git/hooks, or vendored into
# another repository) has no hooks/ of gpulint beside it. It must fail
# closed at once with how to install the hooks, never exec itself forever;
# a copy of the hook script without its lib.sh does the same.

load test_helper

setup() {
  common_setup
  git config --unset core.hooksPath
  good_c src/a.c a
  git add src/a.c
}

# The commit must end (blocked) well within this many seconds.
limit=20

@test "pre-commit copied into .git/hooks fails closed instead of looping" {
  cp "$REPO/.githooks/pre-commit" .git/hooks/pre-commit
  settle
  snapshot >"$BATS_TEST_TMPDIR/before"
  run timeout "$limit" git commit -m x
  assert_failure 1
  assert_output --partial "copy of gpulint's .githooks/pre-commit wrapper"
  assert_output --partial "git config core.hooksPath"
  snapshot >"$BATS_TEST_TMPDIR/after"
  run diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
  assert_success
}

@test "pre-merge-commit and pre-push copied into .git/hooks fail closed too" {
  cp "$REPO/.githooks/pre-merge-commit" "$REPO/.githooks/pre-push" .git/hooks/
  commit_unchecked -m base
  git switch -q -c side
  good_c src/b.c b
  git add src/b.c
  commit_unchecked -m side
  git switch -q main
  run timeout "$limit" git merge --no-ff -m merge side
  assert_failure 1
  assert_output --partial "copy of gpulint's .githooks/pre-merge-commit wrapper"
  git init -q --bare "$BATS_TEST_TMPDIR/remote.git"
  run timeout "$limit" git push "$BATS_TEST_TMPDIR/remote.git" main
  assert_failure
  assert_output --partial "copy of gpulint's .githooks/pre-push wrapper"
  run git --git-dir="$BATS_TEST_TMPDIR/remote.git" rev-parse -q --verify main
  assert_failure
}

@test "a wrapper vendored into another repository's tools/ fails closed" {
  mkdir -p tools/githooks
  cp "$REPO/.githooks/pre-commit" tools/githooks/
  git config core.hooksPath tools/githooks
  run timeout "$limit" git commit -m x
  assert_failure 1
  assert_output --partial "copy of gpulint's .githooks/pre-commit wrapper"
  run git rev-parse -q --verify HEAD
  assert_failure
}

@test "the hook script copied without its lib.sh fails closed" {
  cp "$REPO/hooks/pre-commit" .git/hooks/pre-commit
  run timeout "$limit" git commit -m x
  assert_failure 1
  assert_output --partial "lib.sh is missing, so nothing was checked"
  run git rev-parse -q --verify HEAD
  assert_failure
}
