#!/usr/bin/env bats
# pre-commit: what is staged is checked; a finding blocks with a readable
# message; a clean commit goes through.

load test_helper

setup() { common_setup; }

@test "a clean commit goes through" {
  good_c src/ok.c
  git add src/ok.c
  expect_allowed commit -m "add ok.c"
  run git log --oneline
  assert_line --partial "add ok.c"
}

@test "a first commit (no HEAD yet) with a violation is blocked" {
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m "first"
  assert_finding src/upload.c no-via-pinned
  run git rev-parse -q --verify HEAD
  assert_failure
}

@test "a violation is blocked with each finding, the fix, the suppression and the bypass" {
  good_c src/ok.c
  git add src/ok.c
  commit_unchecked -m base
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m "add upload"
  assert_output --partial "commit blocked"
  # Both occurrences (declaration and call), each as file:line:column: rule: message.
  assert_output --regexp "src/upload.c:1:6: no-via-pinned: "
  assert_output --regexp "src/upload.c:5:5: no-via-pinned: "
  assert_output --partial "gpulint --staged"
  assert_output --partial "// gpulint: allow(RULE) -- "
  # This throwaway repository has no CI the hook knows of: no claim about one.
  refute_output --partial "CI runs the same check"
  assert_output --partial "--no-verify skips this check"
  run git log --format=%s
  assert_output "base"
}

@test "a commit from a subdirectory is checked like any other" {
  good_c src/ok.c
  git add src/ok.c
  commit_unchecked -m base
  bad_c src/deep/er/upload.c
  git add src/deep/er/upload.c
  cd src/deep
  expect_blocked commit -m "from a subdirectory"
  assert_finding src/deep/er/upload.c no-via-pinned
  good_c er/upload.c
  git add er/upload.c
  expect_allowed commit -m "from a subdirectory"
}

@test "a violation in a file not touched by the commit still blocks it (CI checks the whole tree)" {
  bad_c src/old.c
  git add src/old.c
  commit_unchecked -m "bad, without the hook"
  good_c src/new.c
  git add src/new.c
  expect_blocked commit -m "unrelated change"
  assert_finding src/old.c no-via-pinned
}

@test "a suppression with a reason lets the commit through; without a reason it does not" {
  printf '%s\n' \
    '// gpulint: allow-file(no-via-pinned) -- legacy loader, removed with the v1 format' \
    'void upload_f32_via_pinned(float *dst, const float *src, int n);' >src.c
  git add src.c
  expect_allowed commit -m "suppressed with a reason"

  printf '%s\n' \
    '// gpulint: allow-file(no-via-pinned)' \
    'void upload_f32_via_pinned(float *dst, const float *src, int n);' >src.c
  git add src.c
  expect_blocked commit -m "suppressed without a reason"
  assert_output --partial "commit blocked"
}

@test "the hook leaves no temporary files and no lock behind" {
  bad_c upload.c
  git add upload.c
  expect_blocked commit -m x
  run find "$TMPDIR" -mindepth 1
  assert_output ""
  run find .git -name '*.lock'
  assert_output ""
}

@test "many findings: the first 50 are listed, then how many more" {
  {
    echo 'void upload_f32_via_pinned(float *dst, const float *src, int n);'
    echo 'void push_all(float *d, const float *s, int n)'
    echo '{'
    for ((i = 0; i < 59; i++)); do
      echo '    upload_f32_via_pinned(d, s, n);'
    done
    echo '}'
  } >many.c
  git add many.c
  expect_blocked commit -m many
  assert_output --partial "60 errors in the staged files"
  assert_output --partial "... and 10 more"
  run grep -c ": no-via-pinned: " <<<"$output"
  assert_output 50
}

# pre-commit reads gpulint's output through a pipe: it writes no temporary
# file, so a TMPDIR that cannot hold one (here a plain file) costs nothing.
# It used to make a directory there with mktemp and block every commit when
# it could not ("the hook could not start it").
@test "pre-commit needs no temporary directory: with TMPDIR unusable, a good commit goes through and a bad one is blocked" {
  printf 'not a directory\n' >"$BATS_TEST_TMPDIR/tmp-file"
  export TMPDIR=$BATS_TEST_TMPDIR/tmp-file
  good_c src/a.c a
  git add src/a.c
  expect_allowed commit -m good
  refute_output --partial "could not check"
  assert_equal "$(git log --format=%s)" good
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m bad
  assert_finding src/upload.c no-via-pinned
  assert_equal "$(cat "$TMPDIR")" "not a directory"
}
