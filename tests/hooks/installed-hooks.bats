#!/usr/bin/env bats
# `make install` installs the hooks (<prefix>/share/gpulint/hooks) beside
# gpulint (<prefix>/bin), and one command sets them up in any repository,
# with no clone of gpulint's own repository: the installed hooks run the
# installed gpulint.

load test_helper

setup_file() {
  # One install for the file: into a throwaway DESTDIR, as a package would.
  export INSTALL_ROOT=$BATS_FILE_TMPDIR/dest
  make -s --no-print-directory -C "$REPO" install DESTDIR="$INSTALL_ROOT" PREFIX=/opt/gpulint \
    >"$BATS_FILE_TMPDIR/install.log" 2>&1
}

setup() {
  common_setup
  [ -x "$INSTALL_ROOT/opt/gpulint/bin/gpulint" ] ||
    fail "make install failed: $(cat "$BATS_FILE_TMPDIR/install.log")"
  PREFIX_DIR=$INSTALL_ROOT/opt/gpulint
  unset GPULINT
  # No other gpulint on PATH: the installed hooks must find their own.
  local dir clean=
  local IFS=:
  for dir in $PATH; do
    [ -e "$dir/gpulint" ] && continue
    clean=${clean:+$clean:}$dir
  done
  export PATH=$clean
}

@test "make install names the one command that sets the hooks up" {
  run cat "$BATS_FILE_TMPDIR/install.log"
  assert_output --partial "git config core.hooksPath /opt/gpulint/share/gpulint/hooks"
  for f in pre-commit pre-merge-commit pre-push; do
    [ -x "$PREFIX_DIR/share/gpulint/hooks/$f" ] || fail "$f not installed executable"
  done
  [ -f "$PREFIX_DIR/share/gpulint/hooks/lib.sh" ] || fail "lib.sh not installed"
}

@test "gpulint --version names the installed hooks and the command that sets them up" {
  run "$PREFIX_DIR/bin/gpulint" --version
  assert_success
  hooks=$(cd -P "$PREFIX_DIR/share/gpulint/hooks" && pwd)
  assert_line "hooks: $hooks (set up a repository: git config core.hooksPath $hooks)"
  # The command it prints, run as is, makes a commit checked.
  cmd=${lines[1]#*set up a repository: }
  cmd=${cmd%)}
  eval "$cmd"
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m bad
  assert_finding src/upload.c no-via-pinned
}

@test "with core.hooksPath at the installed hooks, a bad commit is blocked by the installed gpulint" {
  git config core.hooksPath "$PREFIX_DIR/share/gpulint/hooks"
  bad_c src/upload.c
  git add src/upload.c
  expect_blocked commit -m bad
  assert_finding src/upload.c no-via-pinned
  git rm -q --cached src/upload.c
  good_c src/a.c a
  git add src/a.c
  expect_allowed commit -m good
  assert_equal "$(git log --format=%s)" good
}

@test "the installed pre-merge-commit checks a merge, and pre-push a push" {
  git config core.hooksPath "$PREFIX_DIR/share/gpulint/hooks"
  good_c src/a.c a
  git add src/a.c
  git commit -q -m base
  git switch -q -c side
  bad_c src/upload.c
  git add src/upload.c
  commit_unchecked -m "side: bad"
  git switch -q main
  good_c src/b.c b
  git add src/b.c
  git commit -q -m "main: more"
  # A blocked merge stays in progress (git's doing, see merge.bats).
  run git merge --no-ff -m "merge side" side
  assert_failure
  assert_output --partial "merge blocked"
  assert_equal "$(git log -1 --format=%s)" "main: more"
  git merge --abort
  git init -q --bare "$BATS_TEST_TMPDIR/remote.git"
  expect_blocked push "$BATS_TEST_TMPDIR/remote.git" side
  assert_output --partial "side: bad"
}

@test "no installed gpulint: blocked with where it was looked for, no build hint for a clone" {
  git config core.hooksPath "$PREFIX_DIR/share/gpulint/hooks"
  mv "$PREFIX_DIR/bin/gpulint" "$PREFIX_DIR/bin/gpulint.away"
  good_c src/a.c a
  git add src/a.c
  expect_blocked commit -m x
  mv "$PREFIX_DIR/bin/gpulint.away" "$PREFIX_DIR/bin/gpulint"
  assert_output --partial "gpulint not found"
  assert_output --partial "$PREFIX_DIR/bin/gpulint"
  refute_output --partial "Build it"
}
