#!/usr/bin/env bats
# The hooks' cache of clean results deletes nothing but its own entries: in
# a directory shared with other tools, only files named clean-<sha256> in
# its own subdirectory go when stale; a GPULINT_HOOK_CACHE_DIR that resolves
# into the work tree or .git is not used at all (the commit is still
# checked), so no file there is written or deleted.

load test_helper

setup() {
  common_setup
  good_c src/a.c a
  git add src/a.c
}

# Files another tool keeps in a shared cache, all older than the hook's
# 30-day expiry, at the top and in subdirectories.
plant_foreign_files() {
  mkdir -p "$1/other-tool/deep" "$1/gpulint-hook-clean/sub"
  printf 'x\n' >"$1/top-level-file"
  printf 'x\n' >"$1/other-tool/deep/entry"
  printf 'x\n' >"$1/gpulint-hook-clean/not-ours.txt"
  printf 'x\n' >"$1/gpulint-hook-clean/sub/clean-$(printf '%064d' 0)"
  printf '0\n' >"$1/gpulint-hook-clean/clean-$(printf '%064d' 1)-suffix"
  find "$1" -exec touch -h -d '60 days ago' {} +
}
listing() { (cd "$1" && find . | LC_ALL=C sort); }

@test "a shared cache directory keeps every file that is not the hook's own" {
  shared=$BATS_TEST_TMPDIR/shared-cache
  export GPULINT_HOOK_CACHE_DIR=$shared
  plant_foreign_files "$shared"
  # One stale entry of the hook's own, which it may drop.
  stale=$shared/gpulint-hook-clean/clean-$(printf '%064d' 7)
  printf '0\n' >"$stale"
  touch -d '60 days ago' "$stale"
  listing "$shared" | grep -v "clean-$(printf '%064d' 7)\$" >"$BATS_TEST_TMPDIR/expected"
  expect_allowed commit -m first
  [ ! -e "$stale" ] || fail "the hook's own stale entry was kept"
  # Everything else is still there; the only addition is this commit's entry.
  listing "$shared" | grep -Ev '/gpulint-hook-clean/clean-[0-9a-f]{64}$' >"$BATS_TEST_TMPDIR/after"
  run diff -u "$BATS_TEST_TMPDIR/expected" "$BATS_TEST_TMPDIR/after"
  assert_success
  run find "$shared/gpulint-hook-clean" -maxdepth 1 -newer "$shared/top-level-file" -name 'clean-*'
  assert_equal "$(wc -l <<<"$output")" 1
}

# A cache directory inside the repository: the commit is checked and goes
# through, nothing inside the work tree or .git is created or deleted
# beyond what git itself does for a commit.
commit_with_cache_dir_inside() {
  local value=$1
  mkdir -p old
  printf 'untracked, old\n' >old/keep.txt
  printf 'old\n' >.git/keep-me
  settle
  find .git -exec touch -h -d '60 days ago' {} +
  find .git ! -name index ! -name 'ORIG_HEAD' -type f | LC_ALL=C sort >"$BATS_TEST_TMPDIR/git-before"
  snapshot_worktree >"$BATS_TEST_TMPDIR/tree-before"
  GPULINT_HOOK_CACHE_DIR=$value run git commit -m first
  assert_success
  assert_output --partial "inside this repository"
  snapshot_worktree >"$BATS_TEST_TMPDIR/tree-after"
  run diff -u "$BATS_TEST_TMPDIR/tree-before" "$BATS_TEST_TMPDIR/tree-after"
  assert_success
  # Every file .git had is still there, and the hook added no directory.
  while IFS= read -r f; do
    [ -e "$f" ] || fail "$f was deleted"
  done <"$BATS_TEST_TMPDIR/git-before"
  run find . -name 'gpulint-hook-clean'
  assert_output ""
  assert_equal "$(git log --format=%s)" first
}

@test "GPULINT_HOOK_CACHE_DIR=. (the work tree) is not used, and nothing there is deleted" {
  commit_with_cache_dir_inside .
}

@test "GPULINT_HOOK_CACHE_DIR=.git is not used, and nothing in .git is deleted" {
  commit_with_cache_dir_inside .git
}

@test "a relative cache directory that leaves the repository and comes back into it is not used" {
  commit_with_cache_dir_inside "../${PWD##*/}/src"
}

@test "a bad commit is still blocked when the cache directory is refused" {
  bad_c src/upload.c
  git add src/upload.c
  GPULINT_HOOK_CACHE_DIR=. expect_blocked commit -m bad
  assert_finding src/upload.c no-via-pinned
  assert_output --partial "inside this repository"
}
