#!/usr/bin/env bats
# A .gpulint.yaml that is a symlink (a shared configuration) is followed in
# --staged as plain gpulint follows it: a target inside the repository is
# read from the index (what the commit records), one outside it from disk.

load test_helper

setup() {
  common_setup
  good_c src/a.c a
  git add src/a.c
  commit_unchecked -m base
}

# A configuration whose pattern rule flags the `x + 1` in src/a.c.
flagging_config() {
  mkdir -p "$(dirname -- "$1")"
  printf '%s\n' 'patterns:' '  - id: no-plus-one' "    regex: 'x \\+ 1'" \
    '    message: "no increments"' >"$1"
}

@test "a link to a config inside the repository is followed through the index" {
  flagging_config config/shared.yaml
  ln -s config/shared.yaml .gpulint.yaml
  git add config/shared.yaml .gpulint.yaml
  # The working tree's copy would pass; the staged one is what counts.
  printf '{}\n' >config/shared.yaml
  expect_blocked commit -m "shared config"
  assert_finding src/a.c pattern:no-plus-one
  refute_output --partial "exit 2"
}

@test "a link to a config outside the repository is read from there" {
  flagging_config "$BATS_TEST_TMPDIR/team/gpulint.yaml"
  ln -s "$BATS_TEST_TMPDIR/team/gpulint.yaml" .gpulint.yaml
  git add .gpulint.yaml
  expect_blocked commit -m "team config"
  assert_finding src/a.c pattern:no-plus-one
}

@test "a relative link that leaves the repository is read from disk too" {
  flagging_config "$BATS_TEST_TMPDIR/team/gpulint.yaml"
  ln -s ../team/gpulint.yaml .gpulint.yaml
  git add .gpulint.yaml
  expect_blocked commit -m "team config"
  assert_finding src/a.c pattern:no-plus-one
}

@test "a link to a clean config lets a clean commit through, and plain gpulint agrees" {
  mkdir -p config
  printf 'hot: ["nothing_*"]\n' >config/shared.yaml
  ln -s config/shared.yaml .gpulint.yaml
  git add config .gpulint.yaml
  expect_allowed commit -m "shared config"
  run "$GPULINT"
  assert_success
}

@test "a dangling link blocks with the reason, naming the link" {
  ln -s "$BATS_TEST_TMPDIR/nowhere.yaml" .gpulint.yaml
  git add .gpulint.yaml
  expect_blocked commit -m dangling
  assert_output --partial "'.gpulint.yaml' is a symlink to '$BATS_TEST_TMPDIR/nowhere.yaml', which cannot be read"
  # A configuration error (exit 2), not a crash (it was a double free).
  run "$GPULINT" --staged
  assert_equal "$status" 2
  refute_output --partial "double free"
  # Plain gpulint does not run with the defaults as if there were no config.
  run "$GPULINT"
  assert_equal "$status" 2
  assert_output --partial ".gpulint.yaml is a symlink whose target cannot be read"
}
