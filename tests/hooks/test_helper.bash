# Shared setup for the hook tests (load it from each .bats file).
#
# Every test gets a throwaway repository with a fixed identity, its own HOME
# and no system or global git configuration, whose core.hooksPath is this
# repository's .githooks/, and the real build/gpulint. `expect_blocked`
# proves a blocked commit left the working tree and the index exactly as they
# were (content, modes, mtimes, .git/index bytes, status, no stash).

REPO=$(cd -P -- "$BATS_TEST_DIRNAME/../.." && pwd)
BATS_LIB=${BATS_LIB:-/usr/lib/bats}
load "$BATS_LIB/bats-support/load"
load "$BATS_LIB/bats-assert/load"

# Starts a test: a clean environment and an empty repository at $W (the cwd).
common_setup() {
  # Nothing from a surrounding git process (make check run from a hook).
  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX GIT_OBJECT_DIRECTORY \
        GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CEILING_DIRECTORIES GIT_NAMESPACE \
        GIT_EDITOR GIT_SEQUENCE_EDITOR GIT_OPTIONAL_LOCKS GIT_CONFIG \
        GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GPULINT_HOOK_CACHE
  export HOME=$BATS_TEST_TMPDIR/home
  mkdir -p "$HOME"
  export GIT_CONFIG_NOSYSTEM=1
  export GIT_CONFIG_GLOBAL=$HOME/.gitconfig
  : >"$GIT_CONFIG_GLOBAL"
  export GIT_AUTHOR_NAME='Hook Test' GIT_AUTHOR_EMAIL=hooks@example.invalid
  export GIT_COMMITTER_NAME='Hook Test' GIT_COMMITTER_EMAIL=hooks@example.invalid
  export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
  export GIT_MERGE_AUTOEDIT=no GIT_TERMINAL_PROMPT=0
  # gpulint caches what it can reuse between runs (its CUDA precompiled
  # header): shared by the tests of one run, like a developer's ~/.cache.
  export XDG_CACHE_HOME=${BATS_RUN_TMPDIR:-$BATS_FILE_TMPDIR}/cache
  # The hooks' own cache of clean results: per test, so no test depends on
  # what another one checked.
  export GPULINT_HOOK_CACHE_DIR=$BATS_TEST_TMPDIR/hook-cache
  export TMPDIR=$BATS_TEST_TMPDIR/tmp
  mkdir -p "$TMPDIR"
  # HOOK_TEST_GPULINT: run the suite against another gpulint build.
  export GPULINT=${HOOK_TEST_GPULINT:-$REPO/build/gpulint}
  W=$BATS_TEST_TMPDIR/work
  new_repo "$W"
  cd "$W" || return 1
}

# An empty repository wired to the hooks under test.
new_repo() {
  git init -q -b main "$1"
  git -C "$1" config core.hooksPath "$REPO/.githooks"
}

# C sources: one that passes every rule, one that breaks no-via-pinned.
good_c() {
  mkdir -p "$(dirname -- "$1")"
  printf 'int %s(int x)\n{\n    return x + 1;\n}\n' "${2:-add_one}" >"$1"
}
bad_c() {
  mkdir -p "$(dirname -- "$1")"
  printf '%s\n' \
    'void upload_f32_via_pinned(float *dst, const float *src, int n);' \
    '' \
    'void push_weights(float *dst, const float *src, int n)' \
    '{' \
    '    upload_f32_via_pinned(dst, src, n);' \
    '}' >"$1"
}

# A bare remote at $REMOTE, named origin, that already has main with one
# clean commit: what a push is measured against.
remote_with_clean_base() {
  REMOTE=$BATS_TEST_TMPDIR/remote.git
  git init -q --bare "$REMOTE"
  git remote add origin "$REMOTE"
  good_c src/a.c a
  git add src
  commit_unchecked -m base
  git push -q origin main
}

# Commit without the hook: how history gets a bad commit (and fast setup).
commit_unchecked() {
  git commit -q --no-verify "$@"
}

# Makes the index stable so that git itself has nothing to rewrite when a
# commit starts: old mtimes (no racily clean entries), refreshed stat data
# and a valid cache tree. Then any change to .git/index is the hook's doing.
settle() {
  local top
  top=$(git rev-parse --show-toplevel) || return 1
  (cd "$top" && find . -path ./.git -prune -o -exec touch -h -d @1600000000 {} +) || return 1
  git update-index -q --refresh >/dev/null || true
  git write-tree >/dev/null 2>&1 || true
}

# Everything a hook could disturb, as text to diff: the whole working tree
# (type, mode, mtime, size, link target, content hash of every file, from its
# top whatever the cwd), .git/index bytes and entries, status, stash, HEAD,
# leftover lock files.
snapshot_worktree() {
  local top
  top=$(git rev-parse --show-toplevel) || return 1
  (
    cd "$top" || exit 1
    find . -path ./.git -prune -o ! -path . -printf '%y %m %T@ %s %p -> %l\n' | LC_ALL=C sort
    find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum --
  )
}
snapshot() {
  local gitdir
  gitdir=$(git rev-parse --git-dir) || return 1
  snapshot_worktree
  if [ -e "$gitdir/index" ]; then
    echo "index: $(sha256sum <"$gitdir/index")"
  else
    echo "index: none"
  fi
  git ls-files --stage -z | tr '\0' '\n'
  echo "status:"
  GIT_OPTIONAL_LOCKS=0 git status --porcelain=v2 -z --untracked-files=all --ignored | tr '\0' '\n'
  echo "stash: $(git stash list)"
  echo "HEAD: $(git rev-parse -q --verify HEAD)"
  echo "locks: $(find "$gitdir" -name '*.lock' | LC_ALL=C sort)"
}

# Runs git with the given arguments, expects it to fail (the hook blocked),
# and asserts the working tree and index are exactly as before. $output and
# $status are left for further assertions.
expect_blocked() {
  settle
  snapshot >"$BATS_TEST_TMPDIR/before" || fail "snapshot failed"
  run git "$@"
  assert_failure
  snapshot >"$BATS_TEST_TMPDIR/after" || fail "snapshot failed"
  if ! diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after" >"$BATS_TEST_TMPDIR/diff"; then
    fail "working tree or index changed by a blocked 'git $*':
$(cat "$BATS_TEST_TMPDIR/diff")
--- git output:
$output"
  fi
}

# Runs git with the given arguments and expects it to succeed, leaving the
# working tree exactly as before (a commit never touches working-tree files).
expect_allowed() {
  settle
  snapshot_worktree >"$BATS_TEST_TMPDIR/before" || fail "snapshot failed"
  run git "$@"
  assert_success
  snapshot_worktree >"$BATS_TEST_TMPDIR/after" || fail "snapshot failed"
  if ! diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after" >"$BATS_TEST_TMPDIR/diff"; then
    fail "working tree changed by 'git $*':
$(cat "$BATS_TEST_TMPDIR/diff")
--- git output:
$output"
  fi
}

# The hook's block message names each finding as "file:line:column: rule: message".
assert_finding() {
  assert_output --regexp "(^|[[:space:]])$(regex_quote "$1"):[0-9]+:[0-9]+: $2: "
}
regex_quote() {
  printf '%s' "$1" | sed 's/[][\.*^$(){}?+|/]/\\&/g'
}
