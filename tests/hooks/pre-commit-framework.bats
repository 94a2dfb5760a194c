#!/usr/bin/env bats
# The hook for the pre-commit framework (.pre-commit-hooks.yaml), through
# Debian 12's pre-commit (3.0.4; scripts/deps.sh installs it), offline: the
# manifest loads, a bad commit is blocked, a good one passes, and a commit
# that changes only .gpulint.yaml is checked too.

load test_helper

setup() {
  common_setup
  command -v pre-commit >/dev/null ||
    fail "pre-commit is not installed: make deps (scripts/deps.sh) installs Debian's package"
  export PRE_COMMIT_HOME=$BATS_TEST_TMPDIR/pre-commit-home
  # Nothing may be fetched from the network: no proxy, no index.
  export PIP_NO_INDEX=1 http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9
  # The framework takes gpulint from PATH (entry: gpulint --staged).
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  ln -s "$GPULINT" "$BATS_TEST_TMPDIR/bin/gpulint"
  export PATH=$BATS_TEST_TMPDIR/bin:$PATH
  unset GPULINT
  # The hook repository the config names: this checkout's manifest.
  HOOKS_REPO=$BATS_TEST_TMPDIR/gpulint-hooks
  git init -q -b main "$HOOKS_REPO"
  cp "$REPO/.pre-commit-hooks.yaml" "$HOOKS_REPO/"
  git -C "$HOOKS_REPO" add .pre-commit-hooks.yaml
  git -C "$HOOKS_REPO" commit -q -m manifest
  # pre-commit will not install while core.hooksPath is set.
  git config --unset core.hooksPath
  printf '%s\n' 'repos:' "  - repo: $HOOKS_REPO" "    rev: $(git -C "$HOOKS_REPO" rev-parse HEAD)" \
    '    hooks:' '      - id: gpulint' >.pre-commit-config.yaml
  good_c src/a.c a
  git add .pre-commit-config.yaml src/a.c
  commit_unchecked -m base
  run pre-commit install
  assert_success
}

@test "the manifest loads, and a good commit passes" {
  good_c src/b.c b
  git add src/b.c
  expect_allowed commit -m good
  assert_output --regexp 'gpulint \(GPU hot-path rules\)\.+Passed'
  refute_output --partial 'deprecated'
  assert_equal "$(git log -1 --format=%s)" good
}

@test "a bad commit is blocked, with gpulint's findings" {
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m bad
  assert_output --regexp 'gpulint \(GPU hot-path rules\)\.+Failed'
  assert_output --regexp 'src/upload\.c:1:6: error: .*\[no-via-pinned\]'
  assert_equal "$(git log -1 --format=%s)" base
}

@test "a commit that changes only .gpulint.yaml is checked" {
  printf '%s\n' 'patterns:' '  - id: no-plus-one' "    regex: 'x \\+ 1'" \
    '    message: "no increments"' >.gpulint.yaml
  git add .gpulint.yaml
  expect_blocked commit -m "config only"
  assert_output --regexp 'gpulint \(GPU hot-path rules\)\.+Failed'
  assert_output --regexp 'src/a\.c:3:[0-9]+: error: no increments \[pattern:no-plus-one\]'
  assert_equal "$(git log -1 --format=%s)" base
}

@test "a commit of documentation only still runs the check (it costs little: facts are cached)" {
  printf '# notes\n' >NOTES.md
  git add NOTES.md
  expect_allowed commit -m docs
  assert_output --regexp 'gpulint \(GPU hot-path rules\)\.+Passed'
}
