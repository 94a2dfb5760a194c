#!/usr/bin/env bats
# What the hooks say: each finding with its line and column, file names that
# cannot be mistaken for others, the gpulint on PATH that is not executable,
# a build command that can be pasted whatever the path, and the claim that
# CI runs the same check only where the hooks know it does.

load test_helper

setup() {
  common_setup
}

# A PATH without any gpulint on it, plus $1 first.
path_without_gpulint() {
  local dir clean=
  local IFS=:
  for dir in $PATH; do
    [ -e "$dir/gpulint" ] && continue
    clean=${clean:+$clean:}$dir
  done
  printf '%s\n' "$1:$clean"
}

@test "each finding is listed with its line and its column" {
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m x
  assert_line "  src/upload.c:1:6: no-via-pinned: 'upload_f32_via_pinned' is a retired pinned-staging helper: stage uploads through the mapped pinned buffer: write its host pointer, cudaMemcpyAsync device-to-device from its device pointer, sync"
  assert_line --regexp '^  src/upload\.c:5:5: no-via-pinned: '
}

@test "a file name with a newline is shown quoted, not as a file of another name" {
  mkdir -p src
  bad_c "src/new"$'\n'"line.c"
  git add src
  expect_blocked commit -m x
  assert_line --regexp "^  \\\$'src/new\\\\nline\\.c':1:6: no-via-pinned: "
  refute_line --regexp '^line\.c:'
  refute_line --regexp '^  line\.c:'
}

@test "a gpulint on PATH that is not executable is named" {
  unset GPULINT
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  cp "$REPO/build/gpulint" "$BATS_TEST_TMPDIR/bin/gpulint"
  chmod -x "$BATS_TEST_TMPDIR/bin/gpulint"
  # Hooks from a copy with no build/, so nothing else is found.
  TOOL=$BATS_TEST_TMPDIR/tool
  mkdir -p "$TOOL"
  cp -R "$REPO/hooks" "$REPO/.githooks" "$TOOL/"
  git config core.hooksPath "$TOOL/.githooks"
  good_c src/a.c
  git add src/a.c
  PATH=$(path_without_gpulint "$BATS_TEST_TMPDIR/bin") expect_blocked commit -m x
  assert_output --partial "gpulint not found"
  assert_output --partial "On PATH but not an executable file: $BATS_TEST_TMPDIR/bin/gpulint"
}

@test "the build hint quotes a path with spaces and quotes so it can be pasted" {
  unset GPULINT
  TOOL="$BATS_TEST_TMPDIR/it's a tool"
  mkdir -p "$TOOL"
  cp -R "$REPO/hooks" "$REPO/.githooks" "$TOOL/"
  git config core.hooksPath "$TOOL/.githooks"
  good_c src/a.c
  git add src/a.c
  PATH=$(path_without_gpulint /nonexistent) expect_blocked commit -m x
  hint=$(grep -o 'Build it:   .*' <<<"$output")
  hint=${hint#Build it:   }
  # Run the hint through the shell as pasted, with make replaced by echo.
  run bash -c "make() { printf '%s\n' \"\$@\"; }; $hint"
  assert_success
  assert_output "-C
$TOOL
analyzer"
}

@test "outside the hooks' own repository there is no claim that CI runs the check" {
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m x
  refute_output --partial "CI runs the same check"
  assert_output --partial "--no-verify skips this check"
}

@test "in the hooks' own repository, whose make check runs it, the claim is made" {
  # A repository that is the tool: its hooks, and the CI test that runs them.
  TOOL=$BATS_TEST_TMPDIR/tool
  new_repo "$TOOL"
  mkdir -p "$TOOL/tests/hooks"
  cp -R "$REPO/hooks" "$REPO/.githooks" "$TOOL/"
  cp "$REPO/tests/hooks/ci-parity.bats" "$TOOL/tests/hooks/"
  cd "$TOOL"
  git config core.hooksPath .githooks
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m x
  assert_output --partial "CI runs the same check (make check)"
}
