#!/usr/bin/env bats
# Finding gpulint: $GPULINT, then PATH, then build/ of the repository holding
# the hooks (found through the hook's real location, whatever repository is
# being committed to). No usable gpulint, or a gpulint that fails, blocks:
# the check never passes silently.

load test_helper

setup() {
  common_setup
  REAL_GPULINT=$GPULINT
  unset GPULINT
  # A PATH without any gpulint on it.
  local dir clean=
  local IFS=:
  for dir in $PATH; do
    [ -x "$dir/gpulint" ] && continue
    clean=${clean:+$clean:}$dir
  done
  export PATH=$clean
  # A copy of the hooks in a repository of their own, with no build/ yet.
  TOOL=$BATS_TEST_TMPDIR/tool
  mkdir -p "$TOOL"
  cp -R "$REPO/hooks" "$REPO/.githooks" "$TOOL/"
  git config core.hooksPath "$TOOL/.githooks"
  bad_c src/upload.c
  git add src/upload.c
}

# A gpulint that records which copy ran, then runs the real one.
wrapper() {
  mkdir -p "$(dirname -- "$1")"
  printf '#!/bin/sh\necho "%s" >>"%s/ran"\nexec "%s" "$@"\n' \
    "$1" "$BATS_TEST_TMPDIR" "$REAL_GPULINT" >"$1"
  chmod +x "$1"
}

@test "no gpulint anywhere: blocked, with how to build it or point GPULINT at one" {
  expect_blocked commit -m x
  assert_output --partial "gpulint not found"
  assert_output --partial "make -C $(printf %q "$TOOL") analyzer"
  assert_output --partial "export GPULINT="
  # The hooks' own repository was found from their real location.
  assert_output --partial "$TOOL/build/gpulint"
}

@test "no gpulint anywhere blocks even a clean commit" {
  git rm -q --cached src/upload.c
  good_c src/ok.c
  git add src/ok.c
  expect_blocked commit -m x
  assert_output --partial "gpulint not found"
}

@test "build/ of the hooks' repository is used last" {
  wrapper "$TOOL/build/gpulint"
  expect_blocked commit -m x
  assert_finding src/upload.c no-via-pinned
  run cat "$BATS_TEST_TMPDIR/ran"
  assert_output "$TOOL/build/gpulint"
}

@test "core.hooksPath through a symlink still finds the hooks' repository" {
  wrapper "$TOOL/build/gpulint"
  ln -s "$TOOL/.githooks" "$BATS_TEST_TMPDIR/linked-hooks"
  git config core.hooksPath "$BATS_TEST_TMPDIR/linked-hooks"
  expect_blocked commit -m x
  assert_finding src/upload.c no-via-pinned
  run cat "$BATS_TEST_TMPDIR/ran"
  assert_output "$TOOL/build/gpulint"
}

@test "a hook symlinked into .git/hooks still finds its own repository" {
  wrapper "$TOOL/build/gpulint"
  git config --unset core.hooksPath
  ln -s "$TOOL/.githooks/pre-commit" .git/hooks/pre-commit
  expect_blocked commit -m x
  assert_finding src/upload.c no-via-pinned
  run cat "$BATS_TEST_TMPDIR/ran"
  assert_output "$TOOL/build/gpulint"
}

@test "gpulint on PATH comes before build/" {
  wrapper "$TOOL/build/gpulint"
  wrapper "$BATS_TEST_TMPDIR/bin/gpulint"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH expect_blocked commit -m x
  assert_finding src/upload.c no-via-pinned
  run cat "$BATS_TEST_TMPDIR/ran"
  assert_output "$BATS_TEST_TMPDIR/bin/gpulint"
}

@test "GPULINT comes before PATH" {
  wrapper "$BATS_TEST_TMPDIR/bin/gpulint"
  wrapper "$BATS_TEST_TMPDIR/explicit/my-gpulint"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH GPULINT=$BATS_TEST_TMPDIR/explicit/my-gpulint \
    expect_blocked commit -m x
  assert_finding src/upload.c no-via-pinned
  run cat "$BATS_TEST_TMPDIR/ran"
  assert_output "$BATS_TEST_TMPDIR/explicit/my-gpulint"
}

@test "GPULINT naming a file that is not there blocks, it does not fall back" {
  wrapper "$BATS_TEST_TMPDIR/bin/gpulint"
  git rm -q --cached src/upload.c
  good_c src/ok.c
  git add src/ok.c
  PATH=$BATS_TEST_TMPDIR/bin:$PATH GPULINT=$BATS_TEST_TMPDIR/nowhere/gpulint \
    expect_blocked commit -m x
  assert_output --partial "GPULINT=$BATS_TEST_TMPDIR/nowhere/gpulint is not an executable file"
  run test -e "$BATS_TEST_TMPDIR/ran"
  assert_failure
}

@test "a configuration error (exit 2) blocks with gpulint's message" {
  export GPULINT=$REAL_GPULINT
  git rm -q --cached src/upload.c
  good_c src/ok.c
  printf 'rules: [this is not\n  valid: yaml\n' >.gpulint.yaml
  git add src/ok.c .gpulint.yaml
  expect_blocked commit -m x
  assert_output --partial "exit 2"
  assert_output --partial ".gpulint.yaml"
}

@test "an internal error (exit 3) blocks with gpulint's message" {
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\necho "gpulint: internal error: out of cheese" >&2\nexit 3\n' \
    >"$BATS_TEST_TMPDIR/bin/broken-gpulint"
  chmod +x "$BATS_TEST_TMPDIR/bin/broken-gpulint"
  git rm -q --cached src/upload.c
  good_c src/ok.c
  git add src/ok.c
  GPULINT=$BATS_TEST_TMPDIR/bin/broken-gpulint expect_blocked commit -m x
  assert_output --partial "exit 3"
  assert_output --partial "out of cheese"
  assert_output --partial "Nothing was checked"
}

@test "a crashing gpulint blocks" {
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\nkill -SEGV $$\n' >"$BATS_TEST_TMPDIR/bin/crashing-gpulint"
  chmod +x "$BATS_TEST_TMPDIR/bin/crashing-gpulint"
  git rm -q --cached src/upload.c
  good_c src/ok.c
  git add src/ok.c
  GPULINT=$BATS_TEST_TMPDIR/bin/crashing-gpulint expect_blocked commit -m x
  assert_output --partial "exited 139"
}

@test "make install-hooks style: a relative core.hooksPath in the hooks' own repository" {
  # The hooks' repository is the one being committed to, hooked up the way
  # `make install-hooks` does it, and the commit is made from a subdirectory.
  wrapper "$TOOL/build/gpulint"
  git -C "$TOOL" init -q -b main
  git -C "$TOOL" config core.hooksPath .githooks
  printf '/build/\n' >"$TOOL/.gitignore"
  git -C "$TOOL" add .gitignore hooks .githooks
  git -C "$TOOL" commit -q -m "hooks"
  rm "$BATS_TEST_TMPDIR/ran"
  bad_c "$TOOL/src/upload.c"
  git -C "$TOOL" add src/upload.c
  cd "$TOOL/hooks"
  expect_blocked commit -m x
  assert_finding src/upload.c no-via-pinned
  run cat "$BATS_TEST_TMPDIR/ran"
  assert_output "$TOOL/build/gpulint"
}

@test "pre-push without any gpulint blocks the push too" {
  git init -q --bare "$BATS_TEST_TMPDIR/remote.git"
  git remote add origin "$BATS_TEST_TMPDIR/remote.git"
  commit_unchecked -m "bad, without the hook"
  expect_blocked push origin main
  assert_output --partial "push blocked: gpulint not found"
  run git --git-dir="$BATS_TEST_TMPDIR/remote.git" rev-parse -q --verify main
  assert_failure
}
