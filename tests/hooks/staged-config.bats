#!/usr/bin/env bats
# The configuration a commit is judged by is the .gpulint.yaml it records
# (the staged one), not the working tree's: an unstaged edit neither blocks
# nor excuses a commit, and pre-push judges each pushed commit by its own.

load test_helper

setup() { common_setup; }

allow_via_pinned() { printf 'rules:\n  no-via-pinned:\n    enabled: false\n' >.gpulint.yaml; }

@test "an unstaged configuration does not excuse staged code" {
  bad_c src/upload.c
  git add src/upload.c
  allow_via_pinned
  expect_blocked commit -m "upload"
  assert_finding src/upload.c no-via-pinned
  assert_output --partial ".gpulint.yaml is not staged"
  assert_equal "$(git rev-parse -q --verify HEAD)" ""
}

@test "a configuration committed with the code it allows lets the commit through" {
  bad_c src/upload.c
  allow_via_pinned
  git add src/upload.c .gpulint.yaml
  expect_allowed commit -q -m "upload, allowed by the config"
  assert_equal "$(git show HEAD:.gpulint.yaml)" "$(cat .gpulint.yaml)"
}

@test "an unstaged edit of the configuration does not block a commit" {
  bad_c src/upload.c
  allow_via_pinned
  git add src/upload.c .gpulint.yaml
  commit_unchecked -m base
  # The working tree's copy now enables the rule again, and is broken YAML
  # besides: the commit below records neither.
  printf 'rules: [unclosed\n' >.gpulint.yaml
  good_c src/b.c b
  git add src/b.c
  expect_allowed commit -m "b"
  assert_output --partial ".gpulint.yaml differs from its staged version"
  assert_equal "$(git rev-parse HEAD^{tree}:.gpulint.yaml)" "$(git rev-parse HEAD~1^{tree}:.gpulint.yaml)"
}

@test "a broken staged configuration blocks the commit, and is named" {
  good_c src/a.c
  printf 'rules: [unclosed\n' >.gpulint.yaml
  git add src/a.c .gpulint.yaml
  expect_blocked commit -m "a"
  assert_output --partial "exit 2"
  assert_output --partial ".gpulint.yaml (staged):"
}

@test "pre-push judges each pushed commit by the configuration it records" {
  remote_with_clean_base
  # One: the upload, allowed by this commit's configuration.
  bad_c src/upload.c
  allow_via_pinned
  git add src/upload.c .gpulint.yaml
  commit_unchecked -m "upload, allowed"
  # Two: the upload replaced, the rule enabled again.
  good_c src/upload.c upload
  git rm -q .gpulint.yaml
  git add src/upload.c
  commit_unchecked -m "upload replaced, rule back on"
  run git push origin main
  assert_success
  assert_equal "$(git --git-dir="$REMOTE" rev-parse main)" "$(git rev-parse HEAD)"
}

@test "pre-push blocks a pushed commit whose own configuration does not allow it" {
  remote_with_clean_base
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "upload, not allowed"
  # Allowed only by a later edit that is not in the commit being pushed.
  allow_via_pinned
  expect_blocked push origin main
  assert_output --partial "upload, not allowed"
  assert_finding src/upload.c no-via-pinned
}
