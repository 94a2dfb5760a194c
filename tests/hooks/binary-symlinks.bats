#!/usr/bin/env bats
# Binary files and symlinks: staged as blobs that are not C source text. A
# symlink's blob is its target path; the hook must not follow it into the
# working tree.

load test_helper

setup() { common_setup; }

binary() {
  head -c 4096 /dev/urandom >"$1"
  printf '\0\377\0upload_f32_via_pinned(\0' >>"$1"
}

@test "binary files go through" {
  binary weights.bin
  binary "model.dat"
  good_c src/ok.c
  git add .
  expect_allowed commit -m "binaries"
}

@test "binary files next to a violation: blocked on the violation" {
  binary weights.bin
  bad_c src/upload.c
  git add .
  expect_blocked commit -m "binaries and a violation"
  assert_finding src/upload.c no-via-pinned
  refute_output --partial "weights.bin"
}

@test "a symlink to an unstaged file with a violation goes through (its blob is the target path)" {
  bad_c scratch/upload.c
  ln -s ../scratch/upload.c src_link.c
  mkdir -p src && ln -s ../scratch/upload.c src/link.c
  git add src_link.c src/link.c
  expect_allowed commit -m "symlinks"
  run git ls-files -s src/link.c
  assert_output --regexp "^120000 "
}

@test "a dangling symlink goes through" {
  ln -s does/not/exist.c dangling.c
  good_c ok.c
  git add dangling.c ok.c
  expect_allowed commit -m "dangling"
}

@test "a symlink next to a staged violation: blocked on the violation" {
  bad_c src/upload.c
  ln -s src/upload.c alias.c
  git add src/upload.c alias.c
  expect_blocked commit -m "file and symlink"
  assert_finding src/upload.c no-via-pinned
}

@test "a file replaced by a symlink: the old content is no longer committed" {
  bad_c upload.c
  git add upload.c
  commit_unchecked -m "bad, without the hook"
  good_c real.c
  rm upload.c
  ln -s real.c upload.c
  git add upload.c real.c
  expect_allowed commit -m "upload.c is now a symlink"
}
