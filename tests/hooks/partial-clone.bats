#!/usr/bin/env bats
# In a partial clone (--filter=blob:none --sparse) the hook never makes git
# fetch a missing blob: the commit is checked with what is local, the files
# whose content is not here are named as not checked, and it works offline.

load test_helper

setup() {
  common_setup
  SERVER=$BATS_TEST_TMPDIR/server
  new_repo "$SERVER"
  git -C "$SERVER" config uploadpack.allowFilter true
  git -C "$SERVER" config uploadpack.allowAnySHA1InWant true
  local i
  for i in 1 2 3 4 5; do
    good_c "$SERVER/far/f$i.c" "far_$i"
  done
  good_c "$SERVER/top.c" top
  git -C "$SERVER" add .
  git -C "$SERVER" commit -q --no-verify -m base
  CLONE=$BATS_TEST_TMPDIR/clone
  git clone -q --filter=blob:none --sparse "file://$SERVER" "$CLONE"
  cd "$CLONE"
  git config core.hooksPath "$REPO/.githooks"
  # Offline from here: the promisor remote is gone.
  mv "$SERVER" "$SERVER.away"
}

packs() { find .git/objects/pack -name '*.pack' | LC_ALL=C sort; }

@test "a one-file commit fetches nothing, names the files not checked, and goes through" {
  packs >"$BATS_TEST_TMPDIR/packs-before"
  good_c mine.c mine
  git add mine.c
  run git commit -m mine
  assert_success
  assert_output --partial "'far/f1.c' not checked: its content is not in this partial clone"
  assert_output --partial "5 files not checked (not in this partial clone)"
  assert_equal "$(git log -1 --format=%s)" mine
  packs >"$BATS_TEST_TMPDIR/packs-after"
  run diff "$BATS_TEST_TMPDIR/packs-before" "$BATS_TEST_TMPDIR/packs-after"
  assert_success
  run git cat-file -e "$(git rev-parse HEAD:far/f1.c)" 2>/dev/null
  assert_failure
}

@test "a bad file in the sparse checkout is still blocked" {
  bad_c upload.c
  git add upload.c
  expect_blocked commit -m bad
  assert_finding upload.c no-via-pinned
  assert_output --partial "not checked"
}

@test "a partly checked snapshot is not remembered as clean" {
  good_c mine.c mine
  git add mine.c
  git commit -q -m mine
  run find "$BATS_TEST_TMPDIR" -name 'clean-*'
  assert_output ""
}
