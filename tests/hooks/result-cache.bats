#!/usr/bin/env bats
# The hooks remember snapshots gpulint found clean (keyed by every entry of
# the snapshot, the gpulint binary and the configuration), so the same
# snapshot is not analysed twice: a reworded amend, and each commit pushed
# after pre-commit checked it.

load test_helper

setup() {
  common_setup
  REAL_GPULINT=$GPULINT
  # A gpulint that counts its runs, then runs the real one.
  export GPULINT=$BATS_TEST_TMPDIR/bin/gpulint
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\necho run >>"%s/runs"\nexec "%s" "$@"\n' \
    "$BATS_TEST_TMPDIR" "$REAL_GPULINT" >"$GPULINT"
  chmod +x "$GPULINT"
  : >"$BATS_TEST_TMPDIR/runs"
}

runs() { wc -l <"$BATS_TEST_TMPDIR/runs"; }

@test "rewording with --amend does not analyse the same snapshot again" {
  good_c src/a.c
  git add src/a.c
  git commit -q -m first
  assert_equal "$(runs)" 1
  git commit -q --amend -m "first, reworded"
  assert_equal "$(runs)" 1
  GPULINT_HOOK_CACHE=0 git commit -q --amend -m "first, reworded again"
  assert_equal "$(runs)" 2
}

@test "commits checked by pre-commit are not analysed again by pre-push" {
  git init -q --bare "$BATS_TEST_TMPDIR/remote.git"
  git remote add origin "$BATS_TEST_TMPDIR/remote.git"
  local i
  for i in 1 2 3; do
    good_c "src/f$i.c" "f$i"
    git add "src/f$i.c"
    git commit -q -m "commit $i"
  done
  assert_equal "$(runs)" 3
  run git push origin main
  assert_success
  assert_equal "$(runs)" 3
}

@test "a snapshot with findings is analysed every time" {
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m one
  expect_blocked commit -m two
  assert_equal "$(runs)" 2
}

@test "a changed configuration is not answered from the cache" {
  good_c src/a.c
  git add src/a.c
  git commit -q -m first
  # Same code, but the commit now records a broken configuration (the
  # index listing in the key leaves *.yaml out: the config is keyed apart).
  printf 'exclude: [unclosed\n' >.gpulint.yaml
  git add .gpulint.yaml
  expect_blocked commit --amend -m "first, reworded"
  assert_output --partial "exit 2"
}

@test "a rebuilt gpulint is not answered from the cache" {
  good_c src/a.c
  git add src/a.c
  git commit -q -m first
  assert_equal "$(runs)" 1
  # A different binary at the same path (size and mtime change).
  printf '#!/bin/sh\n# rebuilt\necho run >>"%s/runs"\nexec "%s" "$@"\n' \
    "$BATS_TEST_TMPDIR" "$REAL_GPULINT" >"$GPULINT"
  git commit -q --amend -m "first, reworded"
  assert_equal "$(runs)" 2
}

@test "a documentation-only commit on top of a checked snapshot is not analysed again" {
  good_c src/a.c
  git add src/a.c
  git commit -q -m first
  assert_equal "$(runs)" 1
  mkdir -p docs
  printf '# Notes\n' >docs/notes.md
  printf 'all:\n\ttrue\n' >Makefile
  git add docs/notes.md Makefile
  git commit -q -m "docs and build only"
  assert_equal "$(runs)" 1
  # A source change, and a file that could be #included, are analysed.
  good_c src/b.c b
  git add src/b.c
  git commit -q -m "source"
  assert_equal "$(runs)" 2
  printf '#define X 1\n' >src/table.inc
  git add src/table.inc
  git commit -q -m "include fragment"
  assert_equal "$(runs)" 3
}

@test "a rebuild or reinstall of the same code keeps both caches warm" {
  # A real binary (not the counting wrapper), replaced by a byte-identical
  # copy: new inode and mtime, same content.
  export GPULINT=$BATS_TEST_TMPDIR/bin/gpulint-real
  cp "$REAL_GPULINT" "$GPULINT"
  good_c src/a.c
  printf '__global__ void k(float *x) { x[0] = 1.0f; }\n' >src/k.cu
  git add src
  git commit -q -m first
  facts=$XDG_CACHE_HOME/gpulint/facts
  find "$facts" -type f | LC_ALL=C sort >"$BATS_TEST_TMPDIR/facts-before"
  [ -s "$BATS_TEST_TMPDIR/facts-before" ] || fail "no facts were cached"
  entries_before=$(find "$GPULINT_HOOK_CACHE_DIR" -name 'clean-*' | wc -l)
  rm -f "$GPULINT"
  cp "$REAL_GPULINT" "$GPULINT"
  touch -d '1 hour ago' "$GPULINT"
  # The hook's cache answers the same snapshot (no new entry is needed)...
  git commit -q --amend -m "first, reworded"
  assert_equal "$(find "$GPULINT_HOOK_CACHE_DIR" -name 'clean-*' | wc -l)" "$entries_before"
  # ...and gpulint's facts cache has every file's facts under the same keys.
  run "$GPULINT" --staged
  assert_success
  find "$facts" -type f | LC_ALL=C sort >"$BATS_TEST_TMPDIR/facts-after"
  run diff "$BATS_TEST_TMPDIR/facts-before" "$BATS_TEST_TMPDIR/facts-after"
  assert_success
}

@test "another CUDA_PATH or gpulint path is not answered from the cache" {
  good_c src/a.c
  git add src/a.c
  git commit -q -m first
  assert_equal "$(runs)" 1
  CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}/ git commit -q --amend -m "first, reworded"
  assert_equal "$(runs)" 2
  cp "$GPULINT" "$BATS_TEST_TMPDIR/bin/gpulint-copy"
  GPULINT=$BATS_TEST_TMPDIR/bin/gpulint-copy git commit -q --amend -m "first, reworded again"
  assert_equal "$(runs)" 3
  git commit -q --amend -m "first, as at first"
  assert_equal "$(runs)" 4
}

@test "YAML below the top level is left out of the key, the top level's dot files are not" {
  good_c src/a.c
  git add src/a.c
  git commit -q -m first
  mkdir -p .github/workflows ci
  printf 'on: push\n' >.github/workflows/ci.yml
  printf 'a: 1\n' >ci/settings.yaml
  printf 'b: 2\n' >top.yaml
  git add .github ci top.yaml
  git commit -q -m "CI settings"
  assert_equal "$(runs)" 1
  printf 'exclude: ["ci/**"]\n' >.gpulint.yaml
  git add .gpulint.yaml
  git commit -q -m "config"
  assert_equal "$(runs)" 2
}
