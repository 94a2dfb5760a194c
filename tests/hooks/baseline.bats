#!/usr/bin/env bats
# A baseline named in .gpulint.yaml (`baseline: FILE`) applies in every
# mode: after adopting with --write-baseline, the hooks let clean commits
# through as CI does, and block only new findings. With --staged it is the
# baseline the commit records.

load test_helper

setup() {
  common_setup
  # A code base with an existing violation, adopted as docs/ci.md says.
  bad_c src/legacy.c
  good_c src/a.c a
  git add src
  commit_unchecked -m legacy
  run "$GPULINT" --write-baseline .gpulint-baseline.json
  assert_success
  printf 'baseline: .gpulint-baseline.json\n' >.gpulint.yaml
}

@test "adopting: the commit of the baseline and the config goes through" {
  git add .gpulint.yaml .gpulint-baseline.json
  expect_allowed commit -m "adopt gpulint"
  assert_equal "$(git log -1 --format=%s)" "adopt gpulint"
  # And plain gpulint, as CI runs it, agrees.
  run "$GPULINT"
  assert_success
}

@test "after adopting, a clean commit goes through and a new finding is blocked" {
  git add .gpulint.yaml .gpulint-baseline.json
  git commit -q -m "adopt gpulint"
  good_c src/b.c b
  git add src/b.c
  expect_allowed commit -m clean
  bad_c src/new.c
  git add src/new.c
  expect_blocked commit -m "new violation"
  assert_finding src/new.c no-via-pinned
  refute_output --partial "src/legacy.c"
}

@test "pre-push applies the baseline of each pushed commit" {
  git add .gpulint.yaml .gpulint-baseline.json
  commit_unchecked -m "adopt gpulint"
  git init -q --bare "$BATS_TEST_TMPDIR/remote.git"
  # The first commit (before the baseline) is bad by its own rules; push
  # from the adoption on, as a remote that already has history would.
  git push -q --no-verify "$BATS_TEST_TMPDIR/remote.git" HEAD~1:refs/heads/main
  git fetch -q "$BATS_TEST_TMPDIR/remote.git" main:refs/remotes/origin/main
  run git push "$BATS_TEST_TMPDIR/remote.git" main
  assert_success
}

@test "a config that names a baseline the commit does not record is blocked, saying so" {
  git add .gpulint.yaml
  expect_blocked commit -m "config without its baseline"
  assert_output --partial "the baseline '.gpulint-baseline.json' named in .gpulint.yaml is not staged"
}

@test "the staged baseline counts, not the working tree's" {
  git add .gpulint.yaml .gpulint-baseline.json
  git commit -q -m "adopt gpulint"
  # An emptied baseline, staged, makes the legacy finding new again...
  cp .gpulint-baseline.json "$BATS_TEST_TMPDIR/full.json"
  printf '{"baseline_format": 1, "findings": []}\n' >.gpulint-baseline.json
  git add .gpulint-baseline.json
  # ...whatever the working tree holds.
  cp "$BATS_TEST_TMPDIR/full.json" .gpulint-baseline.json
  expect_blocked commit -m "drop the baseline"
  assert_finding src/legacy.c no-via-pinned
}
