#!/usr/bin/env bats
# pre-push judges only commits that no remote-tracking ref already
# contains: history published elsewhere (perhaps from before gpulint was
# adopted) is not judged again when it is pushed to a new, empty remote;
# commits of one's own that are on no remote still are.

load test_helper

setup() {
  common_setup
  # History published on origin with a bad commit (from before the hooks).
  remote_with_clean_base
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "old: bad, published"
  git rm -q src/upload.c
  commit_unchecked -m "old: removed"
  git push -q --no-verify origin main
  # A second, empty remote.
  MIRROR=$BATS_TEST_TMPDIR/mirror.git
  git init -q --bare "$MIRROR"
  git remote add mirror "$MIRROR"
}

@test "the first push of published history to a new, empty remote goes through" {
  good_c src/b.c b
  git add src/b.c
  git commit -q -m "new: clean"
  run git push mirror main
  assert_success
  refute_output --partial "old: bad"
  assert_equal "$(git --git-dir="$MIRROR" rev-parse main)" "$(git rev-parse HEAD)"
}

@test "to a URL rather than a named remote, the same" {
  run git push "$MIRROR" main
  assert_success
}

@test "an unpublished bad commit on top is still caught when pushing to the new remote" {
  bad_c src/new.c
  git add src/new.c
  commit_unchecked -m "new: bad"
  expect_blocked push mirror main
  assert_output --partial "new: bad"
  refute_output --partial "old: bad"
  assert_finding src/new.c no-via-pinned
  run git --git-dir="$MIRROR" rev-parse -q --verify main
  assert_failure
}

@test "a branch only on another remote's tracking refs counts as published too" {
  git switch -q -c topic
  good_c src/t.c t
  git add src/t.c
  commit_unchecked -m "topic: clean"
  git push -q --no-verify origin topic
  run git push mirror topic
  assert_success
}
