#!/usr/bin/env bats
# pre-push: every commit being pushed that the remote does not have yet is
# checked (its tree, through a throwaway index), so commits made with
# --no-verify are caught before they leave the machine.

load test_helper

setup() {
  common_setup
  remote_with_clean_base
}

remote_rev() { git --git-dir="$REMOTE" rev-parse -q --verify "$1"; }

@test "a clean push goes through" {
  good_c src/b.c b
  git add src/b.c
  git commit -q -m "clean"
  run git push origin main
  assert_success
  assert_equal "$(remote_rev main)" "$(git rev-parse HEAD)"
}

@test "a commit made with --no-verify is caught by pre-push" {
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "sneaky upload"
  before=$(remote_rev main)
  expect_blocked push origin main
  assert_output --partial "push blocked"
  assert_output --partial "sneaky upload"
  assert_finding src/upload.c no-via-pinned
  assert_output --partial "git rebase -i"
  assert_equal "$(remote_rev main)" "$before"
  run find "$TMPDIR" -mindepth 1
  assert_output ""
}

@test "git push --no-verify skips the check (CI still has it)" {
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "sneaky upload"
  run git push --no-verify origin main
  assert_success
  assert_equal "$(remote_rev main)" "$(git rev-parse HEAD)"
}

@test "a new branch is checked from where it leaves the remote's branches" {
  git switch -q -c feature
  good_c src/b.c b
  git add src/b.c
  commit_unchecked -m "feature: clean"
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "feature: bad"
  expect_blocked push origin feature
  assert_output --partial "feature: bad"
  refute_output --partial "feature: clean:"
  run remote_rev feature
  assert_failure
}

@test "a new branch pointing at a commit the remote has goes through" {
  git branch same-as-main
  run git push origin same-as-main
  assert_success
}

@test "deleting a remote branch pushes no commit and goes through" {
  git switch -q -c feature
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "feature: bad"
  git push -q --no-verify origin feature
  run git push origin :feature
  assert_success
  run remote_rev feature
  assert_failure
}

@test "a bad commit under a later fix is still caught (every pushed commit is checked)" {
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "bad"
  git rm -q src/upload.c
  git commit -q -m "remove it again"
  expect_blocked push origin main
  assert_output --partial " bad: 2 errors"
  refute_output --partial "remove it again:"
}

@test "commits already on the remote are not checked again" {
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "bad, pushed with --no-verify"
  git push -q --no-verify origin main
  git rm -q src/upload.c
  git commit -q -m "fixed"
  run git push origin main
  assert_success
}

@test "a push of many commits: the one bad commit among them is named" {
  local i
  for ((i = 0; i < 30; i++)); do
    good_c "src/many_$i.c" "many_$i"
    git add "src/many_$i.c"
    commit_unchecked -m "commit $i"
    if [ "$i" -eq 17 ]; then
      bad_c src/upload.c
      git add src/upload.c
      commit_unchecked -m "commit 17b: bad"
      git rm -q src/upload.c
      commit_unchecked -m "commit 17c: removed"
    fi
  done
  expect_blocked push origin main
  assert_output --partial "commit 17b: bad: 2 errors"
  run grep -c "^  commit " <<<"$output"
  assert_output 1
}

@test "a push of many clean commits goes through" {
  local i
  for ((i = 0; i < 30; i++)); do
    good_c "src/many_$i.c" "many_$i"
    git add "src/many_$i.c"
    commit_unchecked -m "commit $i"
  done
  run git push origin main
  assert_success
  assert_equal "$(remote_rev main)" "$(git rev-parse HEAD)"
}

@test "pushing several refs at once checks each" {
  git switch -q -c one
  good_c src/one.c one
  git add src/one.c
  commit_unchecked -m "one: clean"
  git switch -q -c two main
  bad_c src/two.c
  git add src/two.c
  commit_unchecked -m "two: bad"
  expect_blocked push origin one two
  assert_output --partial "two: bad"
  run remote_rev two
  assert_failure
}

@test "pushing to a URL rather than a named remote is checked too" {
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "bad"
  expect_blocked push "$REMOTE" main
  assert_finding src/upload.c no-via-pinned
}

@test "a merge commit that brings a violation is caught by pre-push" {
  git switch -q -c feature
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "feature: bad"
  git switch -q main
  good_c src/b.c b
  git add src/b.c
  commit_unchecked -m "main: clean"
  git merge -q --no-ff --no-verify -m "merge feature" feature
  expect_blocked push origin main
  assert_output --partial "merge feature"
}

@test "a pushed tag is checked like a branch" {
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "tagged bad"
  git tag -a -m "release" v1
  git reset -q --hard HEAD~1
  expect_blocked push origin v1
  assert_output --partial "tagged bad"
  run git --git-dir="$REMOTE" rev-parse -q --verify refs/tags/v1
  assert_failure
  git tag -a -m "release" v0 main
  run git push origin v0
  assert_success
}

@test "a tag of a tree pushes no commit and goes through" {
  git tag tree-tag "$(git rev-parse 'HEAD^{tree}')"
  run git push origin tree-tag
  assert_success
}
